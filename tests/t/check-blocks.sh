# check names block-map damage by inode and block as e2fsck -fn does: a doubly
# claimed block, a broken extent header, a block outside the filesystem, i_blocks, i_size.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

base_image
blk=$(debugfs -R "bmap f1 0" base.img 2>/dev/null)
i1=$(debugfs -R "stat f1" base.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
i2=$(debugfs -R "stat f2" base.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
[ -n "$blk" ] && [ -n "$i1" ] && [ -n "$i2" ] || fail "could not read the base image"

# f2's first extent (i_block[3..5]: start in block[5]) pointed at f1's blocks.
damage "sif f2 block[5] $blk" "Multiply-claimed block\(s\) in inode $i2: $blk" \
	"inode $i2 claims block $blk, which another inode also claims"
expect_out "inode $i1 claims block $blk, which another inode also claims" "both owners are named"
# The extent header's magic destroyed.
damage "sif f1 block[0] 0" "Inode $i1 has corrupt extent header" "inode $i1 has a corrupt extent header"
# The whole root zeroed, or set to all ones: libext2fs opens a zeroed i_block as a
# new empty tree, so the header must be judged before the tree is opened. An empty
# file (whose root maps nothing) shows it alone; -y clears the inode, as e2fsck does.
zero=; ones=
for w in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14; do
	zero="$zero;sif empty block[$w] 0"; ones="$ones;sif empty block[$w] 0xffffffff"
done
damage "write /dev/null empty$zero" "Inode [0-9]+ has corrupt extent header" "inode [0-9]+ has a corrupt extent header"
damage "write /dev/null empty$ones" "Inode [0-9]+ has corrupt extent header" "inode [0-9]+ has a corrupt extent header"
repaired_by "write /dev/null empty$zero"
damage "$(printf '%s' "$zero" | sed 's/empty/f1/g; s/^;//')" "Inode $i1 has corrupt extent header" \
	"inode $i1 has a corrupt extent header"
# An extent starting past the end of the filesystem.
damage "sif f1 block[5] 99999999" "Inode $i1 has an invalid extent" "inode $i1 has an invalid extent: .*physical block 99999999"
# i_blocks and i_size that disagree with the map.
want=$(debugfs -R "stat f1" base.img 2>/dev/null | sed -n 's/.*Blockcount: \([0-9]*\).*/\1/p')
damage "sif f1 blocks 2" "Inode $i1, i_blocks is 2, should be $want" "inode $i1 i_blocks is 2, should be $want"
damage "sif f1 size 10" "Inode $i1, i_size is 10, should be [0-9]+" "inode $i1 i_size is 10, should be [0-9]+"
# A file claiming a block of the inode table (filesystem metadata).
itab=$(dumpe2fs base.img 2>/dev/null | sed -n 's/.*Inode table at \([0-9]*\)-.*/\1/p' | head -1)
damage "sif f2 block[5] $itab" "Multiply-claimed block\(s\) in inode $i2: $itab" "inode $i2 claims [0-9]+ block\(s\) of filesystem metadata, the first block $itab"
# An index entry whose start is not its child's first (the root of a one-level tree:
# f1 punched into eight extents). i_block[3] is the root's first index entry's start.
{ for b in 1 3 5 7 9 11 13; do echo "punch f1 $b $b"; done; } | debugfs -w -f - base.img >/dev/null 2>&1 ||
	fail "debugfs punch"
run debugfs -R "ex f1" base.img
expect_out "^ *1/ *1 " "f1 has an extent tree one level deep"
damage "sif f1 block[3] 5" "Logical start 5 does not match logical start 0 at next level" \
	"inode $i1: an index entry starts at logical block 5, its extent node [0-9]+ at 0"
repaired_by "sif f1 block[3] 5"
# A directory's i_size_high without largedir: cleared, as e2fsck does.
repaired_by "sif dir size_hi 1"
printf '%s\n' "$YOUT" | grep -q "i_size_high is 1, should be zero" || fail "check -y -f did not name i_size_high"
exit 0
