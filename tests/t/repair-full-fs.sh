# A filesystem full to its last block, or to its last inode, repaired as e2fsck repairs it
# where a repair needs a block or an inode and none is free. Each case is damaged with
# debugfs, then one copy goes to e2fsck -fy (the oracle) and another to check -y -f, and
# the two are compared: exit codes, e2fsck -fn on each, and the files kept (name, inode,
# type and size of every entry, as debugfs lists them).
#  - three files share a block, no block free: e2fsck's pass 1D takes them in inode order;
#    the lowest's clone finds no block, it is deleted ("Delete file? yes", dup_clone_failed
#    here), the next is cloned into the block that deletion freed, the highest keeps the
#    shared block. Both tools keep the same files on the same blocks.
#  - the same three with inodes full (blocks free): both clone the two lower ones.
#  - lost+found removed and a file left without an entry, no block (or no inode) for a
#    new lost+found: e2fsck offers the root instead, then fails to reconnect anything (its
#    get_lost_and_found returns 0 after choosing the root) and ends with errors left
#    (exit 4, e2fsck -fn 4). check puts both into the root and ends clean (exit 1, e2fsck
#    -fn 0): documented as better, asserted as it is.
#  - a one-block lost+found and 120 files left without their directory, no block to grow
#    it: both reconnect as many as it holds and exit 4; e2fsck zeroes the others' link
#    counts (its next run frees them), check leaves them unattached.
#  - the journal inode cleared: when the freed journal blocks are all there is, both
#    remove the journal and make it anew; when other files took them, e2fsck's new journal
#    fails half made (e2fsck -fn then finds a bad inode 8), check leaves the filesystem
#    without a journal, clean, and says so.
#  - the resize inode cleared, its block taken: both fail to make it again and end with the
#    same filesystem, clean; e2fsck exits 1 (it answered "Recreate? yes" and rewrote the
#    zeroed inode), check 0 (nothing changed: the inode was zero already).
. "$E4R_TESTS_SRCDIR/check_lib.sh"

seeded_bytes a 2048 > a.dat
seeded_bytes b 1024 > b.dat
seeded_bytes c 1024 > c.dat

# fill IMAGE blocks|inodes: IMAGE (made by mkimg) gets /a (2 blocks), /b, /c, /d/e (one
# each), then files until no block, or no inode, is free.
fill() {
	local img=$1 free i
	printf '%s\n' "write a.dat a" "write b.dat b" "write c.dat c" "mkdir d" "write b.dat d/e" |
		debugfs -w -f - "$img" >/dev/null 2>&1 || fail "debugfs populate $img"
	if [ "$2" = blocks ]; then
		free=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Free blocks: *//p')
		seeded_bytes fill $((free * 1024)) > fill.dat
		debugfs -w -R "write fill.dat fill" "$img" >/dev/null 2>&1 || fail "debugfs write fill"
		[ "$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Free blocks: *//p')" = 0 ] ||
			fail "$img: blocks left free"
	else
		free=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Free inodes: *//p')
		i=0
		while [ $i -lt "$free" ]; do echo "write /dev/null n$i"; i=$((i + 1)); done |
			debugfs -w -f - "$img" >/dev/null 2>&1 || fail "debugfs empty files"
		[ "$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Free inodes: *//p')" = 0 ] ||
			fail "$img: inodes left free"
	fi
	run e2fsck -fn "$img"
	expect_rc 0 "oracle: e2fsck -fn on the full $img"
}

# listing IMAGE: every entry of /, /d and /lost+found: path, inode, mode, size.
listing() {
	local d
	for d in / /d /lost+found; do
		debugfs -R "ls -p $d" "$1" 2>/dev/null |
			awk -F/ -v d="$d" 'NF > 5 && $6 != "." && $6 != ".." && $2 != 0 {
				sub(/\/$/, "", d); print d "/" $6, $2, $3, $7 }'
	done
}

# both BASE "DEBUGFS COMMANDS" E2FSCK-RC OUR-RC E2FSCK-AFTER OUR-AFTER [SEEN-RC]: BASE damaged
# (e2fsck -fn then exits SEEN-RC, default 4), then
# e2fsck -fy on e.img and check -y -f on o.img, each exiting as said, and e2fsck -fn on
# each afterwards exiting as said. EOUT and YOUT (and OUT) keep what each printed.
both() {
	cp "$1" dmg.img
	printf '%s\n' "$2" | tr ';' '\n' | debugfs -w -f - dmg.img >/dev/null 2>&1 || fail "debugfs $2"
	run e2fsck -fn dmg.img
	expect_rc "${7:-4}" "oracle: e2fsck -fn sees '$2'"
	cp dmg.img e.img
	cp dmg.img o.img
	run e2fsck -fy e.img
	expect_rc "$3" "oracle: e2fsck -fy on '$2'"
	EOUT=$OUT
	run "$E4R" check -y -f o.img
	expect_rc "$4" "check -y -f on '$2'"
	YOUT=$OUT
	run e2fsck -fn e.img
	expect_rc "$5" "oracle: e2fsck -fn after e2fsck -fy on '$2'"
	run e2fsck -fn o.img
	expect_rc "$6" "oracle: e2fsck -fn after check -y -f on '$2'"
	OUT=$YOUT	# expect_out reads check's report
}

