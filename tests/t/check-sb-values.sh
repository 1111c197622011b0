# A superblock value outside the range e2fsck holds it to (a descriptor size that is not a
# power of two, more reserved descriptor blocks than a block's worth, reserved blocks past
# half the filesystem, a first inode below 11, a checksum type other than crc32c): e2fsck
# -fy stops before any pass (exit with 8 set), and so must check -y -f, writing nothing.
# The layout the repairs would follow comes from those values: with descriptors read at
# the wrong size, check -y once cleared an inode over a bitmap block (fuzz_check,
# fuzz/regress/check/sb-desc-size-not-a-power-repaired). One group of 1 KiB blocks has no
# backup superblock for either tool to fall back on. check -n -f goes on past the value
# to say what else it sees, and must call the filesystem damaged and write nothing too.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

mkimg base.img 8M -b 1024 -O 64bit,metadata_csum
populate base.img
run e2fsck -fn base.img
expect_rc 0 "oracle: e2fsck -fn on the populated image"
for v in "desc_size 48" "reserved_gdt_blocks 300" "r_blocks_count 7000" "first_ino 5" \
	 "checksum_type 2"; do
	cp base.img t.img
	debugfs -w -R "ssv $v" t.img >/dev/null 2>&1 || fail "debugfs ssv $v"
	cp t.img e2.img
	run e2fsck -fy e2.img
	[ $((RC & 8)) = 8 ] || fail "oracle: e2fsck -fy stops on $v: exit $RC"
	sum=$(sha t.img)
	run "$E4R" check -y -f t.img
	[ $((RC & 8)) = 8 ] || fail "check -y -f does not stop on $v: exit $RC"
	expect_out "superblock value is out of range" "check -y -f names the value ($v)"
	[ "$(sha t.img)" = "$sum" ] || fail "check -y -f wrote to the image with $v"
	run "$E4R" check -n -f t.img
	[ $((RC & 12)) != 0 ] || fail "check -n -f calls the filesystem with $v clean: exit $RC"
	expect_out "superblock value is out of range" "check -n -f names the value ($v)"
	[ "$(sha t.img)" = "$sum" ] || fail "check -n -f wrote to the image with $v"
done

# A first meta_bg group past the descriptor blocks (meta_bg, one group, so no backup): both
# tools call it damaged, e2fsck -fy clears meta_bg, and so must check -y -f, leaving a
# filesystem e2fsck -fn finds clean. libext2fs would take that many blocks after the
# superblock for descriptors; past the filesystem's end it marked none of them, and a
# repair allocated the descriptor block (fuzz_check,
# fuzz/regress/check/first-meta-bg-past-descriptors).
mkimg mb.img 8M -b 1024 -O meta_bg,^resize_inode
populate mb.img
for v in 5 4294967295; do
	cp mb.img t.img
	debugfs -w -R "ssv first_meta_bg $v" t.img >/dev/null 2>&1 || fail "debugfs ssv first_meta_bg $v"
	cp t.img e2.img
	run e2fsck -fy e2.img
	expect_rc 1 "oracle: e2fsck -fy mends first_meta_bg $v"
	run "$E4R" check -n -f t.img
	expect_rc 4 "check -n -f with first_meta_bg $v"
	expect_out "first_meta_bg is too big" "check -n -f names first_meta_bg $v"
	repaired_image t.img "first_meta_bg $v"
done
