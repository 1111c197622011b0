# The root's '..' moved behind another entry ('.', 'lost+found', '..'): e2fsck -fy writes a
# '..' over the second entry and clears the misplaced one. check -y -f did the first and then
# cleared the '..' it had just written (same name, same inode), so every round found '..'
# missing again until the round limit. Now: one repair, e2fsck -fn clean after it, at least
# the inodes in use that e2fsck -fy leaves.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

base_image -b 1024 -O ^metadata_csum
blk=$(debugfs -R "stat <2>" base.img 2>/dev/null | sed -n 's/^(0):\([0-9]*\).*/\1/p')
[ -n "$blk" ] || fail "no block for the root directory"
python3 - "$blk" <<'EOF' || fail "rewriting the root block"
import struct, sys
blk = int(sys.argv[1])
with open("base.img", "r+b") as f:
    f.seek(blk * 1024)
    b = bytearray(f.read(1024))
    # '..' (12 bytes at 12) and the entry after it change places; the rest stays
    n = struct.unpack_from("<H", b, 24 + 4)[0]
    assert struct.unpack_from("<H", b, 12 + 4)[0] == 12 and b[24 + 8:24 + 18] == b"lost+found"
    out = b[:12] + b[24:24 + n] + b[12:24] + b[24 + n:]
    f.seek(blk * 1024)
    f.write(out)
EOF
run debugfs -R "ls -l /" base.img
judged_and_repaired base.img "the root's '..' moved" \
	"Second entry 'lost\\+found' .* in directory inode 2 should be" "missing '\.\.' in directory inode 2" 4
ours=$(e2fsck -fn base.img 2>&1 | sed -n 's/.*: \([0-9]*\)\/[0-9]* files.*/\1/p')
theirs=$(e2fsck -fn e2.img 2>&1 | sed -n 's/.*: \([0-9]*\)\/[0-9]* files.*/\1/p')
note "inodes in use after check -y: $ours; after e2fsck -fy: $theirs"
[ -n "$ours" ] && [ "$ours" -ge "$theirs" ] || fail "check -y keeps $ours inodes in use, e2fsck -fy $theirs"
exit 0
