# Damaged layouts that once made a repair write over metadata, which check -y's
# write guard refused (exit 8, "please report this"; fuzz/open/README):
#   - a group's inode bitmap on the inode table block that holds the journal inode,
#     with a journal superblock that is no journal's: clearing inode 8 wrote into
#     the block the bitmap still claimed (the bitmap now moves first);
#   - the resize inode's indirect block on the descriptor block: trimming what it
#     lists rewrote the descriptors (such a map block is now cut).
# For each: check -y -f exits 0 or 1 (never 8), e2fsck -fn (the oracle) finds the
# result clean, and every path e2fsck -fy keeps on a copy is still reachable, with
# the files' content.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

# paths IMAGE: every path under the root, one a line, sorted (debugfs ls -p, breadth first).
paths() {
	local img=$1 queue=/ dir rest
	while [ -n "$queue" ]; do
		dir=${queue%%
*}
		rest=${queue#"$dir"}
		queue=${rest#
}
		debugfs -R "ls -p \"$dir\"" "$img" 2>/dev/null |
			awk -F/ 'NF >= 7 && $6 != "." && $6 != ".." { print $3 " " $6 }' > ls.out
		while read -r mode name; do
			p=${dir%/}/$name
			echo "$p"
			case $mode in 04*) queue="$queue${queue:+
}$p" ;; esac
		done < ls.out
	done | sort
}

# guarded "WHAT": t.img is damaged (e2fsck -fn sees it); check -y -f mends it without a
# refused write and keeps what e2fsck -fy keeps.
guarded() {
	run e2fsck -fn t.img
	[ "$RC" -ne 0 ] || fail "oracle: e2fsck -fn finds nothing wrong with $1"
	cp t.img e2.img
	e2fsck -fy e2.img >/dev/null 2>&1
	[ $? -le 1 ] || fail "oracle: e2fsck -fy does not mend $1"
	run "$E4R" check -y -f t.img
	[ "$RC" -eq 0 ] || [ "$RC" -eq 1 ] || fail "check -y -f on $1: exit $RC"
	expect_no_out "write over filesystem metadata" "check -y -f on $1: a write was refused"
	YOUT=$OUT
	run e2fsck -fn t.img
	expect_rc 0 "oracle: e2fsck -fn after check -y -f on $1"
	run "$E4R" check -n -f t.img
	expect_rc 0 "check -n -f after check -y -f on $1"
	paths e2.img > e2.paths
	paths t.img > ours.paths
	[ -s e2.paths ] || fail "e2fsck -fy kept no path of $1"
	missing=$(comm -23 e2.paths ours.paths)
	[ -z "$missing" ] || fail "check -y -f on $1 lost what e2fsck -fy keeps: $missing"
	debugfs -R "dump f1 f1.out" t.img >/dev/null 2>&1
	debugfs -R "dump dir/f3 f3.out" t.img >/dev/null 2>&1
	cmp -s f1.out data1 && cmp -s f3.out data2 || fail "check -y -f on $1: the files' content differs"
	rm -f f1.out f3.out
}

# 1 KiB blocks, two groups, flex_bg: group 1's bitmaps and table lie in group 0.
mkimg base.img 16M -b 1024
populate base.img
run e2fsck -fn base.img
expect_rc 0 "oracle: e2fsck -fn on the populated image"
[ "$(dumpe2fs base.img 2>/dev/null | grep -c '^Group [0-9]')" = 2 ] || fail "the image has not two groups"
it=$(dumpe2fs base.img 2>/dev/null | sed -n 's/.*Inode table at \([0-9]*\)-.*/\1/p' | head -1)
isize=$(dumpe2fs -h base.img 2>/dev/null | sed -n 's/^Inode size: *//p')
[ -n "$it" ] && [ -n "$isize" ] || fail "dumpe2fs: no inode table or inode size"
j8=$((it + 7 * isize / 1024))			# the table block holding inode 8
jsb=$(debugfs -R "bmap <8> 0" base.img 2>/dev/null)	# the journal superblock
[ -n "$jsb" ] && [ "$jsb" -gt 0 ] || fail "debugfs bmap <8> 0"

# The bitmap over the journal inode's table block, in the primary descriptors and
# the backup (group 1's), so that neither tool falls back on a sound copy.
cp base.img t.img
printf '%s\n' "set_bg 1 inode_bitmap $j8" "set_bg 1 checksum calc" |
	debugfs -w -f - t.img >/dev/null 2>&1 || fail "debugfs set_bg"
dd if=t.img of=t.img bs=1024 skip=2 seek=8194 count=1 conv=notrunc 2>/dev/null || fail "dd backup"
dd if=/dev/zero of=t.img bs=1024 seek="$jsb" count=1 conv=notrunc 2>/dev/null || fail "dd journal"
guarded "an inode bitmap on the journal inode's table block (block $j8) and a bad journal"
OUT=$YOUT
expect_out "metadata of group 1 at block $j8 overlaps other filesystem metadata" "check -y -f names the overlap"

# The resize inode's indirect block on the descriptor block (block 2).
cp base.img t.img
debugfs -w -R "sif <7> block[IND] 2" t.img >/dev/null 2>&1 || fail "debugfs sif"
guarded "the resize inode's indirect block on the descriptor block"
exit 0
