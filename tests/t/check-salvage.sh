# check -y -f salvages a directory with a corrupt entry in the middle: every name
# e2fsck -fy keeps stays, the entries after the bad one keep their names (e2fsck
# sends them to lost+found when the record length is bad), and e2fsck -fn is
# clean after ours. Block directories (with and without metadata_csum) and
# inline directories (which must never be cleared outright).
. "$E4R_TESTS_SRCDIR/lib.sh"

echo "some content" > content
names() {	# names IMAGE DIR: the names in DIR, one a line, sorted ('.' and '..' left out)
	debugfs -R "ls -p $2" "$1" 2>/dev/null | awk -F/ 'NF > 5 && $6 != "." && $6 != ".." {print $6}' | sort
}

# corrupt IMAGE DIR NAME FIELD VALUE: set one field of DIR's entry NAME (in its block 0,
# or in its inline area), leaving the block's checksum stale as a torn write would.
corrupt() {
	python3 - "$@" <<'PY' || fail "corrupt $*"
import re, struct, subprocess, sys
img, d, name, field, val = sys.argv[1], sys.argv[2], sys.argv[3].encode(), sys.argv[4], int(sys.argv[5], 0)
def dbg(cmd):
    return subprocess.run(["debugfs", "-R", cmd, img], capture_output=True, text=True).stdout
bs = int(re.search(r"Block size:\s+(\d+)", dbg("stats")).group(1))
if "inline data" in dbg("stat " + d).lower():
    m = re.search(r"located at block (\d+), offset (0x[0-9a-f]+)", dbg("imap " + d))
    start, end = int(m.group(1)) * bs + int(m.group(2), 16) + 40 + 4, 56
else:
    start, end = int(dbg("bmap %s 0" % d)) * bs, bs
with open(img, "r+b") as f:
    f.seek(start); b = bytearray(f.read(end))
    off = 0
    while off < end:
        ino, rl, nl, ft = struct.unpack_from("<IHBB", b, off)
        if b[off + 8:off + 8 + nl] == name:
            break
        off += rl
    else:
        sys.exit("no entry " + sys.argv[3])
    if field == "rec_len":
        struct.pack_into("<H", b, off + 4, val)
    else:
        b[off + 6] = val
    f.seek(start); f.write(b)
PY
}

# case LABEL DIR NAME FIELD VALUE: damage a copy of base.img, repair it both ways, compare.
case_() {
	local label=$1 d=$2 name=$3
	cp base.img t.img
	corrupt t.img "$d" "$name" "$4" "$5"
	run e2fsck -fn t.img
	[ "$RC" -ne 0 ] || fail "$label: oracle: e2fsck -fn finds nothing wrong"
	cp t.img e.img; cp t.img o.img
	e2fsck -fy e.img >/dev/null 2>&1
	run "$E4R" check -y -f o.img
	[ "$RC" -lt 4 ] || fail "$label: check -y -f left errors (exit $RC)"
	run e2fsck -fn o.img
	expect_rc 0 "$label: e2fsck -fn after check -y -f"
	names e.img "$d" > e.names; names o.img "$d" > o.names
	missing=$(comm -23 e.names o.names)
	[ -z "$missing" ] || fail "$label: names e2fsck -fy keeps in $d and check -y -f does not: $missing"
	# the entries after the damaged one keep their names (the original image is the oracle)
	lost=$(comm -23 orig.names o.names | grep -vx "$name")
	[ -z "$lost" ] || fail "$label: names after the damaged entry lost: $lost"
	note "$label: e2fsck keeps $(wc -l < e.names) names in $d, check keeps $(wc -l < o.names)"
}

for flavour in "4k csum:-b 4096" "1k nocsum:-b 1024 -O ^metadata_csum"; do
	label=${flavour%%:*}
	# shellcheck disable=SC2086
	mkimg base.img 8M ${flavour#*:}
	{ echo "mkdir d"; for i in $(seq 1 40); do echo "write content d/file$i"; done; } > cmds
	debugfs -w -f cmds base.img >/dev/null 2>&1 || fail "debugfs populate ($label)"
	run e2fsck -fn base.img
	expect_rc 0 "oracle: the populated image ($label) is clean"
	names base.img /d > orig.names
	for v in 0 0xffff 5 8 0x3; do
		case_ "$label rec_len $v" /d file20 rec_len "$v"
	done
	case_ "$label name_len 255" /d file20 name_len 255
	case_ "$label '.' rec_len 0" /d . rec_len 0
done

# An inline directory: four short names fill i_block; the second's record goes bad.
mkimg base.img 8M -b 4096 -O inline_data
{ echo "mkdir i"; for n in a1 a2 a3 a4; do echo "write content i/$n"; done; } > cmds
debugfs -w -f cmds base.img >/dev/null 2>&1 || fail "debugfs populate (inline)"
run e2fsck -fn base.img
expect_rc 0 "oracle: the inline image is clean"
debugfs -R "stat i" base.img 2>/dev/null | grep -qi "inline" || skip "debugfs did not make /i inline"
names base.img /i > orig.names
[ "$(wc -l < orig.names)" -eq 4 ] || fail "the inline directory holds $(wc -l < orig.names) names"
for v in 0 0xffff 6; do
	case_ "inline rec_len $v" /i a2 rec_len "$v"
done
case_ "inline name_len 255" /i a2 name_len 255
