# A directory reaching past the largest size e2fsck allows without largedir
# (2^21 KiB): e2fsck -y drops the extent or the block past the limit and keeps
# the directory; so must check -y. Its counts differ by map: an extent may end
# at the limit, a block map may hold the block at the limit itself. Each image
# is judged by e2fsck first, and the directory's listing and map after check -y
# are compared with e2fsck -y's.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

# addblock IMAGE INO LBLK BLK [DIND IND]: map a free block BLK at logical block LBLK of
# directory INO, as one block with one empty entry: through a second extent in the
# inode's root (extents), or through DIND and IND (a 4 KiB block map).
addblock() {
	python3 - "$@" <<'PY'
import struct, subprocess, sys
img, ino, lblk, blk = sys.argv[1], *map(int, sys.argv[2:5])
out = subprocess.run(["debugfs", "-R", "imap <%d>" % ino, img], capture_output=True, text=True).stdout
at = int(out.split("located at block ")[1].split(",")[0]); off = int(out.split("offset ")[1].split()[0], 16)
bs = int(subprocess.run(["debugfs", "-R", "stats", img], capture_output=True,
                        text=True).stdout.split("Block size:")[1].split()[0])
with open(img, "r+b") as f:
    ioff = at * bs + off
    f.seek(ioff + 40); ib = bytearray(f.read(60))
    if len(sys.argv) == 5:
        magic, n, mx, depth = struct.unpack_from("<HHHH", ib, 0)
        assert magic == 0xf30a and depth == 0 and n < mx
        struct.pack_into("<IHHI", ib, 12 + 12 * n, lblk, 1, 0, blk)
        struct.pack_into("<H", ib, 2, n + 1)
        extra = 0
    else:
        dind, ind = int(sys.argv[5]), int(sys.argv[6]); per = bs // 4; k = lblk - 12 - per
        struct.pack_into("<I", ib, 13 * 4, dind)
        for b, slot, v in ((dind, k // per, ind), (ind, k % per, blk)):
            f.seek(b * bs); f.write(bytes(bs)); f.seek(b * bs + slot * 4); f.write(struct.pack("<I", v))
        extra = 2
    f.seek(ioff + 40); f.write(ib)
    f.seek(ioff + 28); nb = struct.unpack("<I", f.read(4))[0]
    f.seek(ioff + 28); f.write(struct.pack("<I", nb + (1 + extra) * bs // 512))
    f.seek(blk * bs); f.write(struct.pack("<IHBB", 0, bs, 0, 0) + bytes(bs - 8))
PY
}

# same_after IMAGE WHAT: e2fsck -y on one copy, check -y on another; both keep d with
# the same entries and the same map, and both copies are clean for e2fsck -fn.
same_after() {
	cp "$1" e.img; cp "$1" o.img
	e2fsck -fy e.img >/dev/null 2>&1
	run "$E4R" check -y -f o.img
	[ "$RC" -le 1 ] || fail "check -y -f on $2: exit $RC"
	run e2fsck -fn o.img
	expect_rc 0 "oracle: e2fsck -fn after check -y on $2"
	for what in "ls d" "blocks d"; do
		[ "$(debugfs -R "$what" e.img 2>/dev/null)" = "$(debugfs -R "$what" o.img 2>/dev/null)" ] ||
			fail "$what differs from e2fsck -y's after check -y on $2"
	done
	debugfs -R "ls d" o.img 2>/dev/null | grep -q " f " || fail "d lost its entries on $2"
}

# Extents, 1 KiB blocks: the limit is 2^21 blocks.
mkimg x.img 32M -b 1024 -O ^metadata_csum
printf 'mkdir d\nmkdir d/sub\nwrite /etc/hostname d/f\nsetb 25000\n' | debugfs -w -f - x.img >/dev/null 2>&1 ||
	fail "debugfs populate"
d=$(inode_of x.img d)
cp x.img t.img
addblock t.img "$d" 2097152 25000
"$E4R_FSMETA" reseal t.img "inode:$d" >/dev/null 2>&1 || fail "fsmeta reseal"
run e2fsck -fn t.img
expect_rc 4 "oracle: e2fsck -fn on an extent past the directory limit"
expect_out "Inode $d is too big" "oracle names the directory too big"
run "$E4R" check -n -f t.img
expect_rc 4 "check -n -f on an extent past the directory limit"
expect_out "directory inode $d has logical block 2097152, past the largest size" "check names it"
same_after t.img "an extent past the directory limit"

# A block map, 4 KiB blocks: the limit is 2^19; block 2^19 + 1 is too big, 2^19 is not.
mkimg m.img 64M -b 4096 -O ^extent,^flex_bg,^metadata_csum,^64bit
printf 'mkdir d\nmkdir d/sub\nwrite /etc/hostname d/f\nsetb 10000 3\n' | debugfs -w -f - m.img >/dev/null 2>&1 ||
	fail "debugfs populate"
d=$(inode_of m.img d)
cp m.img t.img
addblock t.img "$d" 524289 10002 10000 10001
run e2fsck -fn t.img
expect_rc 4 "oracle: e2fsck -fn on a mapped block past the directory limit"
expect_out "causes directory to be too big" "oracle names the block"
run "$E4R" check -n -f t.img
expect_rc 4 "check -n -f on a mapped block past the directory limit"
expect_out "directory inode $d has logical block 524289, past the largest size" "check names it"
same_after t.img "a mapped block past the directory limit"
cp m.img t.img
addblock t.img "$d" 524288 10002 10000 10001
run "$E4R" check -n -f t.img
expect_no_out "past the largest size" "block 2^19 of a block map is inside e2fsck's limit"

# The same image under -y: the size is set to 2^31 + 4096, which turns largedir on
# (ext2fs_inode_size_set), and e2fsck's pass 2 then fills no hole; its rehash leaves d
# one block. check -y must not fill the hole block by block (16384 blocks: it would
# take them all): d keeps its entries, and no more than a few blocks stay used.
cp t.img e.img; cp t.img o.img
e2fsck -fy e.img >/dev/null 2>&1
run "$E4R" check -y -f o.img
[ "$RC" -le 1 ] || fail "check -y -f on a hole up to block 2^19: exit $RC"
run e2fsck -fn o.img
expect_rc 0 "oracle: e2fsck -fn after check -y on a hole up to block 2^19"
entries() { debugfs -R "ls -p d" "$1" 2>/dev/null | awk -F/ 'NF > 1 && $2 != 0'; }
[ -n "$(entries e.img)" ] && [ "$(entries e.img)" = "$(entries o.img)" ] ||
	fail "d's entries differ from e2fsck -y's after check -y on a hole up to block 2^19"
free() { dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Free blocks: *//p'; }
[ "$(free o.img)" -ge "$(($(free e.img) - 8))" ] ||
	fail "check -y filled the hole: $(free o.img) blocks free, e2fsck -y leaves $(free e.img)"
dumpe2fs -h o.img 2>/dev/null | grep -q "features:.* large_dir" ||
	fail "largedir not set as e2fsck -y sets it"
exit 0
