# Out of memory in write: tests/unit/nomem_cmds fails each allocation of the whole process
# in turn (libext2fs's and the C library's too), once alone and once with every later one,
# during `write --script`. An allocation failure is an operational error: each run exits 8
# or as the uninjected run did with the same stdout, and what it leaves is what a crash may
# leave, never half an operation: once e2fsck replays the log, e2fsck -fn finds the
# filesystem consistent and it holds the tree (names, kinds, sizes, link counts, contents)
# of the uninjected run of the script's first j operations for some j, all of them when the
# run exits 0. The oracles of the prefixes are made by the helper (one uninjected run each).
# The script creates files and directories, fills a directory with long names until it is
# an index whose leaves split, makes a fast and a slow symlink, a hard link, renames a file
# and a directory across directories, unlinks, truncates, appends and removes a directory.
# write has no xattr operation, no --undo and no --json: there is nothing of them to fail.
. "$E4R_TESTS_SRCDIR/lib.sh"

nomem=$E4R_TOP_BUILDDIR/tests/unit/nomem_cmds
[ -x "$nomem" ] || fail "no $nomem: build with make check"
mkimg w.img 4M -b 1024 -O metadata_csum
# 200-byte names: four to a 1 KiB block, so a few files make /d an index with several leaves
long=$(printf 'n%.0s' $(seq 1 200))
{
	echo "mkdir /d"
	for i in $(seq 1 14); do echo "create /d/$long-$i $((i * 300))"; done
	echo "commit"
	echo "mkdir /d/sub"
	echo "symlink /d/$long-1 /d/slow"
	echo "symlink x /fast"
	echo "create /big 20000"
	echo "append /big 5000"
	echo "link /big /d/hard"
	echo "rename /d/$long-2 /d/sub/moved"
	echo "unlink /d/$long-3"
	echo "truncate /big 3000"
	echo "rename /d/sub /e"
	echo "unlink /e/moved"
	echo "rmdir /e"
} > s.txt

# the uninjected run, judged by the oracles: clean, and /d an index of several leaves
cp w.img oracle.img
run "$E4R" write --script=s.txt oracle.img
expect_rc 0 "the script runs"
run e2fsck -fn oracle.img
expect_rc 0 "oracle: the written image is clean"
leaves=$(debugfs -R "htree /d" oracle.img 2>/dev/null | sed -n 's/^Number of entries (count): //p' | head -1)
[ "${leaves:-0}" -ge 3 ] || fail "oracle: /d is no index of several leaves (count ${leaves:-none})"
cp w.img orig.img

# ~1500 allocations, two runs each: every index took 250 s on this shared machine, so
# every 6th index is tried (and the last), deterministically: 50 to 75 s.
run env E2FSPROGS_FAKE_TIME=1700000000 "$nomem" --max-runs 300 write --script=s.txt w.img
[ "$RC" -eq 77 ] && skip "allocation failures not injected in this build (a sanitizer's allocator)"
expect_rc 0 "every allocation failure exits 8 or as uninjected, leaving a prefix of the script"
expect_out "w.img: [0-9]+ prefixes of the script as oracles" "the prefixes' oracles"
expect_out "w.img: exit 0, [0-9]+ allocations, every [0-9]+-th failed \([0-9]+ runs\)" "summary"
cmp -s w.img orig.img || fail "the helper changed its input"
