# A repair's new blocks go where the kernel would put the file's blocks: a file that
# shares blocks with another gets its copies in its inode's group (without flex_bg), or
# its flex group's second group (a regular file, flex groups of 4), as
# ext4_inode_to_goal_block says, not next to the block it shared. As in e2fsck's pass 1D
# the lower inode (/g) gets the copies and the higher one (/c/f) keeps the blocks. e2fsck
# -fn (the oracle) finds the result clean, /c/f still maps its blocks, and the copy holds
# the shared content (debugfs reads it).
. "$E4R_TESTS_SRCDIR/check_lib.sh"

# kernel_group INO IPG FLEX: the group ext4 starts a regular file's blocks in.
kernel_group() {
	local g=$(( ($1 - 1) / $2 ))
	if [ "$3" -ge 4 ]; then
		g=$(( (g & ~($3 - 1)) + 1 ))
	fi
	echo "$g"
}

# one "MKE2FS OPTIONS" FLEX: /g and /c/f (a directory Orlov puts away from the root's
# group) written by the writer; /g's extent pointed at /c/f's blocks; check -y -f.
one() {
	local opts=$1 flex=$2 ino cino ipg bpg first fb nb want got b
	mkimg g.img 128M -b 1024 $opts
	printf '%s\n' "create /g 8000" "mkdir /a" "mkdir /b" "mkdir /c" "create /c/f 8000" > g.script
	run "$E4R" write --script g.script g.img
	expect_rc 0 "the writer ($opts)"
	debugfs -R "dump c/f f.data" g.img >/dev/null 2>&1 || fail "debugfs dump c/f"
	ino=$(debugfs -R "stat g" g.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
	cino=$(debugfs -R "stat c/f" g.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
	ipg=$(dumpe2fs -h g.img 2>/dev/null | sed -n 's/^Inodes per group: *//p')
	bpg=$(dumpe2fs -h g.img 2>/dev/null | sed -n 's/^Blocks per group: *//p')
	first=$(dumpe2fs -h g.img 2>/dev/null | sed -n 's/^First block: *//p')
	fb=$(debugfs -R "bmap c/f 0" g.img 2>/dev/null)
	[ -n "$ino" ] && [ -n "$cino" ] && [ -n "$fb" ] || fail "no /c/f or /g ($opts)"
	[ "$ino" -lt "$cino" ] || fail "/g (inode $ino) is not below /c/f (inode $cino) ($opts)"
	want=$(kernel_group "$ino" "$ipg" "$flex")
	# the writer puts /c/f's data next to /g's: moved to group 5, far from /g's goal
	nb=$(debugfs -R "ffb 8 $((first + 5 * bpg))" g.img 2>/dev/null | sed -n 's/^Free blocks found: \([0-9]*\) .*/\1/p')
	[ -n "$nb" ] || fail "no free blocks in group 5 ($opts)"
	dd if=g.img of=g.img bs=1024 skip="$fb" seek="$nb" count=8 conv=notrunc 2>/dev/null || fail "dd"
	printf '%s\n' "sif c/f block[5] $nb" "setb $nb 8" "freeb $fb 8" | debugfs -w -f - g.img >/dev/null 2>&1
	fb=$nb
	e2fsck -fy g.img >/dev/null 2>&1	# debugfs setb/freeb leave the groups' free counts
	run e2fsck -fn g.img
	expect_rc 0 "oracle: /c/f moved, the filesystem is clean ($opts)"
	[ "$(( (fb - first) / bpg ))" != "$want" ] || fail "/c/f already lies in group $want: nothing to tell ($opts)"
	debugfs -w -R "sif g block[5] $fb" g.img >/dev/null 2>&1 || fail "debugfs sif"
	run e2fsck -fn g.img
	expect_out "Multiply-claimed block" "oracle: e2fsck sees the shared blocks ($opts)"
	run "$E4R" check -y -f g.img
	expect_rc 1 "check -y -f on the shared blocks ($opts)"
	run e2fsck -fn g.img
	expect_rc 0 "oracle: e2fsck -fn after the repair ($opts)"
	[ "$(debugfs -R "bmap c/f 0" g.img 2>/dev/null)" = "$fb" ] ||
		fail "/c/f (inode $cino, the higher) no longer maps the blocks it kept ($opts)"
	for b in 0 1 2 3 4 5 6 7; do
		got=$(debugfs -R "bmap g $b" g.img 2>/dev/null)
		[ "$(( (got - first) / bpg ))" = "$want" ] ||
			fail "block $b of /g (inode $ino) was copied to $got, group $(( (got - first) / bpg )), not group $want ($opts)"
	done
	debugfs -R "dump g g.data" g.img >/dev/null 2>&1 || fail "debugfs dump g"
	cmp -s f.data g.data || fail "the copy does not hold the content it shared ($opts)"
	note "$opts: inode $ino, copies in group $want as the kernel's goal says"
}

one "-O ^flex_bg" 1
one "-O flex_bg -G 4" 4
exit 0
