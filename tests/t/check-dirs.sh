# check names directory damage by directory, entry name and inode as e2fsck -fn
# does: a dangling entry, an unattached inode, a wrong link count, an unconnected
# directory, a directory block with a bad checksum.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

base_image
ino() { debugfs -R "stat $1" base.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p'; }
i1=$(ino f1); i2=$(ino f2); idir=$(ino dir); isub=$(ino dir/sub)
[ -n "$i1" ] && [ -n "$i2" ] && [ -n "$idir" ] && [ -n "$isub" ] || fail "could not read the base image"

# The inode cleared, its entry left behind.
damage "clri f2" "Entry 'f2' in / \(2\) has deleted/unused inode $i2" \
	"entry 'f2' in directory inode 2 points to deleted or unused inode $i2"
# The entry removed, the inode left in use.
damage "unlink f2" "Unattached inode $i2" "unattached inode $i2"
# A wrong link count.
damage "sif f1 links_count 5" "Inode $i1 ref count is 5, should be 1" "inode $i1 ref count is 5, should be 1"
# A directory whose entry was removed: unconnected, and its parent's count is off.
damage "unlink dir/sub" "Unconnected directory inode $isub" "directory inode $isub is not connected to the root"
expect_out "inode $isub ref count is 2, should be 1" "the orphaned directory's count"
# An empty file turned into a character device by its mode: the entry still says
# regular file, and the inode keeps its extents flag (illegal for a device).
: > empty
debugfs -w -R "write empty e" base.img >/dev/null 2>&1 || fail "debugfs write e"
ie=$(ino e)
damage "sif e mode 020644" "Entry 'e' in / \(2\) has an incorrect filetype \(was 1," \
	"entry 'e' in directory inode 2 \(inode $ie\) has file type 1, should be 3"
expect_out "special \(device/socket/fifo\) inode $ie" "the device inode itself"

# A flipped bit in the root directory's checksum tail.
cp base.img t.img
rblk=$(debugfs -R "bmap <2> 0" t.img 2>/dev/null)
bs=$(dumpe2fs -h t.img 2>/dev/null | sed -n 's/^Block size: *//p')
flip t.img $((rblk * bs + bs - 1)) 0
run e2fsck -fn t.img
expect_rc 4 "oracle: e2fsck -fn on a bad directory checksum"
expect_out "Directory inode 2, block #0: directory passes checks but fails checksum" "oracle names the block"
run "$E4R" check -n -f t.img
expect_rc 4 "check -n -f on a bad directory checksum"
expect_out "directory inode 2 block $rblk \(logical 0\) checksum does not match" "check names the block"

# An htree directory (e2fsck -D indexes it) whose root gives a leaf the wrong hash range.
cp base.img h.img
{ echo "mkdir big"; for i in $(seq 1 12); do echo "expand_dir big"; done; for i in $(seq 1 300); do echo "ln f1 big/a-rather-long-name-$i"; done; } > cmds
debugfs -w -f cmds h.img >/dev/null 2>&1 || fail "debugfs ln"
e2fsck -fyD h.img >/dev/null 2>&1
run e2fsck -fn h.img
expect_rc 0 "oracle: the indexed directory is clean"
run "$E4R" check -n -f h.img
expect_rc 0 "check -n -f on a clean htree directory"
ibig=$(debugfs -R "stat big" h.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')

# Link counts past what half a byte holds (check keeps those apart from the small
# ones): f1 has 301 names in h.img; a directory with 300 subdirectories has 302
# links, each subdirectory 2. Each count set wrong, on either side of 15, is named
# with the values e2fsck gives, and check -y -f leaves the image clean for e2fsck.
cp h.img L.img
{ echo "mkdir wide"; for i in $(seq 1 300); do echo "mkdir wide/s$i"; done; } > cmds
debugfs -w -f cmds L.img >/dev/null 2>&1 || fail "debugfs mkdir wide"
both_clean L.img "the image with large link counts"
iwide=$(inode_of L.img wide); is1=$(inode_of L.img wide/s1)
for c in "f1 300 $i1 301" "f1 2 $i1 301" "f1 4000 $i1 301" "wide 301 $iwide 302" "wide 7 $iwide 302" \
	"wide/s1 15 $is1 2" "wide/s1 300 $is1 2"; do
	set -- $c
	cp L.img l.img
	debugfs -w -R "sif $1 links_count $2" l.img >/dev/null 2>&1 || fail "debugfs sif $1"
	run e2fsck -fn l.img
	expect_rc 4 "oracle: e2fsck -fn on $1's count set to $2"
	expect_out "Inode $3 ref count is $2, should be $4" "oracle names $1's count"
	run "$E4R" check -n -f l.img
	expect_rc 4 "check -n -f on $1's count set to $2"
	expect_out "inode $3 ref count is $2, should be $4" "check names $1's count ($2, should be $4)"
	repaired_image l.img "$1's count set to $2"
done
leaf=$(debugfs -R "htree big" h.img 2>/dev/null | sed -n 's/^Entry #1: Hash 0x[0-9a-f]*, block \([0-9]*\)$/\1/p' | head -1)
[ -n "$leaf" ] || fail "debugfs htree: no second index entry"
root=$(debugfs -R "bmap big 0" h.img 2>/dev/null)
python3 - "$((root * bs + 40))" h.img <<'PY' || fail "editing the htree root"
import struct, sys
off, path = int(sys.argv[1]), sys.argv[2]
with open(path, "r+b") as f:
    f.seek(off); h = struct.unpack("<I", f.read(4))[0]
    f.seek(off); f.write(struct.pack("<I", (h + 0x08000000) & 0xfffffffe))
PY
run e2fsck -fn h.img
expect_rc 4 "oracle: e2fsck -fn on a bad htree hash range"
expect_out "Problem in HTREE directory inode $ibig: block #$leaf has bad min hash" "oracle names the leaf"
run "$E4R" check -n -f h.img
expect_rc 4 "check -n -f on a bad htree hash range"
expect_out "in htree directory inode $ibig, logical block $leaf \(block [0-9]+\), has hash" "check names the leaf"

# Damages of h.img's htree root with its checksum resealed, so that only the index is
# wrong: check -n -f must name what e2fsck -fn finds, and check -y -f must leave the
# image clean for e2fsck (a dropped index under metadata_csum once left '..' corrupt).
poke() {	# poke IMAGE OFFSET SIZE VALUE: a little-endian field
	python3 - "$@" <<'PY' || fail "poke $*"
import sys
path, off, size, val = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4], 0)
with open(path, "r+b") as f:
    f.seek(off); f.write(val.to_bytes(size, "little"))
PY
}
peek() {	# peek IMAGE OFFSET SIZE
	python3 -c 'import sys; f = open(sys.argv[1], "rb"); f.seek(int(sys.argv[2])); print(int.from_bytes(f.read(int(sys.argv[3])), "little"))' "$@"
}
# IMAGE's directory block BLK of inode INO, damaged by the caller, resealed so that only
# the damage is wrong: e2fsck -fn and check -n -f must both find it and name it, and
# check -y -f must leave the image clean for e2fsck (repaired_image). IMAGE.damaged keeps
# the damaged image, for comparisons with e2fsck -fy.
judge_dir_damage() {	# IMAGE BLK INO WHAT E2FSCK-REGEX OUR-REGEX
	local img=$1 what=$4
	"$E4R_FSMETA" reseal "$img" "dir:$2:$3" >/dev/null 2>&1 || fail "fsmeta reseal for $what"
	cp "$img" "$img.damaged"
	run e2fsck -fn "$img"
	expect_rc 4 "oracle: e2fsck -fn on $what"
	expect_out "$5" "oracle names $what"
	run "$E4R" check -n -f "$img"
	expect_rc 4 "check -n -f on $what"
	expect_out "$6" "check -n -f names $what"
	repaired_image "$img" "$what"
}
dxcase() {	# dxcase WHAT ROOT-OFFSET SIZE VALUE E2FSCK-REGEX OUR-REGEX
	cp h.img d.img
	poke d.img $((root * bs + $2)) "$3" "$4"
	judge_dir_damage d.img "$root" "$ibig" "$1" "$5" "$6"
}
# The root's count/limit at 32 (in place of entry 0's hash), entry K's hash and block at 32 + 8K.
limit=$(peek h.img $((root * bs + 32)) 2); count=$(peek h.img $((root * bs + 34)) 2)
leaf1=$(peek h.img $((root * bs + 44)) 4); hash2=$(peek h.img $((root * bs + 48)) 4)
[ "$count" -ge 4 ] || fail "the htree root has $count entries, the cases need 4"
dxcase "a root entry past the directory" 44 4 0x0ffffff0 \
	"bad block number 268435440" "points to logical block 268435440, past the directory"