# same_files WHAT: e.img and o.img list the same entries.
same_files() {
	listing e.img > e.ls
	listing o.img > o.ls
	[ -s e.ls ] || fail "$1: no entries listed"
	cmp -s e.ls o.ls || fail "$1: the files kept differ (e2fsck < > check): $(diff e.ls o.ls | tr '\n' ' ')"
}

# ---- shared blocks ----
mkimg full.img 2M -b 1024 -N 32 -O ^has_journal
fill full.img blocks
x=$(debugfs -R "bmap a 0" full.img 2>/dev/null)
y=$(debugfs -R "bmap a 1" full.img 2>/dev/null)
ob=$(debugfs -R "bmap b 0" full.img 2>/dev/null)
oc=$(debugfs -R "bmap c 0" full.img 2>/dev/null)
# /b and /c pointed at /a's first block; the two blocks they leave taken again by two
# new files, so that no block is free for e2fsck either (it allocates from what pass 1
# found in use, not from the bitmap)
both full.img "sif b block[5] $x;sif c block[5] $x;freeb $ob;freeb $oc;write b.dat z1;write c.dat z2;set_bg 0 free_blocks_count 0;set_bg 0 checksum calc;ssv free_blocks_count 0" 1 1 0 0
printf '%s\n' "$EOUT" | grep -q "Couldn't clone file" || fail "oracle: e2fsck's clone did not fail: $EOUT"
printf '%s\n' "$EOUT" | grep -q "Delete file? yes" || fail "oracle: e2fsck deleted no file"
expect_out "inode 12: its multiply-claimed blocks could not be cloned" "check -y -f says the clone of /a failed"
expect_out "Delete file\\? yes" "check -y -f says it deletes /a"
same_files "shared blocks, no block free"
for i in e o; do
	[ "$(debugfs -R "bmap b 0" $i.img 2>/dev/null)" = "$y" ] || fail "$i.img: /b not cloned into /a's freed block $y"
	[ "$(debugfs -R "bmap c 0" $i.img 2>/dev/null)" = "$x" ] || fail "$i.img: /c (the highest) does not keep block $x"
	debugfs -R "dump b $i.b" $i.img >/dev/null 2>&1
	head -c 1024 a.dat | cmp -s - $i.b || fail "$i.img: /b does not hold the block it shared"
done
grep -q "^/a " o.ls && fail "check kept /a, e2fsck deleted it"
cp dmg.img j.img
json=$("$E4R" check -y -f --json j.img 2>/dev/null)
printf '%s\n' "$json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
f = [f for f in d["findings"] if f["problem"] == "dup_clone_failed"]
assert len(f) == 1 and f[0]["inode"] == 12 and f[0]["fixed"] is True, f
' || fail "--json does not list the deleted file as dup_clone_failed: $json"
note "shared blocks, full: /a deleted, /b cloned into block $y, /c keeps $x (as e2fsck)"

# the same sharing with blocks free and no inode: the two lower inodes get the copies
mkimg fulli.img 2M -b 1024 -N 32 -O ^has_journal
fill fulli.img inodes
x=$(debugfs -R "bmap a 0" fulli.img 2>/dev/null)
both fulli.img "sif b block[5] $x;sif c block[5] $x" 1 1 0 0
same_files "shared blocks, no inode free"
for i in e o; do
	[ "$(debugfs -R "bmap c 0" $i.img 2>/dev/null)" = "$x" ] || fail "$i.img: /c (the highest) does not keep block $x"
	[ "$(debugfs -R "bmap a 0" $i.img 2>/dev/null)" != "$x" ] || fail "$i.img: /a was not cloned"
	[ "$(debugfs -R "bmap b 0" $i.img 2>/dev/null)" != "$x" ] || fail "$i.img: /b was not cloned"
done

