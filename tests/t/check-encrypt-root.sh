# The root directory with the encrypt flag but no encryption context:
# e2fsck -y clears the flag in pass 1, so its pass 2 reads the root's names as
# plain ones. check -y -f must do the same in one round: before, pass 2 took
# the names for short encrypted ones, cleared them, and lost+found was made
# again every round until the check gave up (exit 4).
. "$E4R_TESTS_SRCDIR/check_lib.sh"

base_image
# the encrypt flag (0x800) on the root, and on a directory below it (the same rule)
for target in "<2>" dir; do
	cp base.img t.img
	flags=$(debugfs -R "stat $target" t.img 2>/dev/null | sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p')
	[ -n "$flags" ] || fail "no flags for $target"
	debugfs -w -R "sif $target flags $(printf '0x%x' $((flags | 0x800)))" t.img >/dev/null 2>&1 ||
		fail "debugfs: set the encrypt flag on $target"
	ino=$(inode_of t.img "$target"); [ "$target" = "<2>" ] && ino=2
	cp t.img e2.img
	run e2fsck -fn t.img
	expect_rc 4 "oracle: e2fsck -fn with the encrypt flag on $target"
	expect_out "Inode $ino has encrypt flag but no encryption extended attribute" \
		"oracle: e2fsck names the flag on $target"
	run "$E4R" check -n -f t.img
	expect_rc 4 "check -n -f with the encrypt flag on $target"
	expect_out "inode $ino has the encrypt flag but no encryption extended attribute" \
		"check names the flag on $target"
	e2fsck -fy e2.img >/dev/null 2>&1
	[ $? -le 1 ] || fail "oracle: e2fsck -fy with the encrypt flag on $target"
	repaired_image t.img "the encrypt flag on $target"
	expect_no_out "lost\+found|short|encrypted" "check -n -f after the repair is quiet"
	echo "$YOUT" | grep -q "shorter than an encrypted name" &&
		fail "check -y -f read the names of $target as encrypted after clearing its flag"
	# nothing e2fsck keeps is lost: the same names in the root and in dir, the same files
	for d in / /dir; do
		ours=$(debugfs -R "ls $d" t.img 2>/dev/null | tr -s ' \n' '\n' | grep -v '^$' | sort)
		theirs=$(debugfs -R "ls $d" e2.img 2>/dev/null | tr -s ' \n' '\n' | grep -v '^$' | sort)
		[ "$ours" = "$theirs" ] || fail "ls $d after the repair of $target differs from e2fsck's:
ours:
$ours
e2fsck:
$theirs"
	done
	[ "$(debugfs -R 'cat f1' t.img 2>/dev/null | sha256sum)" = "$(seq 1 9000 | sha256sum)" ] ||
		fail "f1's data after the repair of $target"
done
echo ok
