# logdump's fast-commit listing on an image the kernel left with fast commits
# (files created and fsynced, then a shutdown without log flush), compared tag by
# tag with debugfs's logdump; then hostile lengths in the area.
. "$E4R_TESTS_SRCDIR/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root for loop mounts"
. "$E4R_TESTS_SRCDIR/mkfc.sh"
mkfc fc.img

# The oracle: debugfs -c (it refuses to read the unrecovered bitmaps otherwise).
debugfs -c -R logdump fc.img > debugfs.out 2>&1 || fail "debugfs logdump"
grep -q "Fast Commit Area" debugfs.out || fail "the kernel wrote no fast commit: $(tail -n 5 debugfs.out)"
"$E4R" logdump --json fc.img > ours.json 2>ours.err
rc=$?
[ $rc -eq 0 ] || fail "logdump --json exit $rc: $(cat ours.err)"

cat > compare.py <<'PY'
import json, re, sys
M = 1 << 32
def theirs(path):
    out, on = [], False
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if "*** Fast Commit Area ***" in line:
            on = True
            continue
        if not on or not line.startswith("tag "):
            continue
        name = line[4:].split(",")[0]
        f = dict((k, v) for k, v in re.findall(r'(\w+) (-?\d+|0x[0-9a-f]+)', line[4:]))
        num = lambda k: int(f[k], 0) % M
        if name == "HEAD":        out.append(("head", num("features"), num("tid")))
        elif name == "TAIL":      out.append(("tail", num("tid")))
        elif name == "INODE":     out.append(("inode", num("inode")))
        elif name == "PAD":       out.append(("pad",))
        elif name == "ADD_RANGE": out.append(("add_range", num("inode"), num("lblk"), num("pblk"), num("len")))
        elif name == "DEL_RANGE": out.append(("del_range", num("inode"), num("lblk"), num("len")))
        elif name in ("CREAT_DENTRY", "LINK", "UNLINK", "ADD_ENTRY", "DEL_ENTRY"):
            nm = re.search(r'name "(.*)"$', line).group(1)
            # debugfs 1.47 calls LINK and UNLINK ADD_ENTRY and DEL_ENTRY
            kind = {"CREAT_DENTRY": "create", "LINK": "link", "UNLINK": "unlink",
                    "ADD_ENTRY": "link", "DEL_ENTRY": "unlink"}[name]
            out.append((kind, num("parent"), num("ino"), nm))
        else:
            sys.exit("unknown debugfs tag line: " + line)
    return out
def ours(d):
    out = []
    for t in d["fast_commit"]:
        k = t["tag"]
        if k == "head":        out.append((k, t["features"], t["tid"]))
        elif k == "tail":      out.append((k, t["tid"]))
        elif k == "inode":     out.append((k, t["ino"]))
        elif k == "pad":       out.append((k,))
        elif k == "add_range": out.append((k, t["ino"], t["lblk"], t["pblk"], t["len"]))
        elif k == "del_range": out.append((k, t["ino"], t["lblk"], t["len"]))
        else:                  out.append((k, t["parent"], t["ino"], t["name"]))
    return out
d = json.load(open(sys.argv[2]))
a, b = theirs(sys.argv[1]), ours(d)
for i in range(max(len(a), len(b))):
    x = a[i] if i < len(a) else None
    y = b[i] if i < len(b) else None
    # debugfs prints the name with %s although it is not NUL-terminated: it
    # runs into the next TLV's tag (1..9, then a 0 byte). Allow that one byte.
    if x and y and x[0] in ("create", "link", "unlink") and x[:3] == y[:3] and \
       x[3][:len(y[3])] == y[3] and len(x[3]) == len(y[3]) + 1 and 1 <= ord(x[3][-1]) <= 9:
        continue
    if x != y:
        sys.exit("tag %d: debugfs %s, ours %s" % (i, x, y))
tags = d["fast_commit"]
committed = [t for t in tags if t["committed"]]
print("%d tags agree with debugfs, %d committed" % (len(a), len(committed)))
# What a kernel-made area must look like: HEAD first, committed tags a prefix
# ending with a good TAIL, and at least one file created by fast commit.
assert tags and tags[0]["tag"] == "head", "HEAD first"
assert committed and committed[-1]["tag"] == "tail" and committed[-1]["crc_ok"], "committed up to a good TAIL"
assert tags[:len(committed)] == committed, "committed tags are a prefix"
assert any(t["tag"] == "create" for t in committed), "a committed create"
assert d["fast_commit_end"]["committed_tags"] == len(committed)
assert d["fast_commit_end"]["replayed"] is True
PY
run python3 compare.py debugfs.out ours.json
expect_rc 0 "logdump's fast-commit tags against debugfs"

