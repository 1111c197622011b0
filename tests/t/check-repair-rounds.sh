# Repairs settled in the round that makes them: a directory whose inode is
# cleared (debugfs clri) leaves its files unattached; check -f -y clears the entry, clears
# the empty files, reconnects the others (some had two links in that directory: their
# counts are set after the reconnection), fixes wrong link counts elsewhere and the
# free counts, and rewrites quota, all in one check: --json says 1 round. Oracles:
# e2fsck -fn finds the result clean, and so does check -n -f.
# With a subdirectory in it (a directory reconnected: its '..' and lost+found's count
# change, which a new check settles) at most two checks, and clean as well.
. "$E4R_TESTS_SRCDIR/lib.sh"

mkdir -p tree/d tree/keep
for i in $(seq 1 40); do : > "tree/d/empty$i"; done		# unattached and empty: cleared
for i in $(seq 1 30); do printf x > "tree/d/full$i"; done	# unattached: reconnected
for i in $(seq 1 5); do ln "tree/d/full$i" "tree/d/link$i"; done	# two links, both lost
ln tree/d/full6 tree/keep/outside6				# one link lost, one kept
for i in $(seq 1 10); do printf y > "tree/keep/k$i"; done

rm -f base.img
mke2fs -q -F -t ext4 -b 4096 -I 256 -O quota -U "$FIXED_UUID" -E "hash_seed=$FIXED_HASH_SEED" \
	-d tree base.img 32M >/dev/null 2>&1 || skip "mke2fs cannot make a quota image from a directory here"
# mke2fs -d does not charge quota: e2fsck -fy writes the quota files the inodes call for
e2fsck -fy base.img >/dev/null 2>&1
run e2fsck -fn base.img
expect_rc 0 "oracle: e2fsck -fn on the base image"

# rounds IMAGE: check -f -y --json on IMAGE; prints the number of checks it made
rounds() {
	"$E4R" check -f -y --json "$1" > "$1.json" 2>/dev/null
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["rounds"])' "$1.json"
}

# clean IMAGE WHAT: both oracles find IMAGE clean after the repair
clean() {
	run e2fsck -fn "$1"
	[ "$RC" = 0 ] || fail "$2: e2fsck -fn after check -f -y: exit $RC: $(printf '%s\n' "$OUT" | head -5)"
	run "$E4R" check -n -f "$1"
	expect_rc 0 "$2: check -n -f after check -f -y"
}

cp base.img one.img
{
	echo "clri /d"
	for i in 1 2 3; do echo "sif /keep/k$i links_count 4"; done
	echo "ssv free_blocks_count 123"
	echo "ssv free_inodes_count 321"
} | debugfs -w -f - one.img >/dev/null 2>&1 || fail "debugfs damage"
n=$(rounds one.img)
[ "$n" = 1 ] || fail "a cleared directory of files: $n checks, not 1"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
kinds = {f["problem"] for f in d["findings"] if f.get("fixed")}
need = {"entry_unused_inode", "unattached", "unattached_zero", "link_count"}
sys.exit(0 if need <= kinds else "not all fixed: %s" % sorted(need - kinds))' one.img.json ||
	fail "the repair did not make the repairs this damage needs"
clean one.img "a cleared directory of files"
# every file that held data and had all its links in /d is in lost+found, once (full6 keeps one)
got=$(debugfs -R "ls /lost+found" one.img 2>/dev/null | grep -o '#[0-9]*' | sort -u | wc -l)
[ "$got" = 29 ] || fail "lost+found holds $got entries, not the 29 files that held data and lost all links"

# a subdirectory inside: a second check, then clean
mkdir -p tree/d/sub
printf z > tree/d/sub/inner
mke2fs -q -F -t ext4 -b 4096 -I 256 -O quota -U "$FIXED_UUID" -E "hash_seed=$FIXED_HASH_SEED" \
	-d tree sub.img 32M >/dev/null 2>&1 || fail "mke2fs -d with a subdirectory"
e2fsck -fy sub.img >/dev/null 2>&1
debugfs -w -R "clri /d" sub.img >/dev/null 2>&1 || fail "debugfs clri"
n=$(rounds sub.img)
[ "$n" -le 2 ] || fail "a cleared directory holding a directory: $n checks, not at most 2"
clean sub.img "a cleared directory holding a directory"
exit 0
