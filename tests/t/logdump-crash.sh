# logdump on journals the kernel wrote: one crash image per journal flavour (mkcrash.py),
# compared with debugfs 'logdump -a' (tools/logdump_vs_debugfs.py); --decode's layout kinds against dumpe2fs;
# a flipped bit in a v1 transaction makes its commit checksum bad, as e2fsck says.
. "$E4R_TESTS_SRCDIR/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root for loop mounts"
VARIANTS="v3 v1 v1async v3async nocsum djournal fc ext3"
for v in $VARIANTS; do
	with_sync_lock -x python3 "$E4R_TESTS_TOOLS/mkcrash.py" "$v.img" 7 "$v" > "$v.log" 2>&1 || {
		[ "$v" = v3 ] && skip "mkcrash.py could not loop-mount an image: $(tail -n 1 "$v.log")"
		fail "mkcrash.py $v: $(tail -n 3 "$v.log")"
	}
done
# debugfs (the oracle) refuses some crash images outright, e.g. when the kernel
# left a bitmap whose checksum is only fixed by the journal: those cannot be
# compared, so say so and leave them out of the comparison.
IMAGES=""
for v in $VARIANTS; do
	if debugfs -R "logdump" "$v.img" 2>&1 | grep -q "Filesystem not open"; then
		note "$v.img: debugfs cannot open it, not compared"
	else
		IMAGES="$IMAGES $v.img"
	fi
done
[ -n "$IMAGES" ] || skip "debugfs could open none of the crash images"

run python3 "$E4R_TESTS_TOOLS/logdump_vs_debugfs.py" "$E4R" $IMAGES
expect_rc 0 "logdump_vs_debugfs.py on kernel crash images"
expect_out " 0 failed" "every crash image agrees with debugfs"

# Layout kinds from --decode agree with dumpe2fs.
cat > layout.py <<'EOF'
import json, re, subprocess, sys
img, ours = sys.argv[1], json.load(open(sys.argv[2]))
dump = subprocess.run(["dumpe2fs", img], capture_output=True, text=True).stdout
kinds = {}
for m in re.finditer(r"^Group (\d+):(.*?)(?=^Group |\Z)", dump, re.M | re.S):
    g, body = int(m.group(1)), m.group(2)
    for pat, kind in ((r"Block bitmap at (\d+)", "block_bitmap"), (r"Inode bitmap at (\d+)", "inode_bitmap")):
        for mm in re.finditer(pat, body):
            kinds[int(mm.group(1))] = (kind, g)
    mm = re.search(r"Inode table at (\d+)-(\d+)", body)
    if mm:
        for b in range(int(mm.group(1)), int(mm.group(2)) + 1):
            kinds[b] = ("inode_table", g)
bad = n = 0
names = {"superblock", "group_desc", "block_bitmap", "inode_bitmap", "inode_table", "directory",
         "extent_tree", "indirect", "xattr", "data", "unknown"}
for t in ours["transactions"]:
    for b in t["blocks"]:
        n += 1
        want = kinds.get(b["fs_block"])
        got = (b["kind"], b.get("group"))
        if b["kind"] not in names or (want and got != want) or \
           (not want and b["kind"] in ("block_bitmap", "inode_bitmap", "inode_table")):
            bad += 1
            print("block %d: ours %s, dumpe2fs %s" % (b["fs_block"], got, want))
print("%d blocks, %d differ" % (n, bad))
sys.exit(1 if bad or not n else 0)
EOF
for v in $VARIANTS; do
	"$E4R" logdump --json --decode --all "$v.img" > "$v.json" 2>"$v.err"
	rc=$?
	[ $rc -le 1 ] || fail "$v: logdump --decode --all exit $rc: $(cat "$v.err")"
	python3 -m json.tool "$v.json" >/dev/null || fail "$v: JSON does not parse"
	if grep -q '"committed": true' "$v.json"; then
		run python3 layout.py "$v.img" "$v.json"
		expect_rc 0 "$v: layout kinds agree with dumpe2fs"
	fi
done
grep -q '"fast_commit"' fc.json || fail "fc: the fast_commit list is there"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if "fast_commit" in d["journal"]["features"] else 1)' fc.json ||
	fail "fc: the journal has the fast_commit feature"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["journal"]["checksum_type"] == "crc32" else 1)' v1.json ||
	fail "v1: checksum type crc32"

# v1: a flipped bit in a data block of the first transaction breaks its commit checksum.
first=$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
t=[t for t in d["transactions"] if t["committed"] and t["blocks"] and not t["old"]][0]
print(t["sequence"], t["blocks"][0]["journal_block"])' v1.json) || fail "v1: no committed transaction with blocks"
set -- $first
cp v1.img v1flip.img
flip v1flip.img $(( $(jblock_offset v1flip.img "$2") + 100 )) 0
run "$E4R" logdump --json --transaction="$1" v1flip.img
expect_rc 1 "v1 flipped data block: a bad checksum"
printf '%s\n' "$OUT" > v1flip.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["transactions"][0]["commit_csum_ok"] is False else 1)' v1flip.json ||
	fail "v1: transaction $1's commit checksum is reported bad"
cp v1flip.img oracle.img
e2fsck -E journal_only -y oracle.img 2>&1 | grep -q "transaction $1 was corrupt" ||
	fail "e2fsck does not see transaction $1 as corrupt"
exit 0
