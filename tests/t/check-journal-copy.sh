# Journal-assisted repair on images the kernel wrote: a loop mount, a workload
# (an htree directory of 60 files over several blocks, a file of 40 extents under an extent node,
# a file with a 600-byte attribute in an xattr block, a small tree), an unmount. Then the htree
# root, a leaf, an inode table block, the extent node and the xattr block are overwritten with
# seeded bytes; logdump --all --json must show that the journal still holds a copy of each. Oracles: the kernel (mounted read-only, every path with its
# inode number, blocks and contents, against the undamaged image) and e2fsck (-fy on the same
# damaged image loses names and files, and the attribute as debugfs ea_list shows it; -fn after
# check -y finds nothing, and debugfs ea_get reads the attribute back byte for byte). With the
# journal's copies spoiled, check finds what it finds without them (the usual repair).
. "$E4R_TESTS_SRCDIR/lib.sh"

need_kernel_mount
command -v setfattr > /dev/null || skip "setfattr (package attr) is missing"

# the attribute's value: 600 seeded bytes, too many for the inode, so it lives in a block
seeded_bytes xattr-value 600 > xattr.val
xattr_hex=0x$(od -An -v -tx1 xattr.val | tr -d ' \n')

mkimg base.img 16M -b 1024
mount -o loop base.img mnt || skip "the kernel refuses a read-write loop mount here"
mkdir -p mnt/d1 mnt/d2/sub
i=1
while [ $i -le 60 ]; do
	printf 'file %s\n' "$i" > "mnt/d1/file-with-a-long-name-$i"
	i=$((i + 1))
done
# every other block written: 40 extents, more than the inode holds, so an extent node
"$PY" -S -c '
import os, sys
fd = os.open(sys.argv[1], os.O_CREAT | os.O_WRONLY)
for i in range(40):
    os.pwrite(fd, bytes([65 + i % 26]) * 1024, i * 2048)
os.close(fd)' mnt/d2/frag || { umount mnt; fail "workload"; }
echo leaf > mnt/d2/sub/leaf
echo attrs > mnt/d2/attrs
setfattr -n user.big -v "$xattr_hex" mnt/d2/attrs || { umount mnt; fail "setfattr (the kernel refuses user xattrs?)"; }
ln -s ../d1/file-with-a-long-name-7 mnt/d2/link
umount mnt || fail "umount"

# the blocks to damage, as debugfs names them
rootblk=$(debugfs -R "blocks d1" base.img 2>/dev/null | awk '{ print $1 }')	# the htree root
dirblk=$(debugfs -R "blocks d1" base.img 2>/dev/null | awk '{ print $2 }')	# a leaf
itblk=$(debugfs -R "imap d1/file-with-a-long-name-5" base.img 2>/dev/null |
	sed -n 's/.*located at block \([0-9]*\),.*/\1/p')
etb=$(debugfs -R "stat d2/frag" base.img 2>/dev/null | sed -n 's/.*(ETB0):\([0-9]*\).*/\1/p')
eab=$(debugfs -R "stat d2/attrs" base.img 2>/dev/null | sed -n 's/.*File ACL: \([0-9]*\).*/\1/p')
[ -n "$rootblk" ] && [ -n "$dirblk" ] && [ "$rootblk" != "$dirblk" ] && [ -n "$itblk" ] && [ -n "$etb" ] &&
	[ -n "$eab" ] && [ "$eab" != 0 ] ||
	fail "debugfs did not name the blocks (dir '$dirblk', inode table '$itblk', extent node '$etb', xattr '$eab')"
note "damaging htree root $rootblk, directory block $dirblk, inode table block $itblk, extent node $etb, xattr block $eab"
# the attribute as debugfs reads it from the undamaged image: the value set
debugfs -R "ea_get -f base.val d2/attrs user.big" base.img > /dev/null 2>&1
cmp -s base.val xattr.val || fail "debugfs ea_get on the undamaged image does not give the value set"

"$E4R" logdump --all --json base.img > logdump.json || fail "logdump --all --json"


