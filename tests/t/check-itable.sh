# A group descriptor that puts the inode table where it cannot be:
# check -y -f points it back where the inodes are (the place mke2fs's layout or
# a backup descriptor gives), so every file is kept where e2fsck -fy gives the
# table new blocks and loses them; with no inodes to be found there it moves
# the table as e2fsck does. Either way e2fsck -fn (the oracle) finds the result
# clean, and no repair write trips the guard.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

# itable_of IMAGE GROUP: where dumpe2fs says group GROUP's inode table starts.
itable_of() {
	dumpe2fs "$1" 2>/dev/null | awk -v g="Group $2:" \
		'index($0, g) == 1 { on = 1 } on && /Inode table at/ { sub(/.*Inode table at /, ""); print $1 + 0; exit }'
}

# kept IMAGE: the files of populate() read back by debugfs equal what was written.
kept() {
	debugfs -R "dump f1 f1.out" "$1" >/dev/null 2>&1
	debugfs -R "dump dir/f3 f3.out" "$1" >/dev/null 2>&1
	cmp -s f1.out data1 && cmp -s f3.out data2 || fail "$2: the files are not kept"
	run debugfs -R "ls -p dir" "$1"
	expect_out "/sub/" "$2: dir/sub is kept"
	rm -f f1.out f3.out
}

# damage_and_repair "DEBUGFS COMMANDS" WHAT: base.img damaged into t.img (e2fsck must
# see the damage), then check -y -f on it, which must say it fixed something.
damage_and_repair() {
	cp base.img t.img
	printf '%s\n' "$1" | tr ';' '\n' | debugfs -w -f - t.img >/dev/null 2>&1 || fail "debugfs $1"
	run e2fsck -fn t.img
	[ "$RC" -ne 0 ] || fail "oracle: e2fsck -fn finds nothing after '$1'"
	run "$E4R" check -y -f t.img
	expect_rc 1 "check -y -f on $2"
}

# pointed_back "DEBUGFS COMMANDS" WHAT: the table is found where it was.
pointed_back() {
	local orig
	orig=$(itable_of base.img 0)
	damage_and_repair "$1" "$2"
	expect_out "inode table of group 0 at block [0-9]+ cannot be there; its inodes lie at block $orig," \
		"$2: the table is found at block $orig"
	expect_no_out "write over filesystem metadata" "$2: no write refused"
	run e2fsck -fn t.img
	expect_rc 0 "oracle: e2fsck -fn after check -y -f on $2"
	run "$E4R" check -n -f t.img
	expect_rc 0 "check -n -f after check -y -f on $2"
	[ "$(itable_of t.img 0)" = "$orig" ] || fail "$2: the descriptor does not point at block $orig"
	kept t.img "$2"
}

# moved "DEBUGFS COMMANDS" WHAT: no inodes where the table belongs (the root
# inode cleared there): the table gets new blocks, and e2fsck -fn is clean after.
moved() {
	damage_and_repair "$1" "$2"
	expect_out "moved to new blocks" "$2: the table is moved"
	expect_no_out "write over filesystem metadata" "$2: no write refused"
	run e2fsck -fn t.img
	expect_rc 0 "oracle: e2fsck -fn after check -y -f on $2"
	run "$E4R" check -n -f t.img
	expect_rc 0 "check -n -f after check -y -f on $2"
}

# One group, no flex_bg, 4 KiB blocks (no backup descriptor anywhere): the
# table follows the group's bitmaps.
mkimg base.img 16M -b 4096 -O ^flex_bg,^has_journal,^metadata_csum
populate base.img
run e2fsck -fn base.img
expect_rc 0 "oracle: e2fsck -fn on the one-group image"
[ "$(dumpe2fs base.img 2>/dev/null | grep -c '^Group [0-9]')" = 1 ] || fail "the image has more than one group"
bb=$(dumpe2fs base.img 2>/dev/null | sed -n 's/.*Block bitmap at \([0-9]*\).*/\1/p' | head -1)
pointed_back "set_bg 0 inode_table 0" "a table at block 0"
pointed_back "set_bg 0 inode_table 1" "a table over the descriptors"
pointed_back "set_bg 0 inode_table $bb" "a table at the block bitmap's block"
pointed_back "set_bg 0 inode_table 16777215" "a table past the end"
moved "clri <2>;set_bg 0 inode_table 0" "a table at block 0 and no root where it belongs"
# e2fsck's repair of the same damage keeps as many files (its zeroed table)
sed -n 's/.*: \([0-9]*\)\/[0-9]* files.*/\1/p' > ours.n <<EOF
$(e2fsck -fn t.img 2>&1)
EOF
cp base.img e.img
printf '%s\n' "clri <2>" "set_bg 0 inode_table 0" | debugfs -w -f - e.img >/dev/null 2>&1
e2fsck -fy e.img >/dev/null 2>&1
run e2fsck -fn e.img
expect_rc 0 "oracle: e2fsck -fn after e2fsck -fy on the moved table"
[ "$(printf '%s\n' "$OUT" | sed -n 's/.*: \([0-9]*\)\/[0-9]* files.*/\1/p')" = "$(cat ours.n)" ] ||
	fail "check -y -f and e2fsck -fy leave different numbers of files in use after a moved table"
