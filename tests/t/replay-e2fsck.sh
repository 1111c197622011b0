# replay --policy=stop leaves every image byte-identical to `e2fsck -E journal_only -y`
# (tools/replay_vs_e2fsck.py: superblock time stamps aside), for journals the tests write with
# debugfs (csum v1, v2, v3, none; each kind of checksum damage) and for journals the kernel left
# (mkcrash.py, with flipbit.py damage). Also: --dry-run writes nothing, and e2undo restores
# every input from replay's undo file.
. "$E4R_TESTS_SRCDIR/lib.sh"

seeded_bytes data 65536 > data
# T1 = descriptor 1, data 2-4, commit 5; T2 = descriptor 6, data 7, revoke 8, commit 9.
build() { # IMAGE MKE2FS-OPTS JO-COMMAND
	mkimg "$1" 16M $2
	jwrite "$1" "$3" "jw -b 100,101,102 $PWD/data" "jw -b 200,101 -r 100 $PWD/data" "jc"
}
build v3.img "-O metadata_csum" "jo -c"
build v2.img "-O metadata_csum" "jo -c -v 2"
build v1.img "-O ^metadata_csum" "jo -c"
build none.img "-O ^metadata_csum" "jo"
dumpe2fs -h v1.img 2>/dev/null | grep -q "Journal features:.*journal_checksum" || fail "v1.img has no v1 checksum"

damage() { # NAME BASE JBLK OFFSET
	cp "$2" "$1.img"
	flip "$1.img" $(( $(jblock_offset "$1.img" "$3") + $4 )) 5
}
mkdir -p cases
for v in v3 v2 v1 none; do
	cp $v.img cases/$v-intact.img
	damage cases/$v-commit $v.img 5 700	# T1's commit block
	damage cases/$v-data $v.img 3 10	# a logged data block of T1
	damage cases/$v-data2 $v.img 7 4000	# T2's data block
	damage cases/$v-desc $v.img 1 900	# T1's descriptor (unused space: the tail checksum)
	damage cases/$v-revoke $v.img 8 900	# T2's revoke block
done
# A revoke count larger than the block: e2fsck refuses the whole journal.
cp v3.img cases/v3-rcount.img
python3 -c 'import sys; f=open(sys.argv[1],"r+b"); f.seek(int(sys.argv[2])+12); f.write((60000).to_bytes(4,"big"))' \
	cases/v3-rcount.img "$(jblock_offset cases/v3-rcount.img 8)"
# A journal inode whose size (and the superblock's copy of it) claims 2^30 blocks:
# the kernel and e2fsck use s_maxlen; so do we, without sizing anything from the claim.
cp v3.img cases/v3-isize.img
printf '%s\n' "sif <8> size 0x10000000000" "ssv jnl_blocks[15] 0x100" |
	debugfs -w -f - cases/v3-isize.img >/dev/null 2>&1
debugfs -R "stat <8>" cases/v3-isize.img 2>/dev/null | grep -q "Size: 1099511627776" || fail "forged journal size"
# needs_recovery set over an empty journal: e2fsck still moves the sequence on.
mkimg cases/empty-nr.img 8M
debugfs -w -R "feature needs_recovery" cases/empty-nr.img >/dev/null 2>&1

# The kernel's journals, damaged one bit at a time.
if [ "$(id -u)" = 0 ]; then
	for v in v1 v1async v3 v3async; do
		if with_sync_lock -x python3 "$E4R_TESTS_TOOLS/mkcrash.py" k-$v.img 11 $v > k-$v.log 2>&1; then
			cp k-$v.img cases/k-$v.img
			for kind in data commit desc; do
				cp k-$v.img cases/k-$v-$kind.img
				python3 "$E4R_TESTS_TOOLS/flipbit.py" cases/k-$v-$kind.img 3 $kind >/dev/null 2>&1 ||
					rm -f cases/k-$v-$kind.img	# debugfs could not map the journal
			done
		else
			note "mkcrash.py $v failed (no loop mounts?): $(tail -n 1 k-$v.log)"
		fi
	done
else
	note "not root: kernel crash images left out"
fi
n=$(ls cases | wc -l)
note "$n images"

run python3 "$E4R_TESTS_TOOLS/replay_vs_e2fsck.py" "$E4R" cases/*.img
expect_rc 0 "replay --policy=stop is identical to e2fsck on every image"
expect_out "^$n passed, 0 failed" "every image was compared"

run python3 "$E4R_TESTS_TOOLS/undo_vs_e2undo.py" "$E4R" cases/*.img
expect_rc 0 "e2undo restores every input from replay's undo file"

# The undo file is never overwritten.
cp v3.img u.img; : > exists.undo
run "$E4R" replay --undo=exists.undo u.img
[ "$RC" -ne 0 ] || fail "replay overwrote an existing undo file"
expect_out "exists.undo" "the error names the undo file"
[ ! -s exists.undo ] || fail "the existing undo file was modified"
cmp -s u.img v3.img || fail "the image was written although the undo file could not be"

# Without checksums a flipped bit in the high word of a tag's block number sends that block
# outside the filesystem. e2fsck tries the write, fails ("Error writing block"), and (a quirk of
# its write cache) also loses the next block it writes; we refuse that one block, write every
# other block, say so and exit 1.
damage outside none.img 1 23
cp outside.img outside-ref.img
e2fsck -E journal_only -y outside-ref.img 2>&1 | grep -q "Error writing block 137438953572" ||
	fail "e2fsck does not see the block outside the filesystem"
run "$E4R" replay --policy=stop outside.img
expect_rc 1 "a block outside the filesystem is a problem"
expect_out "fs block 137438953572 .*its home is outside the filesystem" "the refused block is named"
blk() { dd if="$1" bs=1024 skip="$2" count=1 2>/dev/null | sha256sum; }
[ "$(blk outside.img 101)" = "$(blk data 1)" ] || fail "T2's block 101 was not written"
[ "$(blk outside.img 102)" = "$(blk data 2)" ] || fail "T1's block 102 was not written"
[ "$(blk outside.img 200)" = "$(blk data 0)" ] || fail "T2's block 200 was not written"
[ "$(stat -c %s outside.img)" = "$(stat -c %s none.img)" ] || fail "the image grew"

# --dry-run writes nothing, whatever the policy: after each dry run the image is as it was
# before the first (hashing it once before them all, not before each: hashing is most of the
# cost here).
for img in cases/*.img; do
	before=$(sha "$img")
	for p in stop skip-block skip-transaction all auto none; do
		"$E4R" replay --dry-run --policy=$p "$img" >/dev/null 2>&1
		rc=$?
		[ $rc -le 1 ] || fail "dry run $p on $img: exit $rc"
		[ "$(sha "$img")" = "$before" ] || fail "dry run $p modified $img"
	done
done
exit 0