cat > held.py <<'PYEOF'
# Which of the blocks the journal holds a committed copy of whose checksums (if any) verify: "BLOCK JBLK" lines.
import json, sys
d = json.load(open(sys.argv[1]))
want = {int(b) for b in sys.argv[2:]}
for t in d["transactions"]:
    # (null: the journal has no checksums to verify)
    if not t.get("committed") or t.get("commit_csum_ok") is False:
        continue
    for b in t.get("blocks") or []:
        if b["fs_block"] in want and b.get("csum_ok") is not False:
            print(b["fs_block"], b["journal_block"])
PYEOF

"$PY" held.py logdump.json "$rootblk" "$dirblk" "$itblk" "$etb" "$eab" > held.txt || fail "held.py"
for b in "$rootblk" "$dirblk" "$itblk" "$etb" "$eab"; do
	grep -q "^$b " held.txt || fail "logdump --all shows no copy of block $b"
done

# every path with its inode, mode, size, links, blocks and contents (tests/fslisting.py)
tree() {
	mount -o loop,ro "$1" mnt || fail "mount $1"
	"$PY" "$E4R_TESTS_SRCDIR/fslisting.py" mnt "$1" > "$2"; local rc=$?
	umount mnt
	[ $rc = 0 ] || fail "fslisting.py $1"
}
tree base.img base.tree

damage() {
	cp base.img "$1"
	for b in "$rootblk" "$dirblk" "$itblk" "$etb" "$eab"; do
		seeded_bytes "block-$b" 1024 |
			dd of="$1" bs=1024 seek="$b" conv=notrunc status=none || fail "damage $b"
	done
}

# --- the journal's copies bring everything back --------------------------------------
damage dmg.img
run "$E4R" check -n -f --json dmg.img
expect_rc 4
printf '%s\n' "$OUT" > n.json
"$PY" -S -c '
import json, sys
d = json.load(open("n.json"))
got = {f["block"]: f["journal_copy"] for f in d["findings"] if f["problem"] == "journal_copy"}
want = {int(sys.argv[1]): "directory_block", int(sys.argv[2]): "inode_table_block",
        int(sys.argv[3]): "extent_node", int(sys.argv[4]): "directory_block",
        int(sys.argv[5]): "xattr_block"}
for b, kind in want.items():
    if b not in got or got[b]["restores"] != kind:
        sys.exit("no journal_copy finding restoring %s %d: %s" % (kind, b, got))
    if got[b]["live"]:
        sys.exit("block %d: an unmounted image has no live log" % b)
if got[int(sys.argv[1])]["entries"] < 1 or got[int(sys.argv[2])]["inodes"] < 1 or \
   got[int(sys.argv[3])]["extents"] != 40:
    sys.exit("what the copies bring back is wrong: %s" % got)
' "$dirblk" "$itblk" "$etb" "$rootblk" "$eab" || fail "check -n --json"

# diagnose --salvage: nothing damaged on the undamaged image (exit 0) ...
run "$E4R" diagnose --salvage --json base.img
expect_rc 0 "diagnose --salvage on the undamaged image"
# ... and the same three blocks, each with its usable copy
run "$E4R" diagnose --salvage --json dmg.img
expect_rc 1
printf '%s\n' "$OUT" > salvage.json
"$PY" -S -c '
import json, sys
d = json.load(open("salvage.json"))
got = {s["block"]: s for s in d["salvage"]}
for b in sys.argv[1:]:
    s = got.get(int(b))
    if not s or not s["usable"] or "journal_copy" not in s:
        sys.exit("diagnose --salvage: block %s has no usable copy listed: %s" % (b, d["salvage"]))
' "$rootblk" "$dirblk" "$itblk" "$etb" "$eab" || fail "diagnose --salvage"

# an xattr block copy whose refcount no longer matches the inodes naming the block is not
# offered: here a second inode (d2/sub/leaf) is made to name the damaged xattr block too
cp dmg.img shared.img
debugfs -w -R "set_inode_field d2/sub/leaf file_acl $eab" shared.img > /dev/null 2>&1 ||
	fail "debugfs set_inode_field"
run "$E4R" check -n -f --json shared.img
printf '%s\n' "$OUT" > shared.json
"$PY" -S -c '
import json, sys
d = json.load(open("shared.json"))
b = int(sys.argv[1])
named = {f.get("inode") for f in d["findings"] if f["problem"] == "ea_block" and f.get("block") == b}
if len(named) != 2:
    sys.exit("pass 1 did not find both inodes naming the damaged xattr block: %s" % named)
