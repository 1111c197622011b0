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
exit 0
