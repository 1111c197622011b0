# A resize inode that is not valid is made again by -y, and e2fsck zeroes it
# before its pass 1: its old map is not walked. Here the map names the root's
# directory block where a reserved descriptor block belongs (from
# fuzz input 7b24e0a2). Walked as an indirect block, the root's entries read as
# illegal block numbers, and their repair zeroed them: the root kept only a new
# lost+found. e2fsck -fy keeps every entry; check -y -f must too.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

mkimg base.img 8M -b 1024
populate base.img
both_clean base.img "the populated image"
root=$(debugfs -R "blocks /" base.img 2>/dev/null | awk '{print $1}')
dind=$(debugfs -R "stat <7>" base.img 2>/dev/null | sed -n 's/.*(DIND):\([0-9]*\).*/\1/p')
[ -n "$root" ] && [ -n "$dind" ] || fail "no root block ($root) or resize DIND ($dind)"
cp base.img t.img
# the first reserved descriptor block the double indirect block names becomes the root's block
python3 - t.img "$dind" "$root" <<'PY' || fail "poke the resize inode's map"
import struct, sys
img, dind, root = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(img, "r+b") as f:
    f.seek(dind * 1024)
    ptrs = struct.unpack("<256I", f.read(1024))
    i = next(k for k, p in enumerate(ptrs) if p)
    f.seek(dind * 1024 + 4 * i)
    f.write(struct.pack("<I", root))
PY
cp t.img e2.img
run e2fsck -fn t.img
expect_rc 4 "oracle: e2fsck -fn with the root's block in the resize inode's map"
expect_out "Resize inode not valid" "oracle: e2fsck judges the resize inode not valid"
e2fsck -fy e2.img >/dev/null 2>&1
[ $? -le 1 ] || fail "oracle: e2fsck -fy with the root's block in the resize inode's map"
repaired_image t.img "the root's block in the resize inode's map"
for d in / /dir; do
	ours=$(debugfs -R "ls $d" t.img 2>/dev/null | tr -s ' \n' '\n' | grep -v '^$' | sort)
	theirs=$(debugfs -R "ls $d" e2.img 2>/dev/null | tr -s ' \n' '\n' | grep -v '^$' | sort)
	[ "$ours" = "$theirs" ] || fail "ls $d after the repair differs from e2fsck's:
ours:
$ours
e2fsck:
$theirs"
done
run debugfs -R "ls /" t.img
expect_out "f1" "the root keeps f1"
[ "$(debugfs -R 'cat f1' t.img 2>/dev/null | sha256sum)" = "$(seq 1 9000 | sha256sum)" ] ||
	fail "f1's data after the repair"
run debugfs -R "stat <7>" t.img
expect_no_out "\(IND\):$root\b" "the made-again resize inode does not name the root's block"
echo ok
