# An inode table block most of whose inodes are damaged is garbage, as e2fsck judges it
# (libext2fs's scan, asked to warn of garbage: more than half of the block's inodes fail
# their checksums or cannot be what they claim). e2fsck -fy clears every inode of it in
# use, the sound one too, and the files come back as e2fsck brings them back. Here: the
# same verdict and inode named, a repair e2fsck -fn finds clean, the same files in use as
# after e2fsck -fy, and two bad inodes of four (not garbage) only checksum findings.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

base_image -b 1024 -I 256
ino=$(inode_of base.img sl)
[ -n "$ino" ] || fail "could not read the base image"
itable=$(dumpe2fs base.img 2>/dev/null | sed -n 's/^ *Inode table at \([0-9]*\)-.*/\1/p' | head -n 1)
[ -n "$itable" ] || fail "no inode table in dumpe2fs"
# the block holding the symlink's inode, and the three inodes before it in that block
first=$(( (ino - 1) / 4 * 4 + 1 ))
[ $((ino - first)) = 3 ] || skip "the symlink is not the last inode of its block (inode $ino)"
at=$(( itable * 1024 + (first - 1) * 256 ))

cp base.img t.img
seeded_bytes garbage 768 | dd of=t.img bs=1 seek="$at" conv=notrunc 2>/dev/null || fail "dd"
judged_and_repaired t.img "a garbage inode table block" \
	"Inode $ino seems to contain garbage" "inode $ino seems to contain garbage"
ours=$(e2fsck -fn t.img 2>&1 | sed -n 's/.*: \([0-9]*\)\/[0-9]* files.*/\1/p')
theirs=$(e2fsck -fn e2.img 2>&1 | sed -n 's/.*: \([0-9]*\)\/[0-9]* files.*/\1/p')
note "inodes in use after check -y: $ours; after e2fsck -fy: $theirs"
[ -n "$ours" ] && [ "$ours" = "$theirs" ] || fail "check -y keeps $ours inodes in use, e2fsck -fy $theirs"
run debugfs -R "stat sl" t.img
expect_no_out "Type: symlink" "the sound inode of a garbage block is cleared, as e2fsck clears it"

# Two of the four: not garbage for either tool, two inode checksums each
cp base.img t2.img
seeded_bytes halfway 512 | dd of=t2.img bs=1 seek="$at" conv=notrunc 2>/dev/null || fail "dd"
run e2fsck -fn t2.img
expect_no_out "seems to contain garbage" "oracle: two bad inodes of four are not garbage"
run "$E4R" check -n -f t2.img
expect_rc 4 "check -n -f with two bad inodes of four"
expect_no_out "seems to contain garbage" "check: two bad inodes of four are not garbage"
expect_out "inode $first passes checks, but its checksum does not match" "check names the first"
exit 0
