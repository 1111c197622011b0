# check replays the journal first, as e2fsck does (not with -n), with --policy and --undo:
# the image is then e2fsck's (-E journal_only), a corrupt transaction is reported as e2fsck
# reports it, -n writes nothing, and e2undo restores the input from check's undo file.
. "$E4R_TESTS_SRCDIR/lib.sh"

head -c 16384 /dev/urandom > d
mkimg base.img 16M -O metadata_csum
jwrite base.img "jo -c" "jw -b 5000,5001 $PWD/d" "jw -b 5002 -r 5000 $PWD/d" "jc"
cp base.img commit.img; flip commit.img $(( $(jblock_offset commit.img 4) + 700 )) 1

for img in base commit; do
	cp $img.img ref-$img.img
	e2fsck -E journal_only -y ref-$img.img > ref-$img.out 2>&1

	cp $img.img n.img
	run "$E4R" check -n n.img
	expect_out "skipping journal recovery" "$img: -n does not replay"
	cmp -s n.img $img.img || fail "$img: check -n wrote to the image"

	cp $img.img y.img
	run "$E4R" check -y --policy=stop y.img
	expect_out "y.img: recovering journal" "$img: -y replays the journal"
	run python3 "$E4R_TOOLS/imgdiff.py" ref-$img.img y.img
	expect_rc 0 "$img: after check -y the image is e2fsck's replay"
done
grep -q "transaction 1 was corrupt" ref-commit.out || fail "e2fsck does not see the corrupt commit"
cp commit.img y.img
run "$E4R" check -y --policy=stop y.img
expect_out "Journal transaction 1 was corrupt, replay was aborted" "the corrupt transaction is named as e2fsck names it"
dumpe2fs -h y.img 2>/dev/null | grep -q "^Filesystem state:.*with errors" || fail "the error flag is not set"

cp base.img u.img
run "$E4R" check -y --undo=check.undo u.img
[ -s check.undo ] || fail "no undo file written"
e2undo check.undo u.img >/dev/null 2>&1 || fail "e2undo refused check's undo file"
cmp -s u.img base.img || fail "e2undo did not restore the input"

run "$E4R" check -y --policy=bogus base.img
expect_rc 16 "an unknown policy is a usage error"
exit 0
