# A repair cut short after any number of block writes (a simulated power cut), then run
# again, must leave an image e2fsck -fn finds clean, keeping every inode one uninterrupted
# repair keeps; the undo file of the cut run must give back the input through e2undo (the
# undo file is taken to sit on another disk: the cut hits the image only). The images are
# check-repair.sh's and check-repair-modes.sh's damages, and a few of the differential
# tester's; the cutting is done by tests/unit/repair_cuts through tests/unit/fault_io.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

cuts=$E4R_TOP_BUILDDIR/tests/unit/repair_cuts
[ -x "$cuts" ] || fail "no $cuts: build with make check"

base_image
blk=$(debugfs -R "bmap f1 0" base.img 2>/dev/null)
[ -n "$blk" ] && [ "$blk" -gt 0 ] || fail "no block for f1"
ino2=$(debugfs -R "stat f2" base.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
dblk=$(debugfs -R "bmap dir 0" base.img 2>/dev/null)
bs=$(dumpe2fs -h base.img 2>/dev/null | sed -n 's/^Block size: *//p')

# Each cut copies, repairs (fsync at every flush) and checks an image: ~700 times in all.
# On a RAM disk that takes a third of the time it takes on a busy disk.
scratch=.
if [ -d /dev/shm ] && [ -w /dev/shm ] && s=$(mktemp -d /dev/shm/e4r-cuts.XXXXXX 2>/dev/null); then
	scratch=$s
	trap 'rm -rf "$scratch"' EXIT
fi

images=0 tried=0 converged=0
# cut_each IMAGE WHAT [e2fsck-rc]: IMAGE is damaged (the oracle says so), then every cut.
cut_each() {
	local img=$1 what=$2 want=${3:-4} line
	run e2fsck -fn "$img"
	expect_rc "$want" "oracle: e2fsck -fn sees the damage of $what"
	# one clock for every run: a run straddling a second writes the superblock once more
	cp "$img" "$scratch/cut.img"
	run env E2FSPROGS_FAKE_TIME=1700000000 "$cuts" --undo "$scratch/cut.img"
	expect_rc 0 "$what: every cut, rerun, is clean and keeps what one repair keeps"
	line=$(printf '%s\n' "$OUT" | grep "block writes, .* cuts, .* converged")
	[ -n "$line" ] || fail "$what: no summary"
	set -- $(printf '%s\n' "$line" | sed 's/.*: \([0-9]*\) block writes, \([0-9]*\) cuts, \([0-9]*\) converged.*/\1 \2 \3/')
	[ "$2" = "$1" ] || fail "$what: $2 cuts for $1 writes"
	images=$((images + 1)) tried=$((tried + $2)) converged=$((converged + $3))
}

# damaged "DEBUGFS COMMANDS" [e2fsck-rc]: a copy of base.img damaged by debugfs -w, cut each way.
n=0
damaged() {
	n=$((n + 1))
	cp base.img "d$n.img"
	printf '%s\n' "$1" | tr ';' '\n' | debugfs -w -f - "d$n.img" >/dev/null 2>&1 || fail "debugfs $1"
	cut_each "d$n.img" "'$1'" "${2:-4}"
}

# check-repair.sh's damages.
damaged "freeb $blk"
damaged "freei f1"
damaged "seti <40>"
damaged "set_bg 0 free_blocks_count 17;set_bg 0 checksum calc"
damaged "set_bg 0 free_inodes_count 3;set_bg 0 checksum calc"
damaged "set_bg 0 used_dirs_count 9;set_bg 0 checksum calc"
damaged "set_bg 0 itable_unused 2035;set_bg 0 checksum calc"
damaged "set_bg 0 block_bitmap_csum 0x1234;set_bg 0 checksum calc"
damaged "set_bg 0 inode_bitmap_csum 0x1234;set_bg 0 checksum calc"
damaged "set_bg 0 checksum 0x1234" 0
damaged "sif f1 checksum 0x1234"
damaged "unlink f2;sif <$ino2> links_count 0;ssv last_orphan $ino2"
damaged "sif f1 links_count 5"
damaged "ln <40> dangling"
damaged "unlink f2"
damaged "sif f1 flags 0x82000"
damaged "mknod pipe p;sif pipe flags 0x10;sif pipe size 100"
damaged "sif <1> mode 0100644;sif <1> links_count 1"
damaged "expand_dir dir;expand_dir dir;punch dir 1 1"
damaged "sif <2> mode 0100644" 12
damaged "unlink dir/sub"
damaged "rmdir lost+found;unlink f2"
damaged "mknod fifo p;mknod chr c 4 1;write /dev/null empty;unlink fifo;unlink chr;unlink empty"
damaged "sif f1 block[5] 9999999"
damaged "sif f1 block[1] 0x7fff0004"
damaged "sif f2 block[5] $blk"
damaged "sif <7> block[2] 5"
damaged "sif <7> blocks 8"
damaged "sif f1 flags 0x81000"
damaged "sif f1 flags 0x40080000"
# check-repair-modes.sh's: safe damage together, and the undo case's mixture.
damaged "freeb $blk;set_bg 0 free_inodes_count 3;set_bg 0 checksum calc;sif f1 links_count 3"
damaged "unlink dir/sub;freeb $blk;sif f2 links_count 7;ln <40> dangling;set_bg 0 checksum 0x1"
damaged "sif f1 size 10;sif f2 size 10"
# A directory block whose checksum tail is wrong.
cp base.img dcsum.img
printf '\022\064\126\170' | dd of=dcsum.img bs=1 seek=$((dblk * bs + bs - 4)) conv=notrunc 2>/dev/null
cut_each dcsum.img "a directory block's checksum tail"
# A few of the differential tester's damages (tests/difftest/damage.py), by hand: a zeroed
# inode table block, a zeroed block bitmap, a directory block overwritten by garbage.
itab=$(dumpe2fs base.img 2>/dev/null | sed -n 's/.*Inode table at \([0-9]*\)-.*/\1/p' | head -n 1)
bbm=$(dumpe2fs base.img 2>/dev/null | sed -n 's/.*Block bitmap at \([0-9]*\) .*/\1/p' | head -n 1)
cp base.img itab.img
dd if=/dev/zero of=itab.img bs="$bs" seek=$((itab + 3)) count=1 conv=notrunc 2>/dev/null
cut_each itab.img "a zeroed inode table block (the fourth: the files' inodes)"
cp base.img bbm.img
dd if=/dev/zero of=bbm.img bs="$bs" seek="$bbm" count=1 conv=notrunc 2>/dev/null
cut_each bbm.img "a zeroed block bitmap"
cp base.img ddir.img
seeded_bytes ddir "$bs" | dd of=ddir.img bs="$bs" seek="$dblk" count=1 conv=notrunc 2>/dev/null
cut_each ddir.img "a directory block overwritten by garbage" 12

note "$images images, $tried cuts tried, $converged converged"
[ "$tried" = "$converged" ] || fail "$((tried - converged)) of $tried cuts did not converge"
exit 0