# The text listing names the same tags as debugfs.
run "$E4R" logdump fc.img
expect_rc 0 "logdump text"
expect_out "^Fast-commit area: journal blocks" "text: the area"
n_ours=$(printf '%s\n' "$OUT" | grep -c '^  block [0-9]* +[0-9]*: tag ')
n_theirs=$(grep -c '^tag ' debugfs.out)
[ "$n_ours" -eq "$n_theirs" ] || fail "text lists $n_ours tags, debugfs $n_theirs"

# Hostile lengths. Byte offset of journal block J: debugfs -c, since the unrecovered
# image's bitmaps may not pass their checksums (lib.sh's jblock_offset opens it fully).
fc_jblock_offset() { # IMAGE J
	local bs phys
	bs=$(dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Block size: *//p')
	phys=$(debugfs -c -R "bmap <8> $2" "$1" 2>/dev/null)
	case "$phys" in ''|*[!0-9]*) echo "FAIL: no block for journal block $2 of $1" >&2; return 1 ;; esac
	echo $((phys * bs))
}
# The byte offset of a tag's len field, from our listing (checked against debugfs above).
len_offset() { # INDEX
	python3 -c 'import json,sys
d=json.load(open("ours.json")); t=d["fast_commit"][int(sys.argv[1])]
print(t["journal_block"], t["offset"] + 2)' "$1"
}
set_len() { # IMAGE BYTE VALUE
	python3 -c 'import sys,struct
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2])); f.write(struct.pack("<H", int(sys.argv[3])))' "$@"
}
ncommitted=$(python3 -c 'import json; print(json.load(open("ours.json"))["fast_commit_end"]["committed_tags"])')

# 1. The second tag's length runs past the block, before any TAIL: the kernel's
#    scan fails (-ECANCELED) and recovery as a whole fails.
set -- $(len_offset 1)
cp fc.img bad1.img
off=$(fc_jblock_offset bad1.img "$1") || exit 1
set_len bad1.img $((off + $2)) 65535
run "$E4R" logdump --json bad1.img
expect_rc 1 "a bad length before the first TAIL is a problem"
printf '%s\n' "$OUT" > bad1.json
python3 -c 'import json,sys; e=json.load(open("bad1.json"))["fast_commit_end"]
sys.exit(0 if e["reason"] == "bad_length" and e["committed_tags"] == 0 and e["error"] else 1)' ||
	fail "bad1: stop reason bad_length, nothing committed, an error"
run "$E4R" logdump bad1.img
expect_rc 1 "text: the same"
expect_out "recovery would fail" "text: says recovery fails"
# The kernel agrees: its recovery fails (ECANCELED) and the mount is refused.
cp bad1.img kernel1.img
if mount -o loop kernel1.img mnt 2>kernel1.err; then
	umount mnt
	fail "the kernel mounted an image whose first fast commit has a bad length"
fi

# 2. A bad length after the first fast commit: a quiet stop, the first one stands.
first_tail=$(python3 -c 'import json; t=json.load(open("ours.json"))["fast_commit"]
print([i for i, x in enumerate(t) if x["tag"] == "tail"][0])')
if [ $((first_tail + 1)) -lt "$ncommitted" ]; then
	set -- $(len_offset $((first_tail + 1)))
	cp fc.img bad2.img
	off=$(fc_jblock_offset bad2.img "$1") || exit 1
	set_len bad2.img $((off + $2)) 3
	run "$E4R" logdump --json bad2.img
	expect_rc 0 "a bad length after a good fast commit is a normal end"
	printf '%s\n' "$OUT" > bad2.json
	python3 -c 'import json,sys; e=json.load(open("bad2.json"))["fast_commit_end"]
sys.exit(0 if e["reason"] == "bad_length" and e["committed_tags"] == int(sys.argv[1]) + 1 and not e["error"] else 1)' "$first_tail" ||
		fail "bad2: stops at the bad length with the first fast commit committed"
	cp bad2.img kernel2.img
	mount -o loop kernel2.img mnt 2>kernel2.err || fail "the kernel refuses bad2: $(cat kernel2.err)"
	umount mnt
else
	note "only one fast commit: the bad-length-after-a-commit case is not exercised"
fi

# 3. Every length of the first block's first tags set to each hostile value: never a crash.
set -- $(len_offset 0)
base=$(fc_jblock_offset fc.img "$1") || exit 1
for v in 0 1 3 7 8 9 4092 4093 65535; do
	cp fc.img bad3.img
	set_len bad3.img $((base + 2)) $v
	"$E4R" logdump --json bad3.img > bad3.json 2>bad3.err
	rc=$?
	[ $rc -le 1 ] || fail "HEAD len $v: exit $rc: $(cat bad3.err)"
	python3 -m json.tool bad3.json >/dev/null || fail "HEAD len $v: JSON does not parse"
done
exit 0