dxcase "a root entry naming another leaf" 52 4 "$leaf1" \
	"block #$leaf1 referenced twice" "logical block $leaf1 \(block [0-9]+\) is referenced twice"
dxcase "a root count over its limit" 34 2 $((limit + 1)) \
	"invalid count \($((limit + 1))\)" "has count $((limit + 1)), more than its limit $limit"
dxcase "a root limit one short" 32 2 $((limit - 1)) \
	"invalid limit \($((limit - 1))\)" "has limit $((limit - 1)), should be $limit"
dxcase "root hashes out of order" 56 4 $((hash2 - 2)) \
	"unordered hash table" "are out of order at entry 3"
dxcase "an unknown hash version" 28 1 3 \
	"unsupported hash version \(3\)" "unsupported hash version \(3\)"
dxcase "the incompatible hash flag" 31 1 1 \
	"incompatible htree root node flag" "incompatible flag set"
dxcase "a bad htree root" 24 4 1 "invalid root node" "has a bad htree root"

# '..' is an entry like any other: its file type must say directory.
cp base.img p.img
dblk=$(debugfs -R "bmap dir 0" p.img 2>/dev/null)
poke p.img $((dblk * bs + 12 + 7)) 1 1
judge_dir_damage p.img "$dblk" "$idir" "a '..' of file type 1" \
	"Entry '..' in /dir \($idir\) has an incorrect filetype \(was 1, should be 2\)" \
	"entry '..' in directory inode $idir \(inode 2\) has file type 1, should be 2"

