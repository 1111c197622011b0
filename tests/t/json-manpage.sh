# e4recover-json(5) (doc/e4recover-json.5): man formats it without a warning, and it names
# every top-level field of every document the schemas (doc/schema/) describe, the error
# document's fields and each deprecated alias with its new name.
. "$E4R_TESTS_SRCDIR/lib.sh"

PAGE=$E4R_TESTS_SRCDIR/../doc/e4recover-json.5
command -v man >/dev/null || skip "needs man (man-db)"
warnings=$(LC_ALL=C man --warnings -l "$PAGE" 2>&1 >/dev/null)
[ -z "$warnings" ] || fail "man --warnings on e4recover-json.5: $warnings"
LC_ALL=C MANWIDTH=80 man -l "$PAGE" 2>/dev/null | grep -q "^DEPRECATED ALIASES" ||
	fail "the page renders with its sections"

python3 - "$PAGE" "$E4R_TESTS_SRCDIR/../doc/schema" <<'PY' || fail "fields missing from e4recover-json.5"
import glob, json, os, re, sys
page = open(sys.argv[1]).read()
# The words the page shows in bold (.B, .BR, .RB, \fB...\fR): where it names fields.
bold = set()
for line in page.splitlines():
    if re.match(r"\.(B|BR|RB) ", line):
        args = re.findall(r'"([^"]*)"|(\S+)', line[line.index(" ") + 1:])
        words = [a or b for a, b in args]
        start = 0 if line.startswith((".B ", ".BR ")) else 1
        bold.update(w for w in words[start::2])
    bold.update(re.findall(r"\\fB([^\\]+)\\fR", line))
bold = {w.replace("\\-", "-") for w in bold}
missing = []
for path in sorted(glob.glob(os.path.join(sys.argv[2], "*.schema.json"))):
    s = json.load(open(path))
    cmd = os.path.basename(path).split(".")[0]
    fields = set(s["$defs"]["report"]["properties"]) | set(s["$defs"]["error_document"]["properties"])
    fields |= set(s["$defs"]["error_document"]["properties"]["error"]["properties"])
    missing += ["%s: %s" % (cmd, f) for f in sorted(fields) if f not in bold]
    print(cmd, len(fields), "fields")
for old, new in (("errors", "problems"), ("errors_left", "problems_left"), ("checksum", "checksum_version"),
                 ("stored", "csum_stored"), ("crc_ok", "csum_ok"), ("error", "replay_error")):
    section = page[page.index(".SH DEPRECATED ALIASES"):page.index(".SH CHECK")]
    if not re.search(r"\\fB%s\\fR" % re.escape(old), section) or new not in section:
        missing.append("alias %s -> %s not in DEPRECATED ALIASES" % (old, new))
print("\n".join(missing) or "every field is named")
sys.exit(1 if missing else 0)
PY
echo "json-manpage: ok"
