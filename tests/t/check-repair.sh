# check -y repairs what the checker finds: after it, e2fsck -fn (the oracle)
# and our own check -n -f find the image clean. Each case damages a copy of
# a populated image with debugfs -w; e2fsck -fn must see the damage first.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

base_image
blk=$(debugfs -R "bmap f1 0" base.img 2>/dev/null)
[ -n "$blk" ] && [ "$blk" -gt 0 ] || fail "no block for f1"

# repaired "DEBUGFS COMMANDS" [ORACLE-RC]: damage a copy, repair it, judge it.
repaired() {
	local want=${2:-4}
	cp base.img t.img
	printf '%s\n' "$1" | tr ';' '\n' | debugfs -w -f - t.img >/dev/null 2>&1 || fail "debugfs $1"
	run e2fsck -fn t.img
	expect_rc "$want" "oracle: e2fsck -fn sees the damage of '$1'"
	run "$E4R" check -y -f t.img
	expect_rc 1 "check -y -f repairs '$1'"
	expect_out "FILE SYSTEM WAS MODIFIED" "check -y -f says it wrote after '$1'"
	YOUT=$OUT
	run e2fsck -fn t.img
	expect_rc 0 "oracle: e2fsck -fn after check -y -f on '$1'"
	run "$E4R" check -n -f t.img
	expect_rc 0 "check -n -f after check -y -f on '$1'"
}

