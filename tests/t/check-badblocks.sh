# The bad blocks list (inode 1) naming a superblock or a descriptor block, against
# e2fsck: the primary copies are damage (e2fsck -fn exit 4; -y takes the block off the
# list), a backup copy only a warning (exit 0, the list kept); and the list's indirect
# block on metadata or on a listed block. Our repair must leave the list as e2fsck -fy
# leaves it.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

base_image -b 1024
sb1=$(dumpe2fs base.img 2>/dev/null | sed -n 's/.*Backup superblock at \([0-9]*\), Group descriptors at \([0-9]*\)-.*/\1/p' | head -1)
gd1=$(dumpe2fs base.img 2>/dev/null | sed -n 's/.*Backup superblock at \([0-9]*\), Group descriptors at \([0-9]*\)-.*/\2/p' | head -1)
[ -n "$sb1" ] && [ -n "$gd1" ] || fail "no backup superblock in the base image"

# list "BLOCK..." : the debugfs commands that make inode 1 list these blocks (one
# map entry each; the blocks are metadata, so the bitmaps stay right).
list() {
	local n=0 b cmds=
	for b in "$@"; do cmds="${cmds}sif <1> block[$n] $b;"; n=$((n + 1)); done
	echo "${cmds}sif <1> size $((n * 1024));sif <1> blocks $((n * 2))"
}

# the blocks inode 1 lists, one line
listed() { debugfs -R "blocks <1>" "$1" 2>/dev/null | tr -s ' \n' ' ' | sed 's/ $//'; }

damage "$(list 1)" "The primary superblock \(1\) is on the bad block list" \
	"the primary superblock \(block 1\) is in the bad blocks list"
damage "$(list 2)" "Block 2 in the primary group descriptors is on the bad block list" \
	"block 2 of the primary group descriptors is in the bad blocks list"
damage "$(list "$sb1")" "Group 1's superblock \($sb1\) is bad" \
	"the backup superblock of group 1 \(block $sb1\) is in the bad blocks list" 0
damage "$(list "$gd1")" "Group 1's copy of the group descriptors has a bad block \($gd1\)" \
	"block $gd1 of group 1's backup group descriptors is in the bad blocks list" 0

# The inode table block holding /lost+found (inode 11) listed bad: its entry names an inode
# no one can read (e2fsck: "located in a bad block"); -y clears the entry, keeps the
# inodes of that block in use and makes a new /lost+found, as e2fsck -fy does.
itab0=$(dumpe2fs base.img 2>/dev/null | sed -n 's/.*Inode table at \([0-9]*\)-.*/\1/p' | head -1)
isize=$(dumpe2fs -h base.img 2>/dev/null | sed -n 's/^Inode size: *//p')
lpfblk=$((itab0 + 10 * isize / 1024))
damage "$(list "$lpfblk")" "Entry 'lost\+found' in / \(2\) points to inode \(11\) located in a bad block" \
	"entry 'lost\+found' in directory inode 2 points to inode 11, in an inode table block of the bad blocks list"
expect_no_out "lost\+found \(inode 11\) is not a directory" "pass 3 leaves the unread /lost+found to pass 2"
repaired_by "$(list "$lpfblk")"
run debugfs -R "ls /" t.img
expect_out "lost\+found" "a new /lost+found after check -y"
run debugfs -R "testi <11>" t.img
expect_out "marked in use" "inode 11, in a bad block, stays in use"

# Repairs: the primary blocks come off the list, every one in one repair; the backups stay.
for blocks in "1" "2" "1 2" "1 $sb1 2 $gd1"; do
	cp base.img t.img
	list $blocks | tr ';' '\n' | debugfs -w -f - t.img >/dev/null 2>&1 || fail "debugfs list $blocks"
	cp t.img e2.img
	e2fsck -fy e2.img >/dev/null 2>&1
	[ $? -le 1 ] || fail "oracle: e2fsck -fy with $blocks listed"
	repaired_image t.img "a bad blocks list of $blocks"
	[ "$(listed t.img)" = "$(listed e2.img)" ] ||
		fail "list of $blocks after check -y: '$(listed t.img)', after e2fsck -fy: '$(listed e2.img)'"
done
# The list's indirect block on a block it lists before, or on metadata (an inode table
# block, zeros here): e2fsck -fn stops at its question whether to go on (exit 12), check
# reports it (exit 4); e2fsck -fy and check -y drop the indirect block from the map.
seq 5000 5011 > bad.txt
mkimg bb.img 16M -b 1024 -l bad.txt
itab=$(dumpe2fs bb.img 2>/dev/null | sed -n 's/.*Inode table at [0-9]*-\([0-9]*\).*/\1/p' | tail -1)
[ -n "$itab" ] || fail "no inode table in bb.img"
for ind in "5005:Bad block 5005 used as bad block inode indirect block:uses block 5005, itself listed as bad" \
	"$itab:has an indirect block \($itab\) that conflicts with:has an indirect block $itab that is filesystem metadata"; do
	blk=${ind%%:*}; rest=${ind#*:}; e2re=${rest%%:*}; ourre=${rest#*:}
	cp bb.img t.img
	debugfs -w -R "sif <1> block[IND] $blk" t.img >/dev/null 2>&1 || fail "debugfs block[IND] $blk"
	judged_and_repaired t.img "the indirect block at $blk" "$e2re" "the bad blocks inode 1 $ourre"
	[ "$(listed t.img)" = "$(listed e2.img)" ] ||
		fail "list after check -y: '$(listed t.img)', after e2fsck -fy: '$(listed e2.img)'"
done
# Backups alone: nothing to repair; the list is kept.
cp base.img t.img
list "$sb1" "$gd1" | tr ';' '\n' | debugfs -w -f - t.img >/dev/null 2>&1 || fail "debugfs list backups"
run "$E4R" check -y -f t.img
expect_rc 0 "check -y -f with only backup copies listed"
[ "$(listed t.img)" = "$sb1 $gd1" ] || fail "backup copies taken off the list: '$(listed t.img)'"
exit 0