# An entry whose file type is unset: e2fsck -n is silent (-y would set it), so a warning.
cp base.img p.img
rblk=$(debugfs -R "bmap <2> 0" p.img 2>/dev/null)
off=$(python3 - p.img $((rblk * bs)) "$bs" <<'PY'
import sys
f = open(sys.argv[1], "rb"); f.seek(int(sys.argv[2])); b = f.read(int(sys.argv[3])); o = 0
while o < len(b):
    rec, nl = int.from_bytes(b[o + 4:o + 6], "little"), b[o + 6]
    if b[o + 8:o + 8 + nl] == b"f1":
        print(o); break
    o += rec
PY
)
[ -n "$off" ] || fail "no entry f1 in the root"
poke p.img $((rblk * bs + off + 7)) 1 0
"$E4R_FSMETA" reseal p.img "dir:$rblk:2" >/dev/null 2>&1 || fail "fsmeta reseal of the root"
run e2fsck -fn p.img
expect_rc 0 "oracle: e2fsck -fn on an unset file type"
run "$E4R" check -n -f p.img
expect_rc 0 "check -n -f on an unset file type (a warning)"
expect_out "entry 'f1' in directory inode 2 \(inode $i1\) has no file type, should be 1" "check names the entry"
run "$E4R" check -y -f p.img
[ "$(peek p.img $((rblk * bs + off + 7)) 1)" = 1 ] || fail "check -y -f did not set f1's file type"
run e2fsck -fn p.img
expect_rc 0 "oracle: e2fsck -fn after check -y -f on an unset file type"

# Two entries of one block with the same name: e2fsck -n finds them; e2fsck -y and
# check -y -f rename the second (twin-a~0), which keeps its file in the directory.
cp base.img p.img
printf '%s\n' "write data2 dir/twin-a" "write data2 dir/twin-b" | debugfs -w -f - p.img >/dev/null 2>&1 ||
	fail "debugfs write twins"
