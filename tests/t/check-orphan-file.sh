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

# Repairs, each as e2fsck makes it: check -y -f leaves an image both tools find clean.
# The flags: orphan_present on a clean file, or without the orphan_file feature, is cleared.
repaired_by "feature orphan_present"
repaired_by "feature -orphan_file;feature orphan_present"
# An orphan file inode left without the feature is cleared and no longer named.
repaired_by "feature -orphan_file"
run dumpe2fs -h t.img
expect_no_out "Orphan file inode" "the superblock no longer names the cleared orphan file"
# An orphan file that is not a regular file, has a hole, or whose inode number is out
# of range is made again (e2fsck -n does not see the hole; with the number out of
# range it stops, exit 12).
repaired_by "sif <$oi> mode 020600"
repaired_by "punch <$oi> 3 3" 0
repaired_by "ssv orphan_file_inum $((n + 7))" 12
run debugfs -R "stat <$(dumpe2fs -h t.img 2>/dev/null | sed -n 's/^Orphan file inode: *//p')>" t.img
expect_out "Type: regular" "the new orphan file is a regular file"
# A block with a bad checksum is written again empty, with a valid tail.
cp c.img t.img
repaired_image t.img "a bad orphan block checksum"
# Without metadata_csum the slots are read: an unlinked inode listed, and a number out of range.
mkimg nc.img 16M -O orphan_file,^metadata_csum
populate nc.img
noi=$(dumpe2fs -h nc.img 2>/dev/null | sed -n 's/^Orphan file inode: *//p')
nob=$(debugfs -R "bmap <$noi> 0" nc.img 2>/dev/null)
nbs=$(dumpe2fs -h nc.img 2>/dev/null | sed -n 's/^Block size: *//p')
ni2=$(debugfs -R "stat f2" nc.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
printf '%s\n' "unlink f2" "sif <$ni2> links_count 0" | debugfs -w -f - nc.img >/dev/null 2>&1
python3 -c '
import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2])); f.write(struct.pack("<II", int(sys.argv[3]), 99999))' \
	nc.img $((nob * nbs + 8)) "$ni2"
run "$E4R" check -n -f nc.img
expect_out "orphan file \(inode $noi\) block 0 \(block $nob\) is not clean: it lists inode $ni2" \
	"check names the listed inode"
expect_out "lists inode 99999, which is out of range" "check names the number out of range"
repaired_image nc.img "orphan file slots in use"
# The classic orphan list: a loop, and a link out of range, are given up as e2fsck does.
repaired_by "ssv last_orphan $i1;sif <$i1> dtime $i2;sif <$i2> dtime $i1"
printf '%s\n' "$YOUT" | grep -q "orphan list: inode $i2 links back to inode $i1" ||
	fail "check -y -f did not name the loop"
repaired_by "ssv last_orphan $i1;sif <$i1> links_count 0;sif <$i1> dtime $((n + 7))"
printf '%s\n' "$YOUT" | grep -q "orphan list: inode $i1 links to inode $((n + 7)), which is out of range" ||
	fail "check -y -f did not name the link out of range"
run dumpe2fs -h t.img
expect_no_out "First orphan inode" "the orphan list is empty after check -y -f"

# What the kernel leaves: a file open while unlinked, then the filesystem shut down.
[ -x "$E4R_SHUTDOWN" ] || fail "no $E4R_SHUTDOWN: build it with make check"
mkimg k.img 64M -O orphan_file
mkdir mnt
mount -o loop k.img mnt 2>/dev/null || skip "loop mount refused: the kernel's orphan file is not tested"
(
	cd mnt && seq 1 100000 > f1 && sync -f . && exec 3<f1 && rm f1 && sync -f . && "$E4R_SHUTDOWN" "$PWD"
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
# check -y -f: the block is written empty, the unlinked inode is released by pass 1.
repaired_image k.img "the kernel's orphan file"
run debugfs -R "stat <$orphan>" k.img
expect_out "Links: 0" "the orphan stays unlinked"
exit 0
