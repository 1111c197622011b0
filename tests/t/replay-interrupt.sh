# A replay cut short after any number of block writes (a simulated power cut), then run again,
# ends in the same image as one uninterrupted replay; that image is e2fsck's (tools/replay_vs_e2fsck.py).
# Images: the journal logs the superblock itself; a corrupt commit (error flag); a bad block
# checksum (not clean). The cutting is done by tests/unit/replay_cuts through tests/unit/fault_io.
. "$E4R_TESTS_SRCDIR/lib.sh"

cuts=$E4R_TOP_BUILDDIR/tests/unit/replay_cuts
[ -x "$cuts" ] || fail "no $cuts: build with make check"

seeded_bytes data 16384 > data
mkimg base.img 8M -O metadata_csum
dd if=base.img of=sb bs=1024 skip=1 count=1 2>/dev/null
cat sb data > t1
# T1: the superblock (as it is) and fs blocks 100, 101; T2: fs block 300, revoking 101.
jwrite base.img "jo -c" "jw -b 1,100,101 $PWD/t1" "jw -b 300 -r 101 $PWD/data" "jc"
cp base.img commit.img; flip commit.img $(( $(jblock_offset commit.img 5) + 700 )) 2
cp base.img data.img;   flip data.img   $(( $(jblock_offset data.img 3) + 10 )) 2

# One clock for every run (libext2fs takes it from E2FSPROGS_FAKE_TIME): the replay flushes the
# superblock twice, and the second flush rewrites s_wtime only if a second has passed since the
# first, so a run that straddles a second made one write more (1 run in ~30) and the cuts counted
# on the uninterrupted run no longer lined up.
for c in "base stop" "commit stop" "data stop" "data skip-block" "commit all" "commit skip-transaction"; do
	set -- $c
	run env E2FSPROGS_FAKE_TIME=1700000000 "$cuts" "$1.img" "$2"
	expect_rc 0 "$1 with policy $2: every cut, rerun, equals one uninterrupted replay"
	expect_out "every cut tried" "$1 $2: the cuts were made"
done
# The uninterrupted replays themselves are e2fsck's.
run python3 "$E4R_TESTS_TOOLS/replay_vs_e2fsck.py" "$E4R" base.img commit.img data.img
expect_rc 0 "stop on these images is e2fsck's"
exit 0