# Bitmaps and counts (the 2012 journal bug's damage).
repaired "freeb $blk"
repaired "freei f1"
repaired "seti <40>"
repaired "set_bg 0 free_blocks_count 17;set_bg 0 checksum calc"
repaired "set_bg 0 free_inodes_count 3;set_bg 0 checksum calc"
repaired "set_bg 0 used_dirs_count 9;set_bg 0 checksum calc"
repaired "set_bg 0 itable_unused 2035;set_bg 0 checksum calc"
# Checksums: a bitmap's, a descriptor's, an inode's.
repaired "set_bg 0 block_bitmap_csum 0x1234;set_bg 0 checksum calc"
repaired "set_bg 0 inode_bitmap_csum 0x1234;set_bg 0 checksum calc"
# (e2fsck -n ignores a wrong descriptor checksum: exit 0, but it says so)
repaired "set_bg 0 checksum 0x1234" 0
run e2fsck -fn t.img
expect_no_out "checksum is 0x1234" "oracle: the descriptor checksum is right after check -y -f"
repaired "sif f1 checksum 0x1234"
# A directory block whose checksum tail is wrong (the last 4 bytes of the block).
dblk=$(debugfs -R "bmap dir 0" base.img 2>/dev/null)
bs=$(dumpe2fs -h base.img 2>/dev/null | sed -n 's/^Block size: *//p')
cp base.img t.img
printf '\022\064\126\170' | dd of=t.img bs=1 seek=$((dblk * bs + bs - 4)) conv=notrunc 2>/dev/null
run e2fsck -fn t.img
expect_rc 4 "oracle: e2fsck -fn sees the directory checksum"
run "$E4R" check -y -f t.img
expect_rc 1 "check -y -f repairs the directory checksum"
run e2fsck -fn t.img
expect_rc 0 "oracle: e2fsck -fn after the directory checksum repair"
# An orphan list left by a crash: a deleted inode still on it is released, as routine (not
# a repair: e2fsck -fy's exit code does not count it, though it says the fs was modified).
ino2=$(debugfs -R "stat f2" base.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
cp base.img t.img
printf '%s\n' "unlink f2" "sif <$ino2> links_count 0" "ssv last_orphan $ino2" | debugfs -w -f - t.img >/dev/null 2>&1
cp t.img ref.img
run e2fsck -fy ref.img
ref=$RC
expect_out "Clearing orphaned inode $ino2" "oracle: e2fsck -fy releases the orphan"
run "$E4R" check -y -f t.img
expect_rc "$ref" "check -y -f on an orphan list exits as e2fsck -fy"
expect_out "Clearing orphaned inode $ino2" "check -y -f releases the orphan"
expect_no_out "orphan.*(out of range|loop)|zero deletion time" "the orphan is not reported as corruption"
expect_out "FILE SYSTEM WAS MODIFIED" "check -y -f says it wrote"
run e2fsck -fn t.img
expect_rc 0 "oracle: e2fsck -fn after check -y -f on the orphan list"
run dumpe2fs -h t.img
expect_no_out "orphan" "the orphan list is empty after check -y -f"
# Inode-level damage: a link count, a dangling entry, an unattached file.
repaired "sif f1 links_count 5"
repaired "ln <40> dangling"
repaired "unlink f2"
# Flags and sizes pass 1 rejects: imagic without the feature, an immutable fifo with a size.
repaired "sif f1 flags 0x82000"
repaired "mknod pipe p;sif pipe flags 0x10;sif pipe size 100"
# A bad blocks inode that looks like a file: zeroed, then everything checked again.
repaired "sif <1> mode 0100644;sif <1> links_count 1"
# A hole in a directory is filled with an empty block; a root that is not a directory is remade.
repaired "expand_dir dir;expand_dir dir;punch dir 1 1"
repaired "sif <2> mode 0100644" 12	# e2fsck -n aborts on it (exit 12)
run debugfs -R "ls -l /lost+found" t.img
expect_out "#[0-9]+" "the old root's entries are in lost+found"
# An unconnected directory, reconnected into lost+found.
repaired "unlink dir/sub"
OUT=$YOUT expect_out "directory inode [0-9]+ is not connected" "the unconnected directory is named"
run debugfs -R "ls -l /lost+found" t.img
expect_out "#[0-9]+" "the directory is in lost+found"
# An unattached file without lost+found: it is made.
repaired "rmdir lost+found;unlink f2"
run debugfs -R "ls -l /lost+found" t.img
expect_out "#[0-9]+" "lost+found was made and holds the file"
# with the mode e2fsck gives the lost+found it makes (the oracle: e2fsck -fy on the same damage)
ours_mode=$(debugfs -R "stat /lost+found" t.img 2>/dev/null | sed -n 's/.*Mode: *\([0-7]*\).*/\1/p')
cp base.img ref.img
printf '%s\n' "rmdir lost+found" "unlink f2" | debugfs -w -f - ref.img >/dev/null 2>&1
e2fsck -fy ref.img >/dev/null 2>&1
their_mode=$(debugfs -R "stat /lost+found" ref.img 2>/dev/null | sed -n 's/.*Mode: *\([0-7]*\).*/\1/p')
[ -n "$their_mode" ] && [ "$ours_mode" = "$their_mode" ] ||
	fail "lost+found made with mode '$ours_mode', e2fsck makes '$their_mode'"
# Unattached special files and an empty file: e2fsck clears only the empty regular file
# (and empty directories) and reconnects the rest to lost+found; so must we.
cp base.img sp-base.img
printf '%s\n' "mknod fifo p" "mknod chr c 4 1" "mknod blk b 7 0" "write /dev/null empty" |
	debugfs -w -f - sp-base.img >/dev/null 2>&1 || fail "debugfs mknod"
for name in fifo chr blk empty; do
	ino=$(debugfs -R "stat $name" sp-base.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
	[ -n "$ino" ] || fail "no inode for $name"
	eval "ino_$name=$ino"
done
printf '%s\n' "unlink fifo" "unlink chr" "unlink blk" "unlink empty" |
	debugfs -w -f - sp-base.img >/dev/null 2>&1 || fail "debugfs unlink"
cp sp-base.img sp-e2fsck.img
e2fsck -fy sp-e2fsck.img >/dev/null 2>&1
repaired_image sp-base.img "unattached special files"
for name in fifo chr blk empty; do
	eval "ino=\$ino_$name"
	want=$(debugfs -R "ls -l /lost+found" sp-e2fsck.img 2>/dev/null | grep -c "^ *$ino ")
	got=$(debugfs -R "ls -l /lost+found" sp-base.img 2>/dev/null | grep -c "^ *$ino ")
	[ "$got" = "$want" ] || fail "$name (inode $ino): in lost+found $got times after check -y, $want after e2fsck -fy"
done
[ "$(debugfs -R "ls -l /lost+found" sp-e2fsck.img 2>/dev/null | grep -c "^ *$ino_fifo ")" = 1 ] ||
	fail "oracle: e2fsck -fy keeps the FIFO in lost+found"
# A broken extent (its start outside the filesystem) is trimmed.
repaired "sif f1 block[5] 9999999"
# A root claiming 32767 levels (the kernel stops at 5): its depth is found again,
# both tools naming the same claimed depth and the same limit.
repaired "sif f1 block[1] 0x7fff0004"
OUT=$YOUT expect_out "extent tree claims 32767 levels; no tree of this block size needs more than [0-9]+" "the depth is named"
deep_limit=$(printf '%s\n' "$YOUT" | sed -n 's/.*needs more than \([0-9]*\).*/\1/p' | head -n 1)
cp base.img base-deep.img
debugfs -w -R "sif f1 block[1] 0x7fff0004" base-deep.img >/dev/null 2>&1
run e2fsck -fn base-deep.img
expect_out "could be more shallow \(32767; could be <= $deep_limit\)" "e2fsck names the same limit"
# A file whose extent tree has a leaf block that is not one (zeroed): e2fsck cuts that
# subtree and keeps the file with the rest of its blocks; so must we (same size, the
# same blocks listed afterwards as e2fsck leaves).
mkimg frag.img 16M -b 1024
seeded_bytes frag 1024 > chunk
# A block at every other offset: an extent each, more than the inode's four.
python3 -c '
import os, sys
fd = os.open("fragsrc", os.O_WRONLY | os.O_CREAT, 0o644)
block = open("chunk", "rb").read()
for i in range(0, 200, 2):
    os.pwrite(fd, block, i * 1024)
os.close(fd)' || fail "sparse source"
debugfs -w -R "write fragsrc frag" frag.img >/dev/null 2>&1 || fail "debugfs write frag"
# The root's first index entry ("0/ 1 1/ N lblk - lblk PHYS LEN") names a leaf block.
leaf=$(debugfs -R "ex frag" frag.img 2>/dev/null | awk '$1 == "0/" && $2 == "1" {print $8; exit}')
[ -n "$leaf" ] || skip "debugfs made no extent tree of depth 1"
dd if=/dev/zero of=frag.img bs=1024 seek="$leaf" count=1 conv=notrunc 2>/dev/null
cp frag.img frag-e2fsck.img
e2fsck -fy frag-e2fsck.img >/dev/null 2>&1
repaired_image frag.img "a zeroed extent leaf"
for img in frag-e2fsck.img frag.img; do
	debugfs -R "stat frag" "$img" 2>/dev/null | grep -E "^Inode:|Size:" > "$img.stat" || fail "frag gone from $img"
done
cmp -s frag-e2fsck.img.stat frag.img.stat || fail "frag differs from what e2fsck keeps: $(cat frag-e2fsck.img.stat frag.img.stat)"
# A doubly claimed block: f2's first extent moved onto f1's blocks; f2 gets copies.
repaired "sif f2 block[5] $blk"
OUT=$YOUT expect_out "multiply-claimed" "the shared block is explained"
# The resize inode: a stray block in its map (not valid: made again), a wrong i_blocks.
repaired "sif <7> block[2] 5"
OUT=$YOUT expect_out "the resize inode \(inode 7\) is not valid" "the resize inode is named"
repaired "sif <7> blocks 8"
# Flags only a directory may carry, on a file: the htree index flag, the casefold flag.
repaired "sif f1 flags 0x81000"
repaired "sif f1 flags 0x40080000"
exit 0
