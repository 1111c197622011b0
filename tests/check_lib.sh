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

# nomem_damaged_images: from base_image, three images e2fsck -fn finds damaged and e2fsck
# -fy mends: dup.img (f2's first extent on f1's block: a shared block, pass 1B's clone),
# dir.img (dir/f3's inode cleared under its entry, dir/sub unlinked: pass 2 removes an
# entry, pass 3 reconnects a directory to lost+found) and cnt.img (a link count, the
# superblock's free blocks and a group's free inodes wrong: passes 4 and 5).
nomem_damaged_images() {
	local img blk
	base_image
	blk=$(debugfs -R "bmap f1 0" base.img 2>/dev/null)
	[ -n "$blk" ] || fail "could not read the base image"
	cp base.img dup.img
	debugfs -w -R "sif f2 block[5] $blk" dup.img >/dev/null 2>&1 || fail "debugfs dup.img"
	cp base.img dir.img
	printf '%s\n' "clri dir/f3" "unlink dir/sub" | debugfs -w -f - dir.img >/dev/null 2>&1 ||
		fail "debugfs dir.img"
	cp base.img cnt.img
	printf '%s\n' "sif f1 links_count 5" "ssv free_blocks_count 10" "set_bg 0 free_inodes_count 3" |
		debugfs -w -f - cnt.img >/dev/null 2>&1 || fail "debugfs cnt.img"
	for img in dup dir cnt; do
		run e2fsck -fn $img.img
		expect_rc 4 "oracle: e2fsck -fn finds $img.img damaged"
		cp $img.img e2.img
		e2fsck -fy e2.img >/dev/null 2>&1
		run e2fsck -fn e2.img
		expect_rc 0 "oracle: e2fsck -fy mends $img.img"
	done
	rm -f e2.img
}

# nomem_repairs "IMAGE MODE EXIT [OPTION...]"...: for each, check -f MODE on IMAGE exits EXIT
# (and with 1, e2fsck -fn finds the result clean); then tests/unit/nomem_cmds fails each
# allocation of the repair rounds (every one made with a function of lib/repair or the
# round's commit on the stack, from nm) and 15 of the others (and the last), alone and with every
# later one. Sets NOMEM_RUNS to the runs made.
nomem_repairs() {
	local nomem=$E4R_TOP_BUILDDIR/tests/unit/nomem_cmds c img mode want runs
	[ -x "$nomem" ] || fail "no $nomem: build with make check"
	# a sanitizer's allocator: nothing is injected, and its symbols are not ours to read
	"$nomem" check /nonexistent.img >/dev/null 2>&1
	[ $? -eq 77 ] && skip "allocation failures not injected in this build (a sanitizer's allocator)"
	command -v nm >/dev/null || skip "no nm (binutils): the repair rounds' code cannot be found"
	nm -S "$nomem" | awk 'NF == 4 && $4 ~ /^(repair_|round_|fsck_commit)/ { print $1, $2 }' > pcs.txt
	[ -s pcs.txt ] || fail "nm finds no repair code in $nomem"
	NOMEM_RUNS=0
	for c in "$@"; do
		set -- $c
		img=$1 mode=$2 want=$3; shift 3
		cp "$img" orig.img
		cp "$img" plain.img
		run "$E4R" check -f "$mode" "$@" plain.img
		expect_rc "$want" "check -f $mode $img"
		if [ "$want" = 1 ]; then
			run e2fsck -fn plain.img
			expect_rc 0 "oracle: check -f $mode mends $img"
		fi
		run env E2FSPROGS_FAKE_TIME=1700000000 "$nomem" --max-runs 15 --dense-pcs pcs.txt \
			check -f "$mode" "$@" "$img"
		[ "$RC" -eq 77 ] && skip "allocation failures not injected in this build (a sanitizer's allocator)"
		expect_rc 0 "$img $mode: every allocation failure exits 8 or as uninjected, a round whole or dropped"
		expect_out "$img: exit $want, [0-9]+ allocations, every [0-9]+-th failed \([0-9]+ runs\)" \
			"$img $mode: summary"
		# a repair that repairs had its round's allocations tried, every one
		[ "$want" != 1 ] || expect_out "$img: [1-9][0-9]* allocations made in the code" "$img $mode: the round's"
		runs=$(printf '%s\n' "$OUT" | sed -n 's/.*failed (\([0-9]*\) runs).*/\1/p')
		NOMEM_RUNS=$((NOMEM_RUNS + ${runs:-0}))
		cmp -s "$img" orig.img || fail "$img $mode: the helper changed its input"
	done
}
