# The orphan list a crash leaves (files unlinked while open, then the filesystem shut
# down): check -n -f names the orphans and the zero dtime like e2fsck -fn, and after
# e2fsck replays the journal both see only the summary counts left to fix.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

[ -x "$E4R_SHUTDOWN" ] || fail "no $E4R_SHUTDOWN: build it with make check"
mkimg o.img 64M
mkdir mnt
mount -o loop o.img mnt 2>/dev/null || skip "loop mount refused: orphan test skipped"
(
	cd mnt && for i in 1 2 3; do seq 1 100000 > f$i; done && sync -f . &&
	exec 3<f1 4<f2 && rm f1 f2 && sync -f . && "$E4R_SHUTDOWN" "$PWD"
) || { umount mnt; skip "shutdown ioctl refused"; }
umount mnt || fail "umount"
orphan=$(dumpe2fs -h o.img 2>/dev/null | sed -n 's/^First orphan inode: *//p')
[ -n "$orphan" ] || skip "the kernel left no orphan list"

run e2fsck -fn o.img
expect_rc 4 "oracle: e2fsck -fn on the orphan list"
expect_out "Inode $orphan was part of the orphaned inode list" "oracle names the head of the list"
run "$E4R" check -n -f o.img
expect_rc 4 "check -n -f on the orphan list"
expect_out "skipping journal recovery" "the journal is not replayed"
expect_out "inode $orphan was part of the orphaned inode list" "check names the head of the list"
expect_out "deleted inode [0-9]+ has a zero deletion time" "the list's tail"

e2fsck -E journal_only -y o.img >/dev/null 2>&1
run e2fsck -fn o.img
ref=$RC
run "$E4R" check -n -f o.img
expect_rc "$ref" "after the replay, check -n -f exits like e2fsck -fn"
exit 0