if any(f["problem"] == "journal_copy" and f["block"] == b for f in d["findings"]):
    sys.exit("a copy with refcount 1 was offered for a block two inodes name")
if not any(f["problem"] == "journal_copy" and f["block"] != b for f in d["findings"]):
    sys.exit("the other copies are no longer offered")
' "$eab" || fail "check -n with the xattr block named twice"

# -p uses only copies from the live log: here there is none, so nothing is restored
cp dmg.img preen.img
run "$E4R" check -p -f --json preen.img
printf '%s\n' "$OUT" > p.json
"$PY" -S -c '
import json
d = json.load(open("p.json"))
if any(f["problem"] == "journal_copy" and f["fixed"] for f in d["findings"]):
    raise SystemExit("check -p restored a copy from an old transaction")' || fail "check -p"

cp dmg.img e2.img
cp dmg.img ours.img
e2fsck -fy e2.img > e2fsck.log 2>&1
[ $? -le 2 ] || fail "e2fsck -fy: $(tail -n 3 e2fsck.log)"
run "$E4R" check -y -f --undo=ours.undo ours.img
[ "$RC" -le 2 ] || fail "check -y exit $RC"
run e2fsck -fn ours.img
expect_rc 0
tree e2.img e2.tree
tree ours.img ours.tree
lost=$(diff base.tree e2.tree | grep -c '^<')
[ "$lost" -gt 0 ] || fail "e2fsck -fy lost nothing: the damage shows nothing"
diff base.tree ours.tree > ours.diff || fail "check -y did not bring back every path, inode and contents: $(head -n 5 ours.diff)"
# the directory blocks, the extent node and the xattr block are back byte for byte
for b in "$rootblk" "$dirblk" "$etb" "$eab"; do
	cmp -s <(dd if=ours.img bs=1024 skip="$b" count=1 status=none) \
		<(dd if=base.img bs=1024 skip="$b" count=1 status=none) || fail "block $b is not the undamaged one"
done
note "e2fsck -fy lost or changed $lost of $(wc -l < base.tree) paths; check -y lost none"
# the attribute: e2fsck -fy drops it, check -y gives it back as it was set
e2ea=$(debugfs -R "ea_list d2/attrs" e2.img 2>&1) || fail "debugfs ea_list on e2fsck's result"
case $e2ea in *user.big*) fail "e2fsck -fy kept user.big: the damage shows nothing: $e2ea" ;; esac
rm -f ours.val
debugfs -R "ea_get -f ours.val d2/attrs user.big" ours.img > /dev/null 2>&1
cmp -s ours.val xattr.val || fail "check -y did not bring back user.big byte for byte"
note "e2fsck -fy lost user.big ($(wc -c < xattr.val) bytes) of d2/attrs; check -y brought it back"

# the undo file takes the restores back
run e2undo ours.undo ours.img
expect_rc 0
cmp -s ours.img dmg.img || fail "e2undo did not give back the damaged image"

# --- no usable copy: the usual repair ------------------------------------------------
damage nocopy.img
while read -r b j; do
	phys=$(debugfs -R "bmap <8> $j" nocopy.img 2>/dev/null)
	[ -n "$phys" ] || fail "debugfs bmap <8> $j"
	# four bytes inside the copy: its tag checksum fails
	printf '\377\377\377\377' | dd of=nocopy.img bs=1 seek=$((phys * 1024 + 100)) conv=notrunc status=none
done < held.txt
run "$E4R" check -n -f --json nocopy.img
printf '%s\n' "$OUT" > nocopy.json
# the same findings as with the copies, less the offers: the usual repair follows
"$PY" -S -c '
import json
def rows(p, drop):
    d = json.load(open(p))
    return [(f["problem"], f.get("inode"), f.get("block"), f.get("dir"), f.get("name"))
            for f in d["findings"] if f["problem"] not in drop]
a = rows("nocopy.json", ())
b = rows("n.json", ("journal_copy",))
if any(r[0] == "journal_copy" for r in a):
    raise SystemExit("a spoiled copy was offered")
if a != b:
    raise SystemExit("findings without a usable copy differ: %s" % [x for x in a + b if (x in a) != (x in b)][:5])