itb=$(debugfs -R "stat dir/twin-b" p.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
python3 - p.img $((dblk * bs)) "$bs" <<'PY' || fail "renaming twin-b"
import sys
path, off, bs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path, "r+b") as f:
    f.seek(off); b = bytearray(f.read(bs)); i = b.find(b"twin-b")
    if i < 0:
        sys.exit(1)
    b[i + 5] = ord("a"); f.seek(off); f.write(b)
PY
judge_dir_damage p.img "$dblk" "$idir" "a duplicate name" "Duplicate entry 'twin-a' found" \
	"entry 'twin-a' \(inode $itb\) in directory inode $idir has the name of an entry before it"
cp p.img.damaged pe.img
e2fsck -fy pe.img >/dev/null 2>&1
for img in pe.img p.img; do
	debugfs -R "ls -l dir" $img 2>/dev/null | awk -v i="$itb" '$1 == i {print $NF}' > $img.twin
done
[ -s pe.img.twin ] || fail "oracle: e2fsck -fy no longer keeps twin-b's inode in dir"
cmp -s pe.img.twin p.img.twin || fail "twin-b's inode is named '$(cat p.img.twin)' in dir, e2fsck names it '$(cat pe.img.twin)'"
# A directory with an entry naming itself, read before the directory that holds
# it (a lower inode, its blocks first): the entry is a link to '.', as e2fsck
# says, not the directory's parent; the entry in its real parent is its one
# link. check -y -f keeps that one, as e2fsck -fy does, and leaves it clean.
mkimg s.img 4M -b 1024
printf '%s\n' "mkdir a" "mkdir b" "link a b/a" "unlink a" "link b/a b/a/self" > cmds
debugfs -w -f cmds s.img >/dev/null 2>&1 || fail "debugfs self link"
isa=$(debugfs -R "stat b/a" s.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
[ -n "$isa" ] || fail "could not read b/a's inode"
run e2fsck -fn s.img
expect_rc 4 "oracle: e2fsck -fn on a link to '.'"
expect_out "Entry 'self' in .* \($isa\) is a link to '\.'" "oracle names the self link"
run "$E4R" check -n -f s.img
expect_rc 4 "check -n -f on a link to '.'"
expect_out "entry 'self' in directory inode $isa is a link to directory inode $isa" "check names the self link"
cp s.img se.img
e2fsck -fy se.img >/dev/null 2>&1
run "$E4R" check -y -f s.img
expect_rc 1 "check -y -f on a link to '.'"
run e2fsck -fn s.img
expect_rc 0 "e2fsck -fn after check -y -f on a link to '.'"
for img in se.img s.img; do debugfs -R "ls b" $img 2>/dev/null | grep -o "$isa  *([0-9]*) a " > $img.kept; done
[ -s se.img.kept ] || fail "oracle: e2fsck -fy no longer keeps b/a"
[ -s s.img.kept ] || fail "check -y -f dropped b/a, which e2fsck -fy keeps"
# lost+found made on an inline_data filesystem whose superblock says revision 0
# (inodes of 128 bytes, which check leaves): inline, it had no room for its
# system.data attribute, and each new check took it apart and made it again.
# Made with a block, the repairs settle, and e2fsck -fn finds the result clean.
mkimg r.img 4M -b 1024 -O inline_data
printf '%s\n' "rmdir lost+found" "ssv rev_level 0" > cmds
debugfs -w -f cmds r.img >/dev/null 2>&1 || fail "debugfs rev 0"
run "$E4R" check -y -f r.img
expect_rc 1 "check -y -f makes lost+found on a revision 0 inline_data filesystem"
expect_no_out "did not settle" "the repairs settle"
run "$E4R" check -n -f r.img
expect_rc 0 "check -n -f after it"
run e2fsck -fn r.img
expect_rc 0 "e2fsck -fn after it"
debugfs -R "stat lost+found" r.img 2>/dev/null | grep -q "^Inode: .*Type: directory" ||
	fail "no lost+found after check -y -f"
exit 0
