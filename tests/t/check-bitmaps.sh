# check names bitmap and count damage (the kind the 2012 ext4 bug left behind)
# by block, inode and group, as e2fsck -fn does.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

base_image
blk=$(debugfs -R "bmap f1 0" base.img 2>/dev/null)
[ -n "$blk" ] && [ "$blk" -gt 0 ] || fail "no block for f1"
ino=$(debugfs -R "stat f1" base.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')

# A data block marked free in the bitmap.
damage "freeb $blk" "Block bitmap differences: +\\+$blk\$" "block bitmap differences: \+$blk "
# An in-use inode marked free.
damage "freei f1" "Inode bitmap differences: +\\+$ino\$" "inode bitmap differences: \+$ino "
# An unused inode marked in use (a leaked bit), past the group's used-inode watermark.
damage "seti <40>" "Inode bitmap differences: +-40\$" "inode bitmap differences: -40 "
expect_out "group 0 unused inodes count is [0-9]+, but inode 40 is in use" "the watermark is named"
# Wrong free counts in a group descriptor (checksum recomputed: only the count is wrong).
damage "set_bg 0 free_blocks_count 17;set_bg 0 checksum calc" \
	"Free blocks count wrong for group #0 \(17, counted=" "free blocks count wrong for group 0 \(17, counted="
damage "set_bg 0 free_inodes_count 3;set_bg 0 checksum calc" \
	"Free inodes count wrong for group #0 \(3, counted=" "free inodes count wrong for group 0 \(3, counted="
damage "set_bg 0 used_dirs_count 9;set_bg 0 checksum calc" \
	"Directories count wrong for group #0 \(9, counted=4\)" "directories count wrong for group 0 \(9, counted=4\)"
# A wrong total in the superblock alone: e2fsck -n leaves it (exit 0); so do we, but say it.
damage "ssv free_blocks_count 100" "Free blocks count wrong \(100, counted=" \
	"free blocks count wrong \(100, counted=" 0
# Inodes past the watermark that directories still name (the 2012 bug's worst damage).
damage "set_bg 0 itable_unused 2035;set_bg 0 checksum calc" \
	"Entry 'f2' in / \(2\) references inode 14 found in group 0's unused inodes area" \
	"entry 'f2' in directory inode 2 points to inode 14 in the unused area of group 0"
# A bitmap whose checksum does not match.
damage "set_bg 0 block_bitmap_csum 0x1234;set_bg 0 checksum calc" \
	"Group 0 block bitmap does not match checksum" "block bitmap of group 0 \(block [0-9]+\) does not match its checksum"
damage "set_bg 0 inode_bitmap_csum 0x1234;set_bg 0 checksum calc" \
	"Group 0 inode bitmap does not match checksum" "inode bitmap of group 0 \(block [0-9]+\) does not match its checksum"
# The last group's bitmap past the filesystem's last block (16384 blocks of 1 KiB from
# block 1: the last group's last bit is block 16384): those bits must be set.
# Found by the differential tester (libext2fs only notes bits past the group's end).
last=$(( $(dumpe2fs -h base.img 2>/dev/null | sed -n 's/^Block count: *//p') - 1 ))
lg=$(( $(dumpe2fs -h base.img 2>/dev/null | sed -n 's/^Blocks per group: *//p') ))
bbs=$(dumpe2fs -h base.img 2>/dev/null | sed -n 's/^Block size: *//p')
ng=$(dumpe2fs base.img 2>/dev/null | grep -c '^Group [0-9]')
first=$(dumpe2fs -h base.img 2>/dev/null | sed -n 's/^First block: *//p')
pad=$(( first + ng * lg - 1 ))	# the bitmap's last bit, as a block number
if [ "$pad" -gt "$last" ]; then
	bb=$(dumpe2fs base.img 2>/dev/null | awk -v g="Group $((ng - 1)):" \
		'index($0, g) == 1 { on = 1 } on && /Block bitmap at/ { sub(/.*Block bitmap at /, ""); print $1 + 0; exit }')
	bit=$(( pad - first - (ng - 1) * lg ))
	cp base.img t.img
	flip t.img $(( bb * bbs + bit / 8 )) $(( bit % 8 ))
	run e2fsck -fn t.img
	expect_rc 4 "oracle: e2fsck -fn on a padding bit cleared"
	expect_out "Padding at end of block bitmap is not set" "oracle names the padding"
	run "$E4R" check -n -f t.img
	expect_rc 4 "check -n -f on a padding bit cleared"
	expect_out "padding at end of a block bitmap block is not set" "check names the padding"
	repaired_image t.img "a block bitmap padding bit cleared"
else
	fail "the base image fills its last group: no padding to damage"
fi
exit 0
