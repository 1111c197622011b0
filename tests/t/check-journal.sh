# A journal that needs recovery: check -n does not replay it (replay is not the
# checker's job); like e2fsck -n it says so and checks the unreplayed filesystem.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

base_image
head -c 4096 /dev/zero | tr '\0' 'j' > data
cp base.img j.img
jwrite j.img "jo -c" "jw -b 10000,10001 $PWD/data" "jc"
dumpe2fs -h j.img 2>/dev/null | grep -q needs_recovery || fail "the image does not need recovery"
sum=$(sha j.img)

for f in -f ""; do
	run e2fsck -n $f j.img
	ref=$RC
	expect_out "skipping journal recovery because doing a read-only filesystem check" "oracle: e2fsck -n $f"
	run "$E4R" check -n $f j.img
	expect_rc "$ref" "check -n $f exits like e2fsck -n $f"
	expect_out "skipping journal recovery because doing a read-only filesystem check" "check -n $f says it"
done
[ "$(sha j.img)" = "$sum" ] || fail "check -n wrote to an image that needs recovery"

# An invalid journal superblock is an error even for a read-only check.
jsb=$(jblock_offset base.img 0)
cp base.img badj.img
flip badj.img "$jsb" 0
run e2fsck -fn badj.img
[ "$RC" -ne 0 ] || fail "oracle: e2fsck -fn accepts a journal superblock without magic"
expect_out "Superblock has an invalid journal \(inode 8\)" "oracle names the journal"
run "$E4R" check -n -f badj.img
expect_rc 4 "check -n -f with a broken journal superblock"
expect_out "the journal \(inode 8\) is invalid: journal superblock has no JBD2 magic" "check names the journal"
exit 0