# ---- lost+found that cannot be made ----
for kind in blocks inodes; do
	[ $kind = blocks ] && img=full.img || img=fulli.img
	e=$(debugfs -R "stat d/e" $img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
	both $img "unlink lost+found;unlink d/e" 4 1 4 0
	printf '%s\n' "$EOUT" | grep -q "Cannot allocate space for /lost+found" ||
		fail "oracle: e2fsck found room for lost+found ($kind)"
	expect_out "no room to make /lost\\+found" "check says lost+found cannot be made ($kind)"
	listing o.img > o.ls
	grep -q "^/#$e $e " o.ls || fail "check did not put inode $e into the root ($kind): $(cat o.ls)"
	grep -q "^/#11 11 " o.ls || fail "check did not put the old lost+found into the root ($kind)"
	note "no $kind for lost+found: e2fsck exit 4 (-fn 4), check puts the lost files in the root (-fn 0)"
done

# ---- lost+found that cannot grow ----
# a one-block lost+found, /d's 120 files lose their directory (its blocks taken again):
# both reconnect as many as the block holds and leave the rest (exit 4, -fn 4); e2fsck
# sets the rest's link counts to 0 (its next run frees them), check leaves them as they
# were, unattached, for a run with room.
mkimg fulll.img 2M -b 1024 -N 256 -O ^has_journal
{ echo "rmdir lost+found"; echo "mkdir lost+found"; echo "mkdir d"
  i=0; while [ $i -lt 120 ]; do echo "write b.dat d/f$i"; i=$((i + 1)); done; } |
	debugfs -w -f - fulll.img >/dev/null 2>&1 || fail "debugfs /d"
free=$(dumpe2fs -h fulll.img 2>/dev/null | sed -n 's/^Free blocks: *//p')
seeded_bytes fill $((free * 1024)) > fill.dat
debugfs -w -R "write fill.dat fill" fulll.img >/dev/null 2>&1 || fail "debugfs write fill"
set -- $(debugfs -R "blocks d" fulll.img 2>/dev/null)
seeded_bytes dd $(($# * 1024)) > dd.dat
both fulll.img "clri d;$(for b; do printf 'freeb %s;' "$b"; done)write dd.dat dd;set_bg 0 free_blocks_count 0;set_bg 0 checksum calc;ssv free_blocks_count 0" 4 4 4 4
printf '%s\n' "$EOUT" | grep -q "Could not expand /lost+found" || fail "oracle: e2fsck expanded lost+found"
listing e.img | grep -c "^/lost+found/#" > e.n
listing o.img | grep -c "^/lost+found/#" > o.n
cmp -s e.n o.n || fail "e2fsck reconnected $(cat e.n) files, check $(cat o.n)"
run e2fsck -fn o.img
expect_out "^Unattached inode" "oracle: the files check could not reconnect are left unattached"
note "lost+found full: both reconnect $(cat o.n) of 120 files and exit 4"

# ---- the journal inode ----
mkimg fullj.img 4M -b 1024 -N 32 -J size=1
fill fullj.img blocks
both fullj.img "clri <8>" 1 1 0 0 12
same_files "journal cleared"
for i in e o; do
	dumpe2fs -h $i.img 2>/dev/null | grep -q "^Filesystem features:.*has_journal" ||
		fail "$i.img: the journal was not made anew"
done
# its blocks taken by another file: e2fsck's new journal fails half made
jb=$(debugfs -R "bmap <8> 24" fullj.img 2>/dev/null)
[ -n "$jb" ] && [ "$(debugfs -R "bmap <8> 1023" fullj.img 2>/dev/null)" = $((jb + 999)) ] ||
	fail "the journal's last 1000 blocks are not in one run"
seeded_bytes f2 $((1000 * 1024)) > f2.dat
both fullj.img "clri <8>;freeb $jb 1000;write f2.dat f2;set_bg 0 free_blocks_count 0;set_bg 0 checksum calc;ssv free_blocks_count 0" 1 1 4 0 12
printf '%s\n' "$EOUT" | grep -q "while trying to create journal" || fail "oracle: e2fsck made the journal"
expect_out "could not be made anew" "check says the journal was not made again"
dumpe2fs -h o.img 2>/dev/null | grep -q "^Filesystem features:.*has_journal" && fail "o.img has a journal"
same_files "journal cleared, its blocks taken"

# ---- the resize inode ----
mkimg fullr.img 4M -b 1024 -N 32 -O ^has_journal
fill fullr.img blocks
rb=$(debugfs -R "stat <7>" fullr.img 2>/dev/null | sed -n 's/^(DIND):\([0-9]*\).*/\1/p')
[ -n "$rb" ] || fail "no resize inode"
both fullr.img "clri <7>;freeb $rb;write b.dat z;set_bg 0 free_blocks_count 0;set_bg 0 checksum calc;ssv free_blocks_count 0" 1 0 0 0 0
printf '%s\n' "$EOUT" | grep -q "Resize inode (re)creation failed" || fail "oracle: e2fsck made the resize inode"
expect_out "resize inode \\(inode 7\\) is not valid" "check names the resize inode"
same_files "resize inode cleared, its block taken"
exit 0
