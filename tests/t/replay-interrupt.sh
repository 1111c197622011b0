# A replay cut short after any number of block writes (a simulated power cut), then run again,
# ends in the same image as one uninterrupted replay; that image is e2fsck's (conform.py).
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

for c in "base stop" "commit stop" "data stop" "data skip-block" "commit all" "commit skip-transaction"; do
	set -- $c
	run "$cuts" "$1.img" "$2"
	expect_rc 0 "$1 with policy $2: every cut, rerun, equals one uninterrupted replay"
	expect_out "every cut tried" "$1 $2: the cuts were made"
done
# The uninterrupted replays themselves are e2fsck's.
run python3 "$E4R_TOOLS/conform.py" --bin "$E4R" replay base.img commit.img data.img
expect_rc 0 "stop on these images is e2fsck's"
exit 0
