# check replays the journal first, as e2fsck does (not with -n), with --policy and --undo:
# the replay is e2fsck's (-E journal_only, compared with check -p, which has nothing to
# repair after a clean replay), a corrupt transaction is reported as e2fsck reports it and
# its consequences repaired by -y, -n writes nothing, and e2undo restores the input from
# check's undo file (replay and repairs in one file).
. "$E4R_TESTS_SRCDIR/lib.sh"

seeded_bytes d 16384 > d
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
	run e2fsck -fn y.img
	expect_rc 0 "$img: oracle: e2fsck -fn after check -y"
done
# A replay without failures leaves a clean filesystem: -p (not forced) changes nothing more.
cp base.img y.img
run "$E4R" check -p --policy=stop y.img
run python3 "$E4R_TESTS_TOOLS/imgdiff.py" ref-base.img y.img
expect_rc 0 "after check -p the image is e2fsck's replay"
grep -q "transaction 1 was corrupt" ref-commit.out || fail "e2fsck does not see the corrupt commit"
cp commit.img y.img
run "$E4R" check -y --policy=stop y.img
expect_out "Journal transaction 1 was corrupt, replay was aborted" "the corrupt transaction is named as e2fsck names it"
# e2fsck -y, after the forced full check finds nothing else, marks the filesystem valid again.
dumpe2fs -h y.img 2>/dev/null | grep -q "^Filesystem state: *clean$" || fail "the filesystem is not marked clean"

cp base.img u.img
run "$E4R" check -y --undo=check.undo u.img
[ -s check.undo ] || fail "no undo file written"
e2undo check.undo u.img >/dev/null 2>&1 || fail "e2undo refused check's undo file"
cmp -s u.img base.img || fail "e2undo did not restore the input"
# Replay and repairs in one run, one undo file.
cp base.img u.img
printf '%s\n' "set_bg 0 free_blocks_count 17" "set_bg 0 checksum calc" |
	debugfs -w -f - u.img >/dev/null 2>&1 || fail "debugfs damage"
cp u.img damaged.img
rm -f check.undo
run "$E4R" check -y -f --undo=check.undo u.img
expect_rc 1 "check -y -f replays and repairs"
run e2fsck -fn u.img
expect_rc 0 "oracle: e2fsck -fn after replay and repairs"
e2undo check.undo u.img >/dev/null 2>&1 || fail "e2undo refused the undo file of replay and repairs"
cmp -s u.img damaged.img || fail "e2undo did not restore the input of replay and repairs"

run "$E4R" check -y --policy=bogus base.img
expect_rc 16 "an unknown policy is a usage error"
exit 0
