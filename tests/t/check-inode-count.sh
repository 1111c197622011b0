# check -y on a superblock whose inode count is not inodes per group times groups, with
# inodes per group not a multiple of 8 (found by fuzz_check's second check,
# fuzz/regress/check/inode-count-odd-per-group): the count is set from the groups, and
# the inode bitmap written after it must be what a reader expects, its bits past the last
# whole byte set and its checksum over the whole bytes (libext2fs writes the partial byte
# and checksums it too; e2fsck -fy alone leaves 95 per group so, and e2fsck -fn complains).
. "$E4R_TESTS_SRCDIR/check_lib.sh"

# 1 KiB blocks, 256-byte inodes, 96 inodes in one group (24 table blocks); 95 and 97 per
# group keep the table within its 24 and 25 blocks (97: one block more, taken from the
# journal, which both tools clone), 100 is a multiple of 4 but not of 8.
for ipg in 95 97 100; do
	mkimg base.img 3M -b 1024 -I 256 -N 96
	debugfs -w -R "ssv inodes_per_group $ipg" base.img >/dev/null 2>&1 || fail "debugfs ssv $ipg"
	cp base.img t.img
	# e2fsck cannot open it as it is (corrupt superblock): it stops when told not to fix
	repaired_image t.img "inodes per group $ipg, inode count 96" 12
	printf '%s\n' "$YOUT" | grep -Eq "inode count.* 96.* $ipg|inode count.*$ipg.*96" ||
		fail "check -y -f does not name the inode count (96, should be $ipg): $YOUT"
	# the summary line's total is the repaired count, as e2fsck's
	printf '%s\n' "$YOUT" | tail -n 1 | grep -q "/$ipg files" ||
		fail "check -y -f's summary does not count $ipg inodes: $(printf '%s\n' "$YOUT" | tail -n 1)"
	run e2fsck -fn t.img
	expect_out "/$ipg files" "oracle: e2fsck counts $ipg inodes after check -y -f"
done
