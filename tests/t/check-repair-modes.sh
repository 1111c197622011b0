# check's answers: -p fixes only what is safe and stops (exit 4, image untouched) on
# what a person must decide; -n and no answer off a terminal never write; on a
# terminal each problem is asked (yes/no/all); --undo restores the exact input
# bytes through e2undo and never overwrites an existing file.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

base_image
blk=$(debugfs -R "bmap f1 0" base.img 2>/dev/null)
[ -n "$blk" ] && [ "$blk" -gt 0 ] || fail "no block for f1"

# damaged NAME "DEBUGFS COMMANDS": NAME.img, a damaged copy e2fsck -fn sees as damaged.
damaged() {
	cp base.img "$1.img"
	printf '%s\n' "$2" | tr ';' '\n' | debugfs -w -f - "$1.img" >/dev/null 2>&1 || fail "debugfs $2"
	run e2fsck -fn "$1.img"
	expect_rc 4 "oracle: e2fsck -fn sees the damage of '$2'"
}

# -p, safe damage only (bitmaps, counts, a link count): fixed.
damaged safe "freeb $blk;set_bg 0 free_inodes_count 3;set_bg 0 checksum calc;sif f1 links_count 3"
run "$E4R" check -p -f safe.img
expect_rc 1 "check -p fixes safe damage"
run e2fsck -fn safe.img
expect_rc 0 "oracle: e2fsck -fn after check -p"

# -p, a directory cut from the tree (reconnecting it is a person's decision), with safe
# damage besides: exit 4, the problem named, nothing written at all.
damaged unsafe "unlink dir/sub;freeb $blk"
sum=$(sha unsafe.img)
run "$E4R" check -p -f unsafe.img
expect_rc 4 "check -p stops on an unsafe problem"
expect_out "UNEXPECTED INCONSISTENCY" "check -p says a person must decide"
expect_out "  directory inode [0-9]+ is not connected" "check -p names what must be decided"
[ "$(sha unsafe.img)" = "$sum" ] || fail "check -p wrote to an image it stopped on"
run e2fsck -fn unsafe.img
expect_rc 4 "oracle: the damage is still there after check -p"

# -n, and no answer off a terminal: nothing written.
for a in -n ""; do
	run "$E4R" check $a -f unsafe.img </dev/null
	expect_rc 4 "check ${a:-without answer} on a damaged image"
	[ "$(sha unsafe.img)" = "$sum" ] || fail "check ${a:-without answer} wrote to the image"
done

# --undo: e2undo gives back the exact input bytes, after repairs of every kind.
damaged u "unlink dir/sub;freeb $blk;sif f2 links_count 7;ln <40> dangling;set_bg 0 checksum 0x1"
cp u.img u-input.img
rm -f u.e2undo
run "$E4R" check -y -f --undo=u.e2undo u.img
expect_rc 1 "check -y -f --undo repairs"
run e2fsck -fn u.img
expect_rc 0 "oracle: e2fsck -fn after check -y -f --undo"
[ -s u.e2undo ] || fail "no undo file"
e2undo u.e2undo u.img >/dev/null 2>&1 || fail "e2undo refused check's undo file"
cmp -s u.img u-input.img || fail "e2undo did not restore the exact input"
# an existing undo file is never overwritten, and nothing is written then
run "$E4R" check -y -f --undo=u.e2undo u.img
expect_rc 16 "check with an existing undo file"
cmp -s u.img u-input.img || fail "check wrote although the undo file existed"

