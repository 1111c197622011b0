# The orphan file (feature orphan_file): a fresh one is clean for both tools; damage
# to its superblock flags, its inode and a block tail is named like e2fsck -fn sees it;
# an inode the kernel left listed (open, unlinked, then shut down) is named with the
# orphan file's inode and block. The classic orphan list: a loop and a link out of
# range are named, as warnings (e2fsck -n does not walk the list).
. "$E4R_TESTS_SRCDIR/check_lib.sh"

mkimg base.img 16M -O orphan_file
populate base.img
run e2fsck -fn base.img
expect_rc 0 "oracle: e2fsck -fn on a fresh orphan file"
run "$E4R" check -n -f base.img
expect_rc 0 "check -n -f on a fresh orphan file (its inode is hidden, not unattached)"
oi=$(dumpe2fs -h base.img 2>/dev/null | sed -n 's/^Orphan file inode: *//p')
[ -n "$oi" ] || skip "mke2fs made no orphan file"

damage "feature orphan_present" "Feature orphan_present is set but orphan file is clean" \
	"the orphan_present feature is set but the orphan file \(inode $oi\) is clean"
damage "feature -orphan_file" "Orphan file inode $oi is not in use, but contains data" \
	"orphan file inode $oi is not in use \(no orphan_file feature\), but contains data"
damage "feature -orphan_file;feature orphan_present" \
	"Feature orphan_present is set but feature orphan_file is not" \
	"the orphan_present feature is set but the orphan_file feature is not"
damage "sif <$oi> mode 020600" "Orphan file inode $oi is not regular file" \
	"the orphan file inode $oi is not a regular file"

# One bit of the first block's tail (its checksum's last byte).
bs=$(dumpe2fs -h base.img 2>/dev/null | sed -n 's/^Block size: *//p')
ob=$(debugfs -R "bmap <$oi> 0" base.img 2>/dev/null)
cp base.img c.img
flip c.img $((ob * bs + bs - 1)) 2
run e2fsck -fn c.img
expect_rc 4 "oracle: e2fsck -fn on a bad orphan block checksum"
expect_out "Orphan file \(inode $oi\) block 0 is not clean" "oracle names the block"
run "$E4R" check -n -f c.img
expect_rc 4 "check -n -f on a bad orphan block checksum"
expect_out "orphan file \(inode $oi\) block 0 \(block $ob\) has a bad magic number or checksum" \
	"check names the orphan file, its block and why"

# The classic orphan list: a loop between two files, and a link past the last inode.
i1=$(debugfs -R "stat f1" base.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
i2=$(debugfs -R "stat f2" base.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
damage "ssv last_orphan $i1;sif <$i1> dtime $i2;sif <$i2> dtime $i1" \
	"Inode $i1 was part of the orphaned inode list" \
	"orphan list: inode $i2 links back to inode $i1, a loop"
n=$(dumpe2fs -h base.img 2>/dev/null | sed -n 's/^Inode count: *//p')
damage "ssv last_orphan $i1;sif <$i1> links_count 0;sif <$i1> dtime $((n + 7))" \
	"Entry 'f1' in / \(2\) has deleted/unused inode $i1" \
	"orphan list: inode $i1 links to inode $((n + 7)), which is out of range"
# A list head out of range alone: e2fsck -n passes it, check warns.
damage "ssv last_orphan 5" "" "orphan list head inode 5 is out of range" 0

# What the kernel leaves: a file open while unlinked, then the filesystem shut down.
cc -o shutdown "$E4R_TOOLS/shutdown.c" 2>/dev/null || skip "no compiler for the shutdown helper"
mkimg k.img 64M -O orphan_file
mkdir mnt
mount -o loop k.img mnt 2>/dev/null || skip "loop mount refused: the kernel's orphan file is not tested"
(
	cd mnt && seq 1 100000 > f1 && sync -f . && exec 3<f1 && rm f1 && sync -f . && ../shutdown "$PWD"
) || { umount mnt; skip "shutdown ioctl refused"; }
umount mnt || fail "umount"
dumpe2fs -h k.img 2>/dev/null | grep -q "orphan_present" || skip "the kernel did not use the orphan file"
koi=$(dumpe2fs -h k.img 2>/dev/null | sed -n 's/^Orphan file inode: *//p')
run e2fsck -fn k.img
expect_rc 4 "oracle: e2fsck -fn on the kernel's orphan file"
expect_out "Orphan file \(inode $koi\) block [0-9]+ is not clean" "oracle names the orphan file's block"
kb=$(printf '%s\n' "$OUT" | sed -n 's/^Orphan file (inode [0-9]*) block \([0-9]*\) is not clean.*/\1/p')
orphan=$(printf '%s\n' "$OUT" | sed -n 's/^Deleted inode \([0-9]*\) has zero dtime.*/\1/p')
[ -n "$orphan" ] || fail "oracle does not name the orphan inode"
run "$E4R" check -n -f k.img
expect_rc 4 "check -n -f on the kernel's orphan file"
expect_out "orphan file \(inode $koi\) block $kb \(block [0-9]+\) is not clean: it lists inode $orphan" \
	"check names the orphan file's block and the inode it lists"
exit 0
