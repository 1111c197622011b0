# logdump --decode names each logged block as dumpe2fs (group layout) and debugfs
# (icheck, stat, bmap, testb) see it: superblocks, descriptors, bitmaps, inode tables,
# directories, extent and indirect blocks, xattr blocks, file data, free blocks.
. "$E4R_TESTS_SRCDIR/lib.sh"

seeded_bytes data 262144 > data
seeded_bytes file 20480 > file
head -c 600 /dev/zero | tr '\0' v > val
# A sparse file: one extent per written block, more than the inode holds (a leaf block).
python3 -c '
f = open("frag", "wb")
for i in range(0, 40, 2):
    f.seek(i * 1024); f.write(b"x" * 1024)'

populate() { # IMAGE
	debugfs -w -f - "$1" >/dev/null 2>&1 <<-EOF || fail "populate $1"
	mkdir dir
	mkdir dir/sub
	write file file
	write frag dir/frag
	ea_set -f val file user.big
	EOF
}

# The oracle: what dumpe2fs and debugfs say each block is, as JSON lines.
cat > oracle.py <<'EOF'
import json, re, subprocess, sys
img, blocks = sys.argv[1], [int(b) for b in sys.argv[2:]]
def out(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True).stdout
dump = out("dumpe2fs", img)
ipg = int(re.search(r"^Inodes per group:\s*(\d+)", dump, re.M).group(1))
isize = int(re.search(r"^Inode size:\s*(\d+)", dump, re.M).group(1))
bsize = int(re.search(r"^Block size:\s*(\d+)", dump, re.M).group(1))
layout = []   # (first, last, info)
def span(s):
    a, _, b = s.partition("-")
    return int(a), int(b or a)
for m in re.finditer(r"^Group (\d+):(.*?)(?=^Group |\Z)", dump, re.M | re.S):
    g, body = int(m.group(1)), m.group(2)
    for pat, kind, extra in ((r"(Primary|Backup) superblock at (\d+)", "superblock", None),
                             (r"Group descriptors at (\d+(?:-\d+)?)", "group_desc", None),
                             (r"Reserved GDT blocks at (\d+(?:-\d+)?)", "group_desc", "reserved"),
                             (r"Block bitmap at (\d+)", "block_bitmap", None),
                             (r"Inode bitmap at (\d+)", "inode_bitmap", None),
                             (r"Inode table at (\d+(?:-\d+)?)", "inode_table", None)):
        for mm in re.finditer(pat, body):
            a, b = span(mm.group(mm.lastindex))
            info = {"kind": kind, "group": g}
            if kind in ("superblock", "group_desc"):
                info["backup"] = g != 0
            if extra:
                info["reserved"] = True
            layout.append((a, b, info))
def stat_maps(ino):
    st = out("debugfs", "-R", "stat <%d>" % ino, img)
    typ = re.search(r"Type: (\w+)", st).group(1)
    acl = int(re.search(r"File ACL: (\d+)", st).group(1))
    meta, data = set(), {}
    for m in re.finditer(r"\((ETB\d+|IND|DIND|TIND)\):(\d+)", st):
        meta.add(int(m.group(2)))
    for m in re.finditer(r"\((\d+)(?:-(\d+))?\):(\d+)(?:-(\d+))?", st):
        l0, p0 = int(m.group(1)), int(m.group(3))
        for i in range(int(m.group(4) or p0) - p0 + 1):
            data[p0 + i] = l0 + i
    ext = "EXTENTS:" in st
    return typ, acl, meta, data, ext
for blk in blocks:
    info = None
    for a, b, i in layout:
        if a <= blk <= b:
            info = dict(i)
            if i["kind"] == "inode_table":
                per = bsize // isize
                info["inode_first"] = i["group"] * ipg + (blk - a) * per + 1
                info["inode_last"] = info["inode_first"] + per - 1
            break
    if info is None:
        m = re.search(r"^%d\s+(\d+)" % blk, out("debugfs", "-R", "icheck %d" % blk, img), re.M)
        if m:
            ino = int(m.group(1))
            typ, acl, meta, data, ext = stat_maps(ino)
            if blk == acl:
                info = {"kind": "xattr", "inode": ino}
            elif blk in meta:
                info = {"kind": "extent_tree" if ext else "indirect", "inode": ino}
            else:
                info = {"kind": "directory" if typ == "directory" else "data", "inode": ino,
                        "logical_block": data[blk]}
        else:
            used = "marked in use" in out("debugfs", "-R", "testb %d" % blk, img)
            info = {"kind": "unknown", "allocated": used}
    info["fs_block"] = blk
    print(json.dumps(info))
