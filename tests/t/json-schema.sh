# The --json contract (doc/schema/, e4recover-json(5)): the validator the runner applies to
# every --json run of the suite rejects broken documents (probes: a field missing, a wrong
# type, an unknown field, a value outside its enum, a deprecated alias that disagrees with
# its new name, a hex string that is not its number, bad JSON, an error code that is not the
# exit code), also through tests/tools/json_shim.sh; each subcommand's operational and usage
# errors under --json are an error document on stdout with the exit code the run has without
# --json, and the text error stays on stderr; a filesystem without a journal is a small valid
# document with exit 0; check's schema names every problem of the
# checker's table (lib/check/problem.c).
. "$E4R_TESTS_SRCDIR/lib.sh"

python3 -c 'import jsonschema' 2>/dev/null || skip "needs python3-jsonschema (build-aux/install-deps.sh)"
SCHEMAS=$E4R_TESTS_SRCDIR/../doc/schema
validate() { python3 "$E4R_TESTS_TOOLS/json_validate.py" "$SCHEMAS" "$@"; }
# The program itself: the runs below are validated here, one by one, with their exit codes.
REAL=${E4R_JSON_REAL:-$E4R}

mkimg j.img 16M -O metadata_csum
seeded_bytes data 8192 > data
jwrite j.img "jo -c" "jw -b 100,101 $PWD/data" "jc" "jo -c" "jw -b 102 -r 100 $PWD/data" "jc"

# ---- good documents pass ----
"$REAL" check -n -f --json j.img > check.json; rc=$?
run validate check check.json $rc; expect_rc 0 "check's report"
"$REAL" logdump --json --decode --diagnose j.img > logdump.json; rc=$?
run validate logdump logdump.json $rc; expect_rc 0 "logdump's report"
grep -q '"csum_stored_hex": "0x[0-9a-f]\{8\}"' logdump.json || fail "logdump gives the checksums in hex"
"$REAL" diagnose --json j.img > diagnose.json; rc=$?
run validate diagnose diagnose.json $rc; expect_rc 0 "diagnose's report"
"$REAL" replay --dry-run --json j.img > replay.json; rc=$?
run validate replay replay.json $rc; expect_rc 0 "replay's dry run"

# ---- probes: each broken copy must be rejected ----
# probe NAME COMMAND FILE RC PYTHON-EXPRESSION-ON-d: the copy of FILE changed by the expression.
probe() {
	local name=$1 cmd=$2 file=$3 rc=$4 expr=$5
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[2])
json.dump(d, open(sys.argv[3], "w"))' "$file" "$expr" "probe-$name.json" || fail "probe $name: cannot make it"
	run validate "$cmd" "probe-$name.json" "$rc"
	expect_rc 1 "probe $name: the validator must reject it"
	expect_out "JSON VIOLATION" "probe $name: says why"
}
probe missing-field check check.json 0 'del d["problems"]'
probe wrong-type check check.json 0 'd["problems"] = "0"'
probe unknown-field check check.json 0 'd["bogus"] = 1'
probe bad-enum check check.json 0 'd["reason"] = "sometimes"'
probe schema-version check check.json 0 'd["schema_version"] = 2'
probe wrong-command check check.json 0 'd["command"] = "logdump"'
probe alias-disagrees check check.json 0 'd["errors"] = d["problems"] + 1'
probe bad-policy replay replay.json 0 'd["policy"] = "sometimes"'
probe hex-disagrees logdump logdump.json 0 '
b = [b for t in d["transactions"] for b in t["blocks"] if "csum_stored_hex" in b][0]
b["csum_stored_hex"] = "0x%08x" % (b["csum_stored"] ^ 1)'
probe nested-unknown logdump logdump.json 0 'd["journal"]["bogus"] = True'
probe commit-without-time logdump logdump.json 0 'del d["transactions"][0]["commit_sec"]'
probe problems-miscounted diagnose diagnose.json 0 'd["problems"] = len(d["findings"]) + 1'
probe report-exit-8 diagnose diagnose.json 8 'pass'
printf '{"schema_version": 1, "command": "check"' > probe-cut.json
run validate check probe-cut.json 0; expect_rc 1 "probe cut: a truncated document"

# The whole chain the runner uses: the shim keeps a run's stdout, the validator rejects it.
mkdir spool
printf '#!/bin/sh\necho "{\\"schema_version\\": 1, \\"command\\": \\"diagnose\\", \\"bogus\\": 1}"\n' > fake
chmod +x fake
E4R_JSON_REAL=$PWD/fake E4R_JSON_SPOOL=$PWD/spool "$E4R_TESTS_TOOLS/json_shim.sh" diagnose --json x.img > shim.out ||
	fail "the shim gives the program's exit code (0)"
