# A block-mapped file on a bigalloc filesystem (e2fsck: PR_1_NO_BIGALLOC_BLOCKMAP_FILES;
# -fy rebuilds its map as extents). No difftest base can get one with one damage
# (clearing the extents flag leaves an extent header: extents_flag_unset), so the map
# is written here: the file's extent cleared and its blocks put in i_block. e2fsck -fn
# names it, check -n -f must too; after check -y -f e2fsck -fn finds nothing and the
# file reads as written, as after e2fsck -fy.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

mkimg base.img 32M -b 4096 -O bigalloc -C 65536
seeded_bytes f 49152 > f.data	# 12 blocks: a block map of direct blocks only
debugfs -w -R "write f.data f" base.img >/dev/null 2>&1 || fail "debugfs write"
ino=$(debugfs -R "stat f" base.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
first=$(debugfs -R "ex f" base.img 2>/dev/null | awk 'NR == 2 && $7 == 11 { print $8 }')
[ -n "$ino" ] && [ -n "$first" ] || fail "f is not one extent of 12 blocks"
cmds="sif f flags 0"
i=0
while [ $i -lt 15 ]; do
	b=0
	[ $i -lt 12 ] && b=$((first + i))
	cmds="$cmds
sif f block[$i] $b"
	i=$((i + 1))
done
printf '%s\n' "$cmds" | debugfs -w -f - base.img >/dev/null 2>&1 || fail "debugfs sif"
debugfs -R "stat f" base.img 2>/dev/null | grep -q "^(0-11):$first-$((first + 11))" ||
	fail "f's block map is not the 12 blocks at $first"

run e2fsck -fn base.img
expect_rc 4 "oracle: e2fsck -fn on the block-mapped file"
expect_out "Inode $ino on bigalloc filesystem cannot be block mapped" "oracle names the block map"
run "$E4R" check -n -f base.img
expect_rc 4 "check -n -f on the block-mapped file"
expect_out "inode $ino has a block map on a bigalloc filesystem" "check names the block map"

cp base.img e2fsck.img
e2fsck -fy e2fsck.img >/dev/null 2>&1
[ $? -lt 4 ] || fail "oracle: e2fsck -fy left errors"
run "$E4R" check -y -f base.img
expect_rc 1 "check -y -f repairs the block map"
run e2fsck -fn base.img
expect_rc 0 "oracle: e2fsck -fn clean after check -y -f"
for img in base.img e2fsck.img; do
	debugfs -R "stat f" "$img" 2>/dev/null | grep -q "Flags: 0x80000" || fail "f is no extent file after the repair of $img"
	debugfs -R "dump f $img.out" "$img" >/dev/null 2>&1
	cmp -s f.data "$img.out" || fail "f's data after the repair of $img differ from what was written"
done
exit 0
