# logdump --json agrees with debugfs 'logdump -a' (transactions, tags, revokes, end of log)
# and with dumpe2fs (journal superblock) on journals written by debugfs's journal writer.
. "$E4R_TESTS_SRCDIR/lib.sh"

seeded_bytes data 65536 > data
# A block that starts with the JBD2 magic: debugfs must escape it in the log.
printf '\300\073\071\230' > magic; seeded_bytes magic 4092 >> magic

# debugfs 1.47 loses the commit block of a transaction with revokes when another
# transaction follows it, so the revoking transaction comes last.
make_case() { # NAME MKE2FS-OPTS JO-COMMAND
	local img=$1.img
	mkimg "$img" 16M $2
	jwrite "$img" "$3" \
		"jw -b 100,101,102 $PWD/data" \
		"jw -b 300 $PWD/magic" \
		"jw -b 400,401 $PWD/data" \
		"jw -b 200,100 -r 101,102 $PWD/data" \
		"jc"
}
make_case plain "" "jo"
make_case v2 "" "jo -c -v 2"
make_case v3 "-O metadata_csum" "jo -c"
make_case v3-32bit "-O metadata_csum,^64bit" "jo -c"
make_case nocsum-32bit "-O ^64bit" "jo"
make_case bs4k "-b 4096 -O metadata_csum" "jo -c"
# An uncommitted transaction at the end of the log.
mkimg open.img 16M -O metadata_csum
jwrite open.img "jo -c" "jw -b 100,101 $PWD/data" "jw -b 102 -c $PWD/data" "jc"
IMAGES="plain.img v2.img v3.img v3-32bit.img nocsum-32bit.img bs4k.img open.img"

run python3 "$E4R_TESTS_TOOLS/logdump_vs_debugfs.py" "$E4R" $IMAGES
expect_rc 0 "logdump_vs_debugfs.py"
expect_out "^7 passed, 0 failed" "every image agrees with debugfs"

# Flags, escapes, checksum verdicts, the end's reason and the superblock, which
# logdump_vs_debugfs.py does not compare.
cat > compare.py <<'EOF'
import json, re, subprocess, sys
img, ours = sys.argv[1], json.load(open(sys.argv[2]))
dbg = subprocess.run(["debugfs", "-R", "logdump -a", img], capture_output=True, text=True).stdout
hdr = subprocess.run(["dumpe2fs", "-h", img], capture_output=True, text=True).stdout
def field(name):
    return re.search(r"^%s:\s*(\S+)" % name, hdr, re.M).group(1)
errors = []
def check(what, a, b):
    if a != b:
        errors.append("%s: ours %r, reference %r" % (what, a, b))
j = ours["journal"]
check("maxlen", j["maxlen"], int(field("Total journal blocks")))
check("sequence", j["sequence"], int(field("Journal sequence"), 16))
check("start", j["start"], int(field("Journal start")))
m = re.search(r"^Journal checksum type:\s*(\S+)", hdr, re.M)
check("checksum_type", j["checksum_type"], m.group(1) if m else "none")
feats = re.search(r"^Journal features:\s*(.*)$", hdr, re.M).group(1).split()
check("csum_v3", "csum_v3" in j["features"], "journal_checksum_v3" in feats)
check("csum_v2", "csum_v2" in j["features"], "journal_checksum_v2" in feats)
check("64bit", "64bit" in j["features"], "journal_64bit" in feats)
revoked, flags, cur = {}, {}, None
for line in dbg.splitlines():
    m = re.search(r"Found expected sequence (\d+)", line)
    if m: cur = int(m.group(1))
    m = re.search(r"Revoke FS block (\d+)", line)
    if m: revoked.setdefault(cur, []).append(int(m.group(1)))
    m = re.search(r"FS block (\d+) logged at journal block (\d+) \(flags 0x(\w+)\)", line)
    if m: flags[(cur, int(m.group(2)))] = int(m.group(3), 16)
m = re.search(r"No magic number at block (\d+): end of journal", dbg)
check("end block", ours["end"]["journal_block"], int(m.group(1)))
check("end reason", ours["end"]["reason"], "no_magic")
for t in ours["transactions"]:
    check("revoked in %d" % t["sequence"], t["revoked"], revoked.get(t["sequence"], []))
    for b in t["blocks"]:
        f = flags.get((t["sequence"], b["journal_block"]))
        check("flags of %d" % b["journal_block"], b["flags"], f)
        check("escaped %d" % b["journal_block"], b["escaped"], bool(f & 1))
        want = None if j["checksum_type"] == "none" else True
        check("csum_ok of %d" % b["journal_block"], b["csum_ok"], want)
    if t["committed"]:
        check("commit_csum_ok %d" % t["sequence"], t["commit_csum_ok"],
              None if j["checksum_type"] == "none" else True)
if "open" in img:
    check("last transaction uncommitted", ours["transactions"][-1]["committed"], False)
    check("uncommitted not replayed", ours["transactions"][-1]["replayed"], False)
else:
    check("escape seen", any(b["escaped"] for t in ours["transactions"] for b in t["blocks"]), True)
    check("revokes seen", any(t["revoked"] for t in ours["transactions"]), True)
check("fast_commit", ours["fast_commit"], [])
if errors:
    print("\n".join(errors)); sys.exit(1)
EOF
for img in $IMAGES; do
	run "$E4R" logdump --json "$img"
	expect_rc 0 "logdump --json $img (all checksums good)"
	printf '%s\n' "$OUT" > "$img.json"
	python3 -m json.tool "$img.json" >/dev/null || fail "$img: JSON does not parse"
	run python3 compare.py "$img" "$img.json"
	expect_rc 0 "$img agrees with debugfs and dumpe2fs"
	# The text form names the same end and every transaction.
	run "$E4R" logdump "$img"
	expect_rc 0 "logdump $img"
	expect_out "^Transaction 2," "$img: text shows transaction 2"
	expect_out "End of the log at journal block [0-9]+ .*: a block without the journal.s magic number" "$img: text names the end"
done
exit 0
