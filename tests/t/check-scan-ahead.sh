# Pass 1 reads the inode tables ahead in a second thread and checks the inodes
# in place (lib/check/iscan.c), pass 2 the directory blocks (check/dirread.c);
# E4RECOVER_SLOW_SCAN=1 makes them use libext2fs's inode scan alone and read
# each block through the channel, as before. Both must give the same check -n -f: the same
# text, JSON, exit code and progress (one step per group), on images with
# several groups, groups never used (INODE_UNINIT) and one used in part
# (bg_itable_unused), damaged inodes and directories, an inode table that
# cannot be read (past the end of the image) and an image cut short inside an
# inode table (the walk goes back to libext2fs's scan in the middle of a
# group; every directory block past the cut fails in the reader and again
# through the channel). e2fsck -fn is the oracle that each damaged image is damaged.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

# same IMAGE WHAT: check -n -f with and without the read-ahead agree.
same() {
	local img=$1 what=$2 mode out rc
	for mode in fast slow; do
		if [ $mode = slow ]; then export E4RECOVER_SLOW_SCAN=1; else unset E4RECOVER_SLOW_SCAN; fi
		"$E4R" check -n -f "$img" >text.$mode 2>&1 3>progress.$mode -C 3
		echo $? >rc.$mode
		"$E4R" check -n -f --json "$img" >json.$mode 2>/dev/null
		echo $? >>rc.$mode
	done
	unset E4RECOVER_SLOW_SCAN
	for out in text json progress rc; do
		cmp -s $out.fast $out.slow ||
			fail "$what: $out differs with the read-ahead: $(diff $out.slow $out.fast | head -n 6)"
	done
	[ -s progress.fast ] || fail "$what: no progress written"
	note "$what: exit $(head -n 1 rc.fast), $(wc -l <text.fast) lines, $(wc -l <progress.fast) progress lines"
}

# damaged IMAGE: e2fsck -fn (the oracle) finds IMAGE damaged.
damaged() {
	run e2fsck -fn "$1"
	[ "$RC" -ne 0 ] || fail "oracle: e2fsck -fn finds $1 clean"
}

# 1 KiB blocks, 2048 inodes per group (512 table blocks: two chunks of the
# reader's), 8 groups: 2500 directories fill group 0 and part of group 1.
mkimg base.img 64M -b 1024 -N 16384
populate base.img
for i in $(seq 1 2500); do echo "mkdir d$i"; done | debugfs -w -f - base.img >/dev/null 2>&1 ||
	fail "debugfs mkdir"
run dumpe2fs base.img
expect_out "Group 1: .*csum 0x[0-9a-f]+ \[BLOCK_UNINIT" "group 1 is in use"
expect_out "Group 2: .*INODE_UNINIT" "group 2 was never used"
same base.img "populated"

# Inodes damaged in both groups' tables (modes, links, flags, checksums) and a directory unlinked.
cp base.img dmg.img
printf '%s\n' "sif d10 mode 0170000" "sif d2100 links_count 9" "sif d2400 flags 0x80000" \
	"unlink d33" "sif f1 size 1" "freeb $(debugfs -R 'bmap f1 0' base.img 2>/dev/null)" |
	debugfs -w -f - dmg.img >/dev/null 2>&1 || fail "debugfs damage"
itable=$(dumpe2fs dmg.img 2>/dev/null | sed -n 's/^ *Inode table at \([0-9]*\)-.*/\1/p' | head -n 1)
# a byte in the middle of group 0's second chunk (its checksum fails) and in group 1's table
printf 'X' | dd of=dmg.img bs=1 seek=$(( (itable + 300) * 1024 + 70 )) conv=notrunc 2>/dev/null
printf 'Y' | dd of=dmg.img bs=1 seek=$(( (itable + 515) * 1024 + 70 )) conv=notrunc 2>/dev/null
damaged dmg.img
same dmg.img "damaged inodes"

# Group 1's inode table past the end of the image: the reader's read fails.
cp base.img far.img
debugfs -w -R "set_bg 1 inode_table 70000" far.img >/dev/null 2>&1 &&
	debugfs -w -R "set_bg 1 checksum calc" far.img >/dev/null 2>&1 || fail "debugfs set_bg"
damaged far.img
same far.img "table past the end"

# Cut 300 blocks into group 0's table: the first chunk is read ahead, the
# second fails, and libext2fs's scan takes over from its first failing block.
cp base.img cut.img
truncate -s $(( (itable + 300) * 1024 )) cut.img
damaged cut.img
same cut.img "cut short"

# 4 KiB blocks, metadata_csum and uninit_bg's successor with flex_bg; and ext3 without group checksums.
mkimg four.img 32M -N 8192 -g 4096
populate four.img
for i in $(seq 1 3000); do echo "mkdir d$i"; done | debugfs -w -f - four.img >/dev/null 2>&1 ||
	fail "debugfs mkdir"
printf '%s\n' "sif d5 links_count 0" "sif d2900 mode 0100644" | debugfs -w -f - four.img >/dev/null 2>&1
damaged four.img
same four.img "4 KiB blocks, damaged"

rm -f ext3.img
mke2fs -q -F -t ext3 -U "$FIXED_UUID" -E "hash_seed=$FIXED_HASH_SEED" -N 4096 ext3.img 16M >/dev/null 2>&1 ||
	fail "mke2fs ext3"
populate ext3.img
printf '%s\n' "sif f2 links_count 3" | debugfs -w -f - ext3.img >/dev/null 2>&1
damaged ext3.img
same ext3.img "ext3, damaged"
exit 0
