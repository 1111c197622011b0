# Bad input: a missing file, a file that is not ext2/3/4, a truncated image,
# a directory: one line naming the image and the reason, exit 8, for every subcommand
# (but check -n on a cut image that e2fsck -n checks: below).
. "$E4R_TESTS_SRCDIR/lib.sh"

seeded_bytes random.img 1048576 > random.img
: > empty.img
mkimg good.img 8M
cp good.img cut.img; truncate -s 3M cut.img
head -c 1500 good.img > tiny.img
mkdir adir
# A superblock that claims 2^40 blocks (the 64bit feature makes the high half count):
# refused as truncated before anything is sized from the claim.
mkimg huge.img 8M -O 64bit
debugfs -w -R "ssv blocks_count 0x10000000000" huge.img >/dev/null 2>&1 || fail "debugfs ssv"
# A forged first data block (libext2fs sizes its bitmaps from it and corrupted
# its heap on one, found by fuzz_check): e2fsck aborts on both, and so do we.
mkimg fdb1k.img 8M -b 1024
debugfs -w -R "ssv first_data_block 7" fdb1k.img >/dev/null 2>&1 || fail "debugfs ssv"
mkimg fdb4k.img 8M -b 4096
debugfs -w -R "ssv first_data_block 1" fdb4k.img >/dev/null 2>&1 || fail "debugfs ssv"
for f in fdb1k.img fdb4k.img; do
	run e2fsck -fn $f
	expect_rc 8 "e2fsck -fn $f (the oracle)"
	expect_out "first_data_block = [0-9]+, should have been" "e2fsck on $f"
done

check_case() { # sub image reason-regex
	run "$E4R" "$1" "$2"
	expect_rc 8 "$1 $2"
	[ "$(printf '%s\n' "$OUT" | wc -l)" -eq 1 ] || fail "$1 $2: expected one line, got: $OUT"
	expect_out "^e4recover: $2: .*$3" "$1 $2 names the image and the reason"
}
for sub in logdump replay diagnose check; do
	check_case $sub missing.img 'No such file or directory'
	check_case $sub random.img 'not an ext2/ext3/ext4 filesystem'
	check_case $sub empty.img 'not an ext2/ext3/ext4 filesystem'
	[ $sub = check ] || check_case $sub cut.img 'truncated'
	check_case $sub tiny.img 'truncated'
	check_case $sub huge.img 'truncated'
	check_case $sub adir 'Is a directory'
	check_case $sub fdb1k.img 'first data block'
	check_case $sub fdb4k.img 'first data block'
done
# A cut image whose kept part holds everything in use: e2fsck -n says that the sizes
# disagree ("Abort? no"), forces the check and finds nothing else (exit 0); -y aborts
# (exit 8) and writes nothing. check -n and -y do the same.
for f in -f ""; do
	run e2fsck -n $f cut.img
	ref=$RC
	expect_out "The filesystem size \(according to the superblock\) is 8192 blocks" "oracle: e2fsck -n $f names the claimed size"
	expect_out "The physical size of the device is 3072 blocks" "oracle: e2fsck -n $f names the device's size"
	expect_out "Pass 5" "oracle: e2fsck -n $f checks the cut image"
	run "$E4R" check -n $f cut.img
	expect_rc "$ref" "check -n $f cut.img exits like e2fsck -n $f"
	expect_out "the filesystem size \(according to the superblock\) is 8192 blocks, but the device holds only 3072" "check -n $f names both sizes"
	expect_out "Pass 5" "check -n $f checks the cut image"
done
cp cut.img cut-e2fsck.img
run e2fsck -fy cut-e2fsck.img
expect_rc 8 "oracle: e2fsck -fy aborts on a cut image"
cmp -s cut.img cut-e2fsck.img || fail "oracle: e2fsck -fy wrote to a cut image"
for m in -y -p; do
	run "$E4R" check $m -f cut.img
	expect_rc 8 "check $m -f refuses a cut image"
	expect_out "cut.img: .*truncated" "check $m -f names the reason"
done
# Nothing was written to the inputs.
cmp -s cut.img <(head -c 3145728 good.img) || fail "cut.img was modified"
exit 0
