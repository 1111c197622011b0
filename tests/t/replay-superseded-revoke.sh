# auto's supersede proof and revoke records, on journals written by debugfs's journal writer (v3):
# T1 logs fs 100 and 101; T2 logs fs 200 and revokes 100; T3 logs 200 (and, in the second
# journal, 100 again). T2's commit block is torn (second half replaced by seeded bytes).
# - T3 logs 200 only: leaving T2 out would let T1's copy of 100 come back (its revoke is lost:
#   a real skip-transaction replay writes d1's first block there, e2fsck's replay of the intact
#   journal does not), so auto does not skip it: it acts as stop and names block 100.
# - T3 logs 200 and 100: T2 is wholly superseded; auto replays past it and the image equals
#   e2fsck's replay of the undamaged journal but for the torn journal block.
. "$E4R_TESTS_SRCDIR/lib.sh"

seeded_bytes d1 2048 > d1
seeded_bytes d2 1024 > d2
seeded_bytes d3 2048 > d3
blk() { dd if="$1" bs=1024 skip="$2" count=1 2>/dev/null | sha256sum; }
tear() { # IMAGE JBLK
	seeded_bytes "tear-$2" 512 | dd of="$1" bs=1 seek=$(( $(jblock_offset "$1" "$2") + 512 )) conv=notrunc 2>/dev/null
}
for case in lost kept; do
	mkimg $case.img 16M -O metadata_csum
	if [ $case = lost ]; then t3="jw -b 200 $PWD/d3"; else t3="jw -b 200,100 $PWD/d3"; fi
	jwrite $case.img "jo -c" "jw -b 100,101 $PWD/d1" "jc" "jo -c" "jw -b 200 -r 100 $PWD/d2" "jc" "jo -c" "$t3" "jc"
	# debugfs reads the layout the cases rely on: T2's commit at journal block 8, T3 after it.
	debugfs -R "logdump" $case.img 2>&1 | grep -q "sequence 2, type 2 (commit block) at block 8" ||
		fail "$case: unexpected journal layout: $(debugfs -R logdump $case.img 2>&1)"
	debugfs -R "logdump" $case.img 2>&1 | grep -q "sequence 3, type 2 (commit block)" || fail "$case: no T3"
	cp $case.img $case-ref.img; e2fsck -E journal_only -y $case-ref.img >/dev/null 2>&1
	tear $case.img 8
done

# ---- the revoke would be lost: stop, and the difference named ----
cp lost.img lost-auto.img
run "$E4R" replay --policy=auto lost-auto.img
expect_out "transaction 2: commit checksum does not match: not replayed" "lost: auto refuses T2"
expect_out "transaction 2: not superseded: a block it revokes would come back from an earlier transaction \(fs block 100\)" \
	"lost: auto names the revoke"
expect_out "fs block 200, .*: auto leaves the home block as it is; skip-transaction writes transaction 3's copy" \
	"lost: what skip-transaction would write differently"
# Why T2 cannot be left out: without its revoke, T1's copy of 100 goes home (as under stop,
# which never reaches T2), where the intact journal leaves the home block.
cp lost.img lost-skipt.img
"$E4R" replay --policy=skip-transaction lost-skipt.img >/dev/null 2>&1
[ "$(blk lost-skipt.img 100)" = "$(dd if=d1 bs=1024 count=1 2>/dev/null | sha256sum)" ] ||
	fail "lost: skip-transaction did not write T1's copy of block 100"
[ "$(blk lost-ref.img 100)" != "$(blk lost-skipt.img 100)" ] || fail "lost: block 100 is the same either way: the case proves nothing"
cp lost.img lost-stop.img
"$E4R" replay --policy=stop lost-stop.img >/dev/null 2>&1
run python3 "$E4R_TESTS_TOOLS/imgdiff.py" lost-stop.img lost-auto.img
expect_rc 0 "lost: auto is stop"

# ---- every block relogged, the revoke covered: superseded ----
cp kept.img kept-auto.img
run "$E4R" replay --policy=auto kept-auto.img
expect_out "transaction 2: commit checksum does not match: left out: wholly superseded" "kept: auto skips T2"
expect_no_out "was corrupt" "kept: nothing left unresolved"
run python3 "$E4R_TESTS_TOOLS/imgdiff.py" kept-ref.img kept-auto.img
phys=$(( $(jblock_offset kept.img 8) / 1024 ))
[ "$(printf '%s\n' "$OUT" | grep -c differs)" = 1 ] && expect_out "^block $phys differs$" "kept: only the torn block differs" ||
	fail "kept: auto differs from e2fsck's replay of the undamaged journal: $OUT"
exit 0