grep -q bogus shim.out || fail "the shim passes stdout through"
run validate --spool spool
expect_rc 1 "a broken document kept by the shim is rejected"
expect_out "JSON VIOLATION: e4recover diagnose --json x.img" "the violation names the run"

# ---- error documents ----
head -c 200000 j.img > truncated.img
# check -n goes on over a cut image with its superblock whole, as e2fsck -n does; one
# cut inside its primary superblock stops it (e2fsck: "short read while trying to open")
head -c 1500 j.img > cut-sb.img
mkimg nojournal.img 8M -O ^has_journal
# errcase NAME EXPECTED-RC ARGS...: with --json, the same exit code as without, one error
# document on stdout that the schema accepts, and stderr still says what went wrong.
errcase() {
	local name=$1 want=$2 cmd=$3; shift 3
	"$REAL" "$cmd" "$@" > /dev/null 2>&1; local plain=$?
	[ "$plain" -eq "$want" ] || fail "$name: $cmd without --json exits $plain, not $want"
	"$REAL" "$cmd" --json "$@" > "err-$name.json" 2> "err-$name.txt"; RC=$?
	expect_rc "$want" "$name: $cmd --json"
	[ -s "err-$name.txt" ] || fail "$name: nothing on stderr"
	run validate "$cmd" "err-$name.json" "$RC"; expect_rc 0 "$name: the error document"
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
e = d["error"]
sys.exit(0 if e["message"] and e["message"] in open(sys.argv[2], errors="replace").read() else 1)' \
		"err-$name.json" "err-$name.txt" || fail "$name: the error document's message is not what stderr says"
}
for cmd in check logdump replay diagnose; do
	errcase "$cmd-missing" 8 $cmd missing.img
	if [ $cmd = check ]; then
		errcase "$cmd-truncated" 8 $cmd cut-sb.img
	else
		errcase "$cmd-truncated" 8 $cmd truncated.img
	fi
	errcase "$cmd-bad-option" 16 $cmd --bogus j.img
	errcase "$cmd-no-image" 16 $cmd
done
# No journal is no failure (exit 0): the journal commands print the small document that says
# so, which the schema accepts, and a report's field that it lacks is still caught.
for cmd in logdump replay diagnose; do
	"$REAL" $cmd --json nojournal.img > "nj-$cmd.json"; rc=$?
	[ "$rc" -eq 0 ] || fail "$cmd --json without a journal exits $rc, not 0"
	run validate $cmd "nj-$cmd.json" $rc; expect_rc 0 "$cmd: the no-journal document"
	grep -q '"has_journal": false' "nj-$cmd.json" || fail "$cmd: the no-journal document says so"
	probe "no-journal-$cmd-extra" $cmd "nj-$cmd.json" 0 'd["transactions_more"] = 1'
	probe "no-journal-$cmd-claims-one" $cmd "nj-$cmd.json" 0 'd["has_journal"] = True'
done
errcase replay-bad-policy 16 replay --policy=sometimes j.img
errcase logdump-bad-number 16 logdump --transaction=abc j.img
python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))
sys.exit(0 if e["image"] == "missing.img" and e["error"]["image"] == "missing.img" else 1)' err-check-missing.json ||
	fail "the error document names the image"
# --help is text even with --json.
run "$REAL" check --json --help; expect_rc 0 "check --json --help"
expect_no_out '"schema_version"' "--help prints no document"

# ---- check's schema knows every problem of the checker's table ----
python3 -c 'import json, re, sys
names = set(re.findall(r"ROW\(E4R_PR_[A-Z0-9_]+,\s*\"([a-z0-9_]+)\"", open(sys.argv[1]).read()))
s = json.load(open(sys.argv[2]))
enum = set(s["$defs"]["report"]["properties"]["findings"]["items"]["properties"]["problem"]["enum"])
print("problem table:", len(names), "schema:", len(enum), "only in the table:", sorted(names - enum),
      "only in the schema:", sorted(enum - names))
sys.exit(0 if names == enum and names else 1)' "$E4R_TESTS_SRCDIR/../lib/check/problem.c" "$SCHEMAS/check.schema.json" ||
	fail "doc/schema/check.schema.json's problem names differ from lib/check/problem.c's"
echo "json-schema: ok"
