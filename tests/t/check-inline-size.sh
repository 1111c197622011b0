# An inline directory whose inline data (60 bytes of i_block plus the system.data value)
# is not a multiple of 4, or leaves too little past i_block for an entry, against e2fsck:
# e2fsck -fn names the size (and stops at the entry it cannot read, exit 12), check names
# it (exit 4); check -y gives the data the size e2fsck -fy gives it (cut to i_block or
# padded to 4 bytes), i_size with it.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

base_image -O inline_data
printf '%s\n' "mkdir idir" "mkdir idir/sub" | debugfs -w -f - base.img >/dev/null 2>&1 || fail "debugfs mkdir idir"
run debugfs -R "stat idir" base.img
expect_out "Flags: 0x10000000" "idir is an inline directory"
run e2fsck -fn base.img
expect_rc 0 "oracle: e2fsck -fn on the base with idir"

for n in 2 4 13; do
	seeded_bytes "value$n" "$n" > value
	cp base.img t.img
	debugfs -w -R "ea_set -f value idir system.data" t.img >/dev/null 2>&1 || fail "debugfs ea_set $n bytes"
	size=$((60 + n))
	judged_and_repaired t.img "$n bytes of system.data" \
		"Inline directory inode [0-9]+ size \($size\) must be a multiple of 4" \
		"inline directory inode [0-9]+ has $size bytes of entries"
	for what in "ea_list idir" "stat idir"; do
		a=$(debugfs -R "$what" t.img 2>/dev/null | grep -E "system.data|Size:")
		b=$(debugfs -R "$what" e2.img 2>/dev/null | grep -E "system.data|Size:")
		[ "$a" = "$b" ] || fail "$what after check -y: '$a', after e2fsck -fy: '$b'"
	done
	run debugfs -R "ls idir" t.img
	expect_out "sub" "idir keeps its entry"
done
exit 0
