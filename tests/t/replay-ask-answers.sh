# replay --answers=FILE refuses, before anything is written, what it cannot follow: a file that
# is not JSON (cut short, trailing text, a bad escape), no "answers" array, an entry without a
# member, a number out of range, an unknown decision, a failure answered twice, a correction
# for the block whose damage this test made unprovable (overwritten with seeded bytes: e2fsck
# and diagnose agree it fails, and nothing is proven), a file that does not exist, and
# --answers with another policy: exit 16, the file and the entry named, the image unchanged
# (cmp), with --json an error document; with --undo no undo file is left (e2undo restores the
# input from the next run's). A file that answers only some failures: off a
# terminal the rest are refused (the unanswered homes keep what they had, the answered one gets
# the flip this test made undone: the content debugfs logged). An entry no failure matches is
# named on stderr and changes nothing. Seeded damage of a replay's own document is parsed or
# refused, never anything else.
. "$E4R_TESTS_SRCDIR/lib.sh"

export E2FSPROGS_FAKE_TIME=1700000000

ask_images
cp dmg.img oracle.img
e2fsck -E journal_only -y oracle.img > oracle.txt 2>&1
grep -q "checksum error" oracle.txt || fail "e2fsck does not see the damage: $(cat oracle.txt)"
"$E4R" diagnose --json dmg.img > diag.json 2>/dev/null
python3 - diag.json <<'PY' || fail "diagnose does not see one proven flip at journal block 3 and nothing proven at 7"
import json, sys
f = {x["journal_block"]: x for x in json.load(open(sys.argv[1]))["findings"]}
assert f[3]["action"] == "replay_corrected" and f[7]["action"] == "stop", f
PY

# refused NAME JSON-TEXT ENTRY-REGEX [ARGS...]: exit 16 naming the file and ENTRY, nothing written.
refused() {
	local name=$1 text=$2 entry=$3; shift 3
	printf '%s' "$text" > "$name.json"
	cp dmg.img "$name.img"
	run "$E4R" replay --answers="$name.json" "$@" "$name.img" < /dev/null
	expect_rc 16 "$name"
	expect_out "answers file $name.json: $entry" "$name: the file and the entry are named"
	cmp "$name.img" dmg.img || fail "$name: the image was written"
	run "$E4R" replay --json --answers="$name.json" "$@" "$name.img" < /dev/null
	expect_rc 16 "$name, --json"
	printf '%s\n' "$OUT" | grep -q '"code": 16' || fail "$name: no error document with code 16"
	cmp "$name.img" dmg.img || fail "$name, --json: the image was written"
}
good='{"sequence": 1, "journal_block": 3, "decision": "replayed_corrected"}'
refused cut '{"answers": [{"sequence": 1, "journal_block": 3, "deci' "not JSON: .* expected at byte [0-9]+"
refused trailing "{\"answers\": [$good]} x" "not JSON: the end of the file expected at byte"
refused escape '{"answers": [], "x": "\q"}' "not JSON: an escape expected"
refused not-object '[1, 2]' "not JSON: an object expected at byte 0"
refused no-array '{"decisions": []}' 'no "answers" array'
refused no-decision '{"answers": [{"sequence": 1, "journal_block": 3}]}' 'answers\[0\] has no "decision"'
refused range "{\"answers\": [$good, {\"sequence\": 4294967296, \"journal_block\": 7, \"decision\": \"refused\"}]}" \
	'answers\[1\]: "sequence" is not a number'
refused unknown "{\"answers\": [$good, {\"sequence\": 2, \"journal_block\": 7, \"decision\": \"correct\"}]}" \
	'answers\[1\]: unknown decision "correct"'
refused twice "{\"answers\": [$good, $good]}" 'answers\[1\]: transaction 1, journal block 3 is answered already by answers\[0\]'
refused unproven "{\"answers\": [$good, {\"sequence\": 2, \"journal_block\": 7, \"decision\": \"replayed_corrected\"}]}" \
	'answers\[1\]: replayed_corrected for transaction 2, journal block 7, which has no proven correction'
rm -f missing.json
run "$E4R" replay --answers=missing.json dmg.img < /dev/null
expect_rc 16 "a file that does not exist"
expect_out "answers file missing.json: " "the missing file is named"