moved "clri <2>;set_bg 0 inode_table 1" "a table over the descriptors and no root where it belongs"

# One group with flex_bg, metadata_csum and a journal: the table is packed after the
# bitmaps' flex slots; the inodes' checksums vouch for the place.
mkimg base.img 16M -b 4096
populate base.img
run e2fsck -fn base.img
expect_rc 0 "oracle: e2fsck -fn on the flex_bg image"
bb=$(dumpe2fs base.img 2>/dev/null | sed -n 's/.*Block bitmap at \([0-9]*\).*/\1/p' | head -1)
pointed_back "set_bg 0 inode_table 0;set_bg 0 checksum calc" "a flex_bg table at block 0"
pointed_back "set_bg 0 inode_table 1;set_bg 0 checksum calc" "a flex_bg table over the descriptors"
pointed_back "set_bg 0 inode_table $bb;set_bg 0 checksum calc" "a flex_bg table at the block bitmap's block"

# Sixteen groups, eight descriptors with their table at block 0 and every backup
# descriptor zeroed (e2fsck can fall back on none): each table is pointed back in a
# round of its own. Those rounds are not held to the limit of six checks, so the
# repairs settle; e2fsck -fy (which gives the tables new blocks, they are empty)
# and check -y -f then leave the same files, every one with its content.
mkimg base.img 16M -b 1024 -g 1024 -N 2048 -O ^flex_bg,^has_journal,^metadata_csum
seq 1 3000 > data
for i in $(seq 1 15); do echo "mkdir d$i"; echo "write data d$i/f"; done |
	debugfs -w -f - base.img >/dev/null 2>&1 || fail "debugfs populate the 16-group image"
run e2fsck -fn base.img
expect_rc 0 "oracle: e2fsck -fn on the 16-group image"
cp base.img t.img
for i in $(seq 1 8); do echo "set_bg $i inode_table 0"; done | debugfs -w -f - t.img >/dev/null 2>&1 ||
	fail "debugfs set_bg on the 16-group image"
for g in 1 3 5 7 9; do
	dd if=/dev/zero of=t.img bs=1024 seek=$((g * 1024 + 1)) count=2 conv=notrunc 2>/dev/null ||
		fail "zero group $g's backup superblock and descriptors"
done
cp t.img e.img
e2fsck -fy e.img >/dev/null 2>&1
run e2fsck -fn e.img
expect_rc 0 "oracle: e2fsck -fn after e2fsck -fy on eight tables at block 0"
e2files=$(printf '%s\n' "$OUT" | sed -n 's/.*: \([0-9]*\/[0-9]*\) files.*/\1/p')
run "$E4R" check -y -f t.img
expect_rc 1 "check -y -f on eight tables at block 0"
expect_no_out "did not settle" "the repairs of eight tables settle"
expect_no_out "write over filesystem metadata" "eight tables: no write refused"
run e2fsck -fn t.img
expect_rc 0 "oracle: e2fsck -fn after check -y -f on eight tables at block 0"
[ "$(printf '%s\n' "$OUT" | sed -n 's/.*: \([0-9]*\/[0-9]*\) files.*/\1/p')" = "$e2files" ] ||
	fail "eight tables: check -y -f and e2fsck -fy leave different files in use ($e2files for e2fsck)"
run "$E4R" check -n -f t.img
expect_rc 0 "check -n -f after check -y -f on eight tables at block 0"
for i in $(seq 1 15); do
	rm -f f.out
	debugfs -R "dump d$i/f f.out" t.img >/dev/null 2>&1
	cmp -s f.out data || fail "eight tables: d$i/f is not kept"
done
exit 0
