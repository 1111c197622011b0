# Helpers for the check-*.sh image tests: a populated image, and damage cases
# judged by the oracle (e2fsck -fn must see the damage) before e4recover is.
. "$E4R_TESTS_SRCDIR/lib.sh"

# populate IMAGE: directories, files (several blocks), a fast symlink, through debugfs.
populate() {
	seq 1 9000 > data1
	seq 1 4000 > data2
	printf '%s\n' "mkdir dir" "write data1 f1" "write data2 f2" "write data2 dir/f3" \
		"symlink sl /some/where" "mkdir dir/sub" |
		debugfs -w -f - "$1" >/dev/null 2>&1 || fail "debugfs populate $1"
}

# base_image: base.img, an ext4 image populated by populate(), clean for e2fsck.
base_image() {
	mkimg base.img 16M "$@"
	populate base.img
	run e2fsck -fn base.img
	expect_rc 0 "oracle: e2fsck -fn on the populated image"
}

# damage "DEBUGFS COMMAND..." E2FSCK-REGEX OUR-REGEX [RC]: copy base.img to t.img,
# damage it with debugfs, require e2fsck -fn to report it (exit RC, default 4),
# then require check -n -f to exit the same and to name the same object, without writing.
damage() {
	local e2re=$2 ourre=$3 want=${4:-4} sum
	cp base.img t.img
	printf '%s\n' "$1" | tr ';' '\n' | debugfs -w -f - t.img >/dev/null 2>&1 || fail "debugfs $1"
	run e2fsck -fn t.img
	expect_rc "$want" "oracle: e2fsck -fn after '$1'"
	expect_out "$e2re" "oracle: e2fsck names the damage of '$1'"
	sum=$(sha t.img)
	run "$E4R" check -n -f t.img
	expect_rc "$want" "check -n -f after '$1'"
	expect_out "$ourre" "check -n -f names the damage of '$1'"
	[ "$(sha t.img)" = "$sum" ] || fail "check -n -f wrote to the image after '$1'"
}

# repaired_image IMAGE WHAT [ORACLE-RC]: IMAGE is damaged and e2fsck -fn must see it
# (exit ORACLE-RC, default 4); check -y -f repairs it (exit 1); then both e2fsck -fn
# (the oracle) and check -n -f find it clean (exit 0).
repaired_image() {
	local img=$1 what=$2 want=${3:-4}
	run e2fsck -fn "$img"
	expect_rc "$want" "oracle: e2fsck -fn on $what"
	run "$E4R" check -y -f "$img"
	expect_rc 1 "check -y -f repairs $what"
	YOUT=$OUT
	run e2fsck -fn "$img"
	expect_rc 0 "oracle: e2fsck -fn after check -y -f on $what"
	run "$E4R" check -n -f "$img"
	expect_rc 0 "check -n -f after check -y -f on $what"
}

# repaired_by "DEBUGFS COMMANDS" [ORACLE-RC]: repaired_image on t.img, a copy of
# base.img damaged with debugfs -w.
repaired_by() {
	cp base.img t.img
	printf '%s\n' "$1" | tr ';' '\n' | debugfs -w -f - t.img >/dev/null 2>&1 || fail "debugfs $1"
	repaired_image t.img "'$1'" "${2:-4}"
}

# both_clean IMAGE WHAT: e2fsck -fn (the oracle) and check -n -f both find IMAGE clean.
both_clean() {
	run e2fsck -fn "$1"
	expect_rc 0 "oracle: e2fsck -fn on $2"
	run "$E4R" check -n -f "$1"
	expect_rc 0 "check -n -f on $2"
}

# inode_of IMAGE PATH: the inode number debugfs gives PATH in IMAGE.
inode_of() {
	debugfs -R "stat $2" "$1" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p'
}

# judged_and_repaired IMAGE WHAT E2FSCK-REGEX OUR-REGEX [ORACLE-RC]: IMAGE is damaged;
# e2fsck -fn finds it (exit with 4 set) and names it, check -n -f exits 4 and names it; a
# copy repaired by e2fsck -fy is left in e2.img for the caller to compare with, and IMAGE
# goes through repaired_image (e2fsck -fn's exit before, ORACLE-RC: 12 by default, where
# it stops after asking).
judged_and_repaired() {
	local img=$1 what=$2
	cp "$img" e2.img
	run e2fsck -fn "$img"
	[ $((RC & 4)) = 4 ] || fail "oracle: e2fsck -fn with $what: exit $RC"
	expect_out "$3" "oracle: e2fsck names $what"
	run "$E4R" check -n -f "$img"
	expect_rc 4 "check -n -f with $what"
	expect_out "$4" "check names $what"
	e2fsck -fy e2.img >/dev/null 2>&1
	[ $? -le 1 ] || fail "oracle: e2fsck -fy with $what"
	repaired_image "$img" "$what" "${5:-12}"
}
