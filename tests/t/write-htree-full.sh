# write: a hashed directory whose index is as deep as ext4 allows without large_dir (the
# root and one level of nodes) and full on the way to a full leaf takes no more names
# there: the writer refuses (exit 8, "directory index is full"), as the kernel refuses
# with ENOSPC, and leaves nothing behind. Growing such a tree for real takes some
# 40,000 names; here a two-level tree the writer grew is made full by hand instead: the
# root's entries and those of one node all lead, in ascending hash order, to that node
# and to one leaf holding three 250-byte names (no room for a fourth).
. "$E4R_TESTS_SRCDIR/lib.sh"

need_kernel_mount

name() { "$PY" -S -c 'import sys; print(sys.argv[1].ljust(250, "x"))' "$1"; }
mkimg h.img 16M -b 1024 -O ^metadata_csum
{
	echo "mkdir /h"
	i=0
	while [ $i -lt 400 ]; do echo "create /h/$(name n$i) 0"; i=$((i + 1)); done
	echo commit
} > grow.txt
run "$E4R" write --script=grow.txt h.img; expect_rc 0 "grow /h to two levels"
debugfs -R "htree /h" h.img > htree.txt 2>/dev/null
grep -q 'Indirect levels: 1' htree.txt || fail "/h did not reach a second index level"

# debugfs: the root's first node, and a leaf with three names under it
"$PY" -S - h.img htree.txt <<'PY' || fail "could not make the index full"
import re, struct, subprocess, sys
img, dump = sys.argv[1], open(sys.argv[2]).read()
def pblk(lblk):
    out = subprocess.run(['debugfs', '-R', 'bmap /h %d' % lblk, img], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, universal_newlines=True).stdout
    return int(out.split()[0])
node = int(re.search(r'Entry #0: Hash 0x0+, block (\d+)', dump).group(1))
# the leaves and their names, in the order debugfs lists them
leaf = None
for chunk in dump.split('Reading directory block ')[1:]:
    body = chunk.split('Entry #')[0]
    if len(re.findall(r'\(\d+\) n\d+x', body)) == 3:
        leaf = int(chunk.split(',')[0])
        break
if leaf is None:
    sys.exit('no leaf with three names')
bs = 1024
with open(img, 'r+b') as f:
    for lblk, off, target in ((0, 32, node), (node, 8, leaf)):
        f.seek(pblk(lblk) * bs)
        b = bytearray(f.read(bs))
        limit = struct.unpack_from('<H', b, off)[0]
        struct.pack_into('<HHI', b, off, limit, limit, target)
        for i in range(1, limit):
            struct.pack_into('<II', b, off + 8 * i, (i << 32) // limit & ~1, target)
        f.seek(pblk(lblk) * bs)
        f.write(b)
PY
cp h.img k.img
cp h.img before.img
new=$(name another)
printf 'create /h/%s 0\n' "$new" > add.txt
run "$E4R" write --script=add.txt h.img; expect_rc 8 "a name under a full index"
expect_out "directory index is full" "the reason is given"
# nothing is left behind (an inode taken for the name, a block): e2fsck, which finds the
# hand-made index wrong, finds nothing more than it found before
e2fsck -fn before.img 2>&1 | sed 1d > before.fsck
e2fsck -fn h.img 2>&1 | sed '1d; s/^h\.img:/before.img:/' > after.fsck
diff before.fsck after.fsck || fail "the refused name left something e2fsck finds"

mount -o loop k.img mnt || fail "mount the full-index image"
"$PY" -S -c 'import errno, os, sys
try:
    open(sys.argv[1], "x").close()
except OSError as e:
    sys.exit(0 if e.errno == errno.ENOSPC else "kernel: %s" % e)
sys.exit("the kernel added the name")' "mnt/h/$new"; rc=$?
umount mnt
[ $rc = 0 ] || fail "the kernel did not refuse the name with ENOSPC"
note "a full two-level index: the writer and the kernel (ENOSPC) both refuse the name"
exit 0