# With --undo: the refused run leaves no undo file, so the same command with good answers runs.
printf '{"answers": [%s, {"sequence": 2, "journal_block": 7, "decision": "replayed_corrected"}]}' "$good" > unproven-undo.json
cp dmg.img undo.img
run "$E4R" replay --undo=undo.e2undo --answers=unproven-undo.json undo.img < /dev/null
expect_rc 16 "an unproven correction with --undo"
[ -e undo.e2undo ] && fail "a refused run left its undo file"
cmp undo.img dmg.img || fail "an unproven correction with --undo: the image was written"
printf '{"answers": [%s]}' "$good" > good.json
run "$E4R" replay --undo=undo.e2undo --answers=good.json undo.img < /dev/null
expect_rc 1 "the same run with good answers"
e2undo undo.e2undo undo.img > /dev/null 2>&1 || fail "e2undo refuses the undo file"
cmp undo.img dmg.img || fail "e2undo did not give the input back"

# --answers belongs to ask: another policy with it is a usage error.
printf '{"answers": [%s]}' "$good" > one.json
cp dmg.img other.img
run "$E4R" replay --policy=auto --answers=one.json other.img
expect_rc 16 "--answers with --policy=auto"
expect_out "answers of --policy=ask" "says why"
cmp other.img dmg.img || fail "--answers with auto: the image was written"
run "$E4R" replay --policy=ask --answers=one.json --dry-run other.img < /dev/null
expect_rc 1 "--answers with --policy=ask"

# Only journal block 3 answered: corrected; journal block 7, unanswered off a terminal: refused.
cp dmg.img one.img
run "$E4R" replay --answers=one.json one.img < /dev/null
expect_rc 1 "a partial answers file"
expect_out "replayed_corrected \(answers\[0\] of one.json\)" "the answer from the file is said"
expect_out "no \(standard input is not a terminal\)" "the unanswered failure is refused"
blk() { dd if="$1" bs=1024 skip="$2" count=1 2>/dev/null | sha256sum; }
[ "$(blk one.img 101)" = "$(blk data 1)" ] || fail "fs block 101 is not what debugfs logged (the flip undone)"
[ "$(blk one.img 200)" = "$(blk dmg.img 200)" ] || fail "fs block 200 was written though refused"
[ "$(blk one.img 201)" = "$(blk data 1)" ] || fail "fs block 201 (intact in the log) is not what debugfs logged"

# An entry no question meets (no transaction 9 in this log) is named on stderr, not followed.
printf '{"answers": [%s, {"sequence": 9, "journal_block": 3, "decision": "refused"}]}' "$good" > stray.json
cp dmg.img stray.img
run "$E4R" replay --answers=stray.json stray.img < /dev/null
expect_rc 1 "an answers file with a stray entry"
expect_out "answers file stray.json: answers\[1\] \(transaction 9, journal block 3\) answers no failure" "the stray entry is named"
cmp stray.img one.img || fail "the stray entry changed what was written"

# Damaged answers files, made from a replay's own --json document by seeded cuts, byte flips
# and insertions: each run ends 1 (parsed) or 16 (refused), never otherwise, and writes nothing.
"$E4R" replay --dry-run --json --policy=all dmg.img > all.json 2>/dev/null
python3 - all.json "$E4R_TEST_SEED" <<'PY'
import random, sys
text = open(sys.argv[1], "rb").read()
rnd = random.Random("answers/" + sys.argv[2])
for i in range(150):
    b = bytearray(text)
    for _ in range(rnd.randint(1, 4)):
        k, at = rnd.randrange(4), rnd.randrange(len(b))
        if k == 0:
            del b[at:]
        elif k == 1:
            b[at] ^= 1 << rnd.randrange(8)
        elif k == 2:
            b[at:at] = bytes([rnd.choice(b'{}[]",:\\0-9.e') if rnd.random() < 0.7 else rnd.randrange(256)])
        else:
            b[at:at] = b"[" * rnd.randrange(1, 400)
        if not b:
            break
    open("mut-%03d.json" % i, "wb").write(bytes(b))
PY
cp dmg.img mut.img
parsed=0 refused=0
for f in mut-*.json; do
	"$E4R" replay --dry-run --answers="$f" mut.img < /dev/null > /dev/null 2>&1
	rc=$?
	case $rc in
	1) parsed=$((parsed + 1)) ;;
	16) refused=$((refused + 1)) ;;
	*) fail "$f: exit $rc (a damaged answers file must be parsed or refused)" ;;
	esac
done
cmp mut.img dmg.img || fail "a dry run with a damaged answers file wrote"
note "damaged answers files: $parsed parsed, $refused refused"
[ $refused -gt 0 ] || fail "no damaged answers file was refused: the damage tells nothing"
exit 0