EOF

# Compare: every field the oracle names must be in our block entry with that value.
cat > compare.py <<'EOF'
import json, sys
ours = json.load(open(sys.argv[1]))
want = [json.loads(l) for l in open(sys.argv[2])]
got = {b["fs_block"]: b for t in ours["transactions"] for b in t["blocks"]}
bad = 0
for w in want:
    g = got.get(w["fs_block"])
    diff = {k: (v, g.get(k) if g else None) for k, v in w.items() if not g or g.get(k) != v}
    if diff:
        bad += 1
        print("block %d: expected/ours %s" % (w["fs_block"], diff))
print("%d blocks checked, %d differ" % (len(want), bad))
sys.exit(1 if bad else 0)
EOF

bmap() { debugfs -R "bmap $2 $3" "$1" 2>/dev/null; }
etb() { debugfs -R "stat $2" "$1" 2>/dev/null | sed -n "s/.*($3):\([0-9]*\).*/\1/p" | head -n 1; }
acl() { debugfs -R "stat $2" "$1" 2>/dev/null | sed -n 's/.*File ACL: \([0-9]*\).*/\1/p'; }
first_free() { dumpe2fs "$1" 2>/dev/null | sed -n 's/^  Free blocks: \([0-9]*\)-.*/\1/p' | tail -n 1; }

check_image() { # IMAGE BLOCKS...
	local img=$1; shift
	local list
	list=$(echo "$@" | tr ' ' ',')
	jwrite "$img" "jo" "jw -b $list $PWD/data" "jc"
	python3 oracle.py "$img" "$@" > "$img.expect" || fail "oracle on $img"
	run "$E4R" logdump --json --decode "$img"
	expect_rc 0 "logdump --decode $img"
	printf '%s\n' "$OUT" > "$img.json"
	run python3 compare.py "$img.json" "$img.expect"
	expect_rc 0 "$img: --decode agrees with dumpe2fs and debugfs"
	run "$E4R" logdump --decode "$img"
	expect_rc 0 "logdump --decode $img (text)"
	expect_out "\[inode bitmap of group 0\]" "$img: text names the inode bitmap"
}

# ext4 with flex_bg and metadata_csum, 1 KiB blocks, two groups.
mkimg e4.img 16M -O metadata_csum
populate e4.img
check_image e4.img 1 2 3 8193 8194 8200 \
	$(dumpe2fs e4.img 2>/dev/null | sed -n 's/^  Block bitmap at \([0-9]*\).*/\1/p') \
	$(dumpe2fs e4.img 2>/dev/null | sed -n 's/^  Inode bitmap at \([0-9]*\).*/\1/p') \
	$(dumpe2fs e4.img 2>/dev/null | sed -n 's/^  Inode table at \([0-9]*\)-.*/\1/p') \
	$(( $(dumpe2fs e4.img 2>/dev/null | sed -n 's/^  Inode table at \([0-9]*\)-.*/\1/p' | tail -n 1) + 7 )) \
	$(bmap e4.img / 0) $(bmap e4.img /dir 0) $(bmap e4.img /dir/sub 0) \
	$(bmap e4.img /file 0) $(bmap e4.img /file 5) $(bmap e4.img /dir/frag 8) \
	$(etb e4.img /dir/frag ETB0) $(acl e4.img /file) $(bmap e4.img '<8>' 100) \
	$(first_free e4.img)

# ext3 layout: block-mapped files with indirect blocks, no flex_bg, 4 KiB blocks.
mkimg e3.img 160M -b 4096 -O ^extent,^flex_bg,^64bit,^metadata_csum,^huge_file,^dir_nlink,^extra_isize
seeded_bytes file-e3 409600 > file
populate e3.img
check_image e3.img 0 1 2 32768 32769 \
	$(dumpe2fs e3.img 2>/dev/null | sed -n 's/^  Block bitmap at \([0-9]*\).*/\1/p') \
	$(dumpe2fs e3.img 2>/dev/null | sed -n 's/^  Inode bitmap at \([0-9]*\).*/\1/p') \
	$(dumpe2fs e3.img 2>/dev/null | sed -n 's/^  Inode table at \([0-9]*\)-.*/\1/p' | head -n 1) \
	$(bmap e3.img / 0) $(bmap e3.img /dir 0) $(bmap e3.img /file 20) \
	$(etb e3.img /file IND) $(etb e3.img /file DIND) $(acl e3.img /file) \
	$(first_free e3.img)
exit 0
