# An htree root whose '.' record length alone is damaged (one flipped bit), on a
# filesystem with metadata_csum and no journal, so that no journal copy can mend it:
# e2fsck -fn sees the damage; check -y must mend the root in place, keeping every
# name and the index (e2fsck splits '.' and rebuilds the directory in pass 3A).
# Oracles: e2fsck -fn clean after, debugfs's listing equal to the one before, and
# debugfs's htree dump still reading a root.
. "$E4R_TESTS_SRCDIR/lib.sh"

mkimg d.img 16M -b 4096 -O ^has_journal,metadata_csum
{ echo "mkdir /dir"; echo "cd /dir"; for i in $(seq 1 600); do echo "write /dev/null f$i"; done; } |
	debugfs -w -f - d.img >/dev/null 2>&1 || fail "debugfs populate"
run e2fsck -fyD d.img
[ "$RC" -le 1 ] || fail "e2fsck -fyD d.img: exit $RC"
debugfs -R "htree /dir" d.img 2>/dev/null | grep -q "Root node dump" || fail "oracle: /dir is not indexed"
debugfs -R "ls /dir" d.img 2>/dev/null | tr -s ' \n' '\n' | grep -c '^f[0-9]' > names.before
[ "$(cat names.before)" = 600 ] || fail "debugfs lists $(cat names.before) names, not 600"
blk=$(debugfs -R "bmap /dir 0" d.img 2>/dev/null)
[ -n "$blk" ] || fail "no block 0 of /dir"
# '.' is the first entry: its rec_len at byte 4, 12 becomes 76
flip d.img $((blk * 4096 + 4)) 6
cp d.img e2.img
run e2fsck -fn e2.img
# (4, or 12: e2fsck -n stops where its split of '.' would have to write)
[ "$RC" -eq 4 ] || [ "$RC" -eq 12 ] || fail "oracle: e2fsck -fn does not see the damaged root (exit $RC)"

run "$E4R" check -fy d.img
expect_rc 1 "check -fy mends the root"
run e2fsck -fn d.img
expect_rc 0 "oracle: e2fsck -fn clean after check -fy"
debugfs -R "ls /dir" d.img 2>/dev/null | tr -s ' \n' '\n' | grep -c '^f[0-9]' > names.after
cmp -s names.before names.after || fail "names before $(cat names.before), after $(cat names.after)"
debugfs -R "htree /dir" d.img > htree.out 2>&1
grep -q "Root node dump" htree.out && ! grep -q "while" htree.out || fail "the index is gone: $(tail -n 1 htree.out)"