# On a terminal (script(1) gives one): asked per problem. Answering no (then end of
# input: no) changes nothing; "all" answers yes from there on.
if command -v script >/dev/null 2>&1; then
	cp u-input.img tty.img
	printf 'n\n' | script -qec "$E4R check -f tty.img" /dev/null > tty.out 2>&1
	grep -q "(yes/no/all)?" tty.out || fail "no question on a terminal: $(cat tty.out)"
	cmp -s tty.img u-input.img || fail "answers no changed the image"
	printf 'y\nall\n' | script -qec "$E4R check -f tty.img" /dev/null > tty.out 2>&1
	run e2fsck -fn tty.img
	expect_rc 0 "oracle: clean after yes and all on a terminal"
	# A declined fix stays declined: f1's size answered no, then "all" for the rest;
	# the round after the repairs finds f1's size again and must not take "all" for it.
	damaged declined "sif f1 size 10;sif f2 size 10"
	i1=$(debugfs -R "stat f1" base.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
	printf 'n\nall\n' | script -qec "$E4R check -f declined.img" /dev/null > tty.out 2>&1
	[ "$(grep -c "inode $i1 i_size is 10" tty.out)" -eq 1 ] ||
		fail "the declined fix was asked again: $(cat tty.out)"
	run e2fsck -fn declined.img
	expect_rc 4 "oracle: the declined problem is left"
	expect_out "Inode $i1, i_size is 10" "oracle: f1's size is still 10"
	OUT=$(printf '%s\n' "$OUT" | grep -v "Inode $i1,")
	expect_no_out "i_size is 10" "oracle: f2's size was fixed (the answer all)"

	# A directory's extent moved down over a gap (asked only when repairing) answered
	# no: the directory is judged as it stays, as e2fsck goes on after "no" (sized to
	# reach the extent where it is, the hole before it filled), not as if moved.
	mkimg gap.img 8M -b 1024
	{ echo "mkdir d"; i=0; while [ $i -lt 60 ]; do echo "write /dev/null d/a_rather_long_name_$i"; i=$((i + 1)); done
	  echo "sif d block[3] 5"; } | debugfs -w -f - gap.img >/dev/null 2>&1 || fail "debugfs gap.img"
	gi=$(debugfs -R "stat d" gap.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
	run e2fsck -fn gap.img
	expect_rc 4 "oracle: e2fsck -fn sees the gap"
	expect_out "Directory inode $gi block 5 should be at block 0" "oracle: the move is asked"
	size=$(printf '%s\n' "$OUT" | sed -n "s/^Inode $gi, i_size is \([0-9]*\), should be \([0-9]*\).*/\1 \2/p")
	[ -n "$size" ] || fail "oracle: no size for the directory as it stays: $OUT"
	b5=$(debugfs -R "bmap d 5" gap.img 2>/dev/null)
	printf 'n\nall\n' | script -qec "$E4R check -f gap.img" /dev/null > tty.out 2>&1
	[ "$(grep -c "directory inode $gi: its block 5 should be at block 0" tty.out)" -eq 1 ] ||
		fail "the move was not asked once: $(cat tty.out)"
	grep -q "inode $gi i_size is ${size% *}, should be ${size#* }" tty.out ||
		fail "the declined move's directory was not sized as it stays: $(cat tty.out)"
	run e2fsck -fn gap.img
	expect_rc 0 "oracle: clean after the move declined and the rest answered all"
	[ "$(debugfs -R "bmap d 5" gap.img 2>/dev/null)" = "$b5" ] || fail "the declined move was made"
	[ "$(debugfs -R "ls d" gap.img 2>/dev/null | grep -o 'a_rather_long_name_[0-9]*' | sort -u | wc -l)" -eq 60 ] ||
		fail "entries lost after the declined move"
else
	note "no script(1): the terminal questions are not tested"
fi

# A mounted filesystem is never repaired (the kernel owns it): exit 8, nothing written.
cp base.img m.img
mkdir -p mnt
if mount -o loop,ro m.img mnt 2>/dev/null; then
	msum=$(sha m.img)
	run "$E4R" check -y -f m.img
	umount mnt
	expect_rc 8 "check -y on a mounted filesystem"
	expect_out "mounted" "the refusal says why"
	[ "$(sha m.img)" = "$msum" ] || fail "check -y wrote to a mounted filesystem"
else
	note "loop mount refused here: the mounted case is not tested"
fi
exit 0