' || fail "check -n without a usable copy"
run "$E4R" diagnose --salvage --json nocopy.img
printf '%s\n' "$OUT" > n-salvage.json
"$PY" -S -c '
import json, sys
d = json.load(open("n-salvage.json"))
got = {s["block"]: s["usable"] for s in d["salvage"]}
for b in sys.argv[1:]:
    if got.get(int(b)) is not False:
        sys.exit("diagnose --salvage on spoiled copies: block %s: %s" % (b, d["salvage"]))
' "$rootblk" "$dirblk" "$itblk" "$etb" "$eab" || fail "diagnose --salvage (no copy)"
cp nocopy.img n-ours.img
run "$E4R" check -y -f n-ours.img
[ "$RC" -le 2 ] || fail "check -y (no copy) exit $RC"
case $OUT in *"journal holds a copy"*) fail "check -y offered a spoiled copy" ;; esac
run e2fsck -fn n-ours.img
expect_rc 0

# --- without metadata_csum: only the value damaged, the entry's hash says so -----------
mkimg nocsum.img 8M -b 1024 -O ^metadata_csum
mount -o loop nocsum.img mnt || fail "mount nocsum.img"
echo attrs > mnt/attrs
setfattr -n user.big -v "$xattr_hex" mnt/attrs || { umount mnt; fail "setfattr (no metadata_csum)"; }
umount mnt || fail "umount nocsum.img"
eab2=$(debugfs -R "stat attrs" nocsum.img 2>/dev/null | sed -n 's/.*File ACL: \([0-9]*\).*/\1/p')
[ -n "$eab2" ] && [ "$eab2" != 0 ] || fail "debugfs did not name the xattr block (no metadata_csum)"
"$E4R" logdump --all --json nocsum.img > logdump2.json || fail "logdump --all --json (no metadata_csum)"
"$PY" held.py logdump2.json "$eab2" | grep -q "^$eab2 " || fail "logdump --all shows no copy of xattr block $eab2"
# 16 seeded bytes in the middle of the value (the value fills the block's last 600 bytes)
cp nocsum.img nocsum-dmg.img
seeded_bytes value-damage 16 | dd of=nocsum-dmg.img bs=1 seek=$((eab2 * 1024 + 700)) conv=notrunc status=none
run "$E4R" check -n -f --json nocsum-dmg.img
expect_rc 4
printf '%s\n' "$OUT" > nocsum.json
"$PY" -S -c '
import json, sys
d = json.load(open("nocsum.json"))
b = int(sys.argv[1])
if not any(f["problem"] == "ea_entry_hash" and f.get("block") == b for f in d["findings"]):
    sys.exit("no ea_entry_hash finding for block %d" % b)
if not any(f["problem"] == "journal_copy" and f["block"] == b and
           f["journal_copy"]["restores"] == "xattr_block" for f in d["findings"]):
    sys.exit("no journal_copy finding restoring xattr block %d" % b)
' "$eab2" || fail "check -n (no metadata_csum)"
cp nocsum-dmg.img nocsum-e2.img
e2fsck -fy nocsum-e2.img > e2fsck2.log 2>&1
[ $? -le 2 ] || fail "e2fsck -fy (no metadata_csum): $(tail -n 3 e2fsck2.log)"
e2ea=$(debugfs -R "ea_list attrs" nocsum-e2.img 2>&1) || fail "debugfs ea_list (no metadata_csum)"
case $e2ea in *user.big*) fail "e2fsck -fy kept user.big with a wrong hash: $e2ea" ;; esac
run "$E4R" check -y -f nocsum-dmg.img
[ "$RC" -le 2 ] || fail "check -y (no metadata_csum) exit $RC"
run e2fsck -fn nocsum-dmg.img
expect_rc 0
rm -f nocsum.val
debugfs -R "ea_get -f nocsum.val attrs user.big" nocsum-dmg.img > /dev/null 2>&1
cmp -s nocsum.val xattr.val || fail "check -y did not bring back user.big (no metadata_csum)"
cmp -s <(dd if=nocsum-dmg.img bs=1024 skip="$eab2" count=1 status=none) \
	<(dd if=nocsum.img bs=1024 skip="$eab2" count=1 status=none) ||
	fail "check -y did not give back xattr block $eab2 as it was (no metadata_csum)"
note "no metadata_csum: 16 bytes of user.big's value damaged; e2fsck -fy lost it, check -y restored block $eab2"
exit 0
