# Text output speaks words, not JSON identifiers, and in German it speaks German: logdump
# (--decode --all --diagnose), diagnose, replay --dry-run and check -n (and check -y for the
# repairs) on journals with faults e2fsck confirms (a v1 and a v3 leak, a flipped commit, a
# revoked block, a torn crash) and on a damaged filesystem. The word lists are read from the
# program's own tables at test time: the block kinds (lib/fs/decode.c), the fates of
# transactions and blocks, the decisions and the ends of the log (their identifiers in lib/
# and recover/, their words in recover/); none of the identifiers may appear in the English
# or the German text, no English word of the lists in the German text, and each English
# word the English text uses must come out as de.po's translation. msgcmp de.po against
# the template is the oracle that the catalog is complete.
. "$E4R_TESTS_SRCDIR/lib.sh"

SRC=$E4R_TESTS_SRCDIR/..
PO=$SRC/po
command -v msgfmt >/dev/null && command -v msgcmp >/dev/null || skip "gettext's msgfmt/msgcmp not installed"
msgcmp "$PO/de.po" "$PO/e4recover.pot" 2> msgcmp.out || fail "de.po misses messages of the template: $(head -20 msgcmp.out)"
make -s -C "$E4R_TOP_BUILDDIR/po" install DESTDIR="$PWD/inst" localedir=/locale >make.out 2>&1 ||
	fail "make -C po install: $(tail -5 make.out)"
[ -s inst/locale/de/LC_MESSAGES/e4recover.mo ] || skip "make install put no German catalog (built without NLS?)"
export E4RECOVER_LOCALEDIR="$PWD/inst/locale"
de() { LC_ALL=C.UTF-8 LANGUAGE=de "$@"; }
de locale 2>&1 | grep -q "Cannot set" && skip "the C.UTF-8 locale is missing"

# The lists, from the sources: "ids" (one identifier a line) and "words" (English TAB German).
python3 - "$SRC" "$PO/de.po" > lists.txt <<'PY' || fail "cannot read the word lists from the sources"
import ast, re, sys
src, po = sys.argv[1], sys.argv[2]
def body(path, start):
    """The text of the function or table that begins with START, to its closing brace."""
    s = open(src + "/" + path, encoding="utf-8").read()
    i = s.index(start)
    depth, j = 0, s.index("{", i)
    for k in range(j, len(s)):
        depth += {"{": 1, "}": -1}.get(s[k], 0)
        if depth == 0:
            return s[i:k]
    raise SystemExit("no end of " + start)
LIT = r'"((?:[^"\\]|\\.)*)"'
ids, words = set(), set()
for path, start in [("lib/fs/decode.c", "} kinds[] = {"),
                    ("lib/replay/plan.c", "const char *replay_txn_fate_name"),
                    ("lib/replay/plan.c", "const char *replay_block_fate_name"),
                    ("lib/replay/view.c", "const char *replay_view_fate_name"),
                    ("lib/jbd/scan.c", "const char *jbd_scan_end_name"),
                    ("lib/jbd/fc.c", "const char *jbd_fc_stop_name"),
                    ("recover/answers.c", "static const char *const decision_names[]")]:
    b = body(path, start)
    for m in re.finditer(r'N_\(' + LIT + r'\)', b):
        words.add(ast.literal_eval('"%s"' % m.group(1)))
    # identifiers: the literals left once the texts (N_, _) are taken out
    for m in re.finditer(LIT, re.sub(r'N?_\(' + LIT + r'\)', "", b)):
        v = ast.literal_eval('"%s"' % m.group(1))
        if re.fullmatch(r"[a-z0-9_]+", v):
            ids.add(v)
for path, start in [("recover/cmd_replay.c", "static const char *decision_text"),
                    ("recover/cmd_replay.c", "static const char *block_fate_text"),
                    ("recover/cmd_replay.c", "static const char *txn_fate_text"),
                    ("recover/cmd_logdump.c", "static const char *const end_texts[]"),
                    ("recover/cmd_logdump.c", "static const char *const fate_texts[]"),
                    ("recover/logdump_fc.c", "static const char *stop_text")]:
    for m in re.finditer(r'N?_\(' + LIT + r'\)', body(path, start)):
        words.add(ast.literal_eval('"%s"' % m.group(1)))
# de.po's translations (msgid -> msgstr), single forms
tr, cur, field = {}, {}, None
for line in open(po, encoding="utf-8"):
    line = line.rstrip("\n")
    if line.startswith(("msgid ", "msgstr ")):
        field, _, rest = line.partition(" ")
        cur[field] = ast.literal_eval(rest)
    elif line.startswith('"') and field:
        cur[field] += ast.literal_eval(line)
    elif not line.strip():
        if cur.get("msgid"):
            tr[cur["msgid"]] = cur.get("msgstr", "")
        cur, field = {}, None
if cur.get("msgid"):
    tr[cur["msgid"]] = cur.get("msgstr", "")
if len(ids) < 30 or len(words) < 40:
    raise SystemExit("too few: %d identifiers, %d words" % (len(ids), len(words)))
for w in sorted(words):
    if not tr.get(w):
        raise SystemExit("no German for %r" % w)
for i in sorted(ids):
    print("id\t" + i)
for w in sorted(words):
    print("word\t%s\t%s" % (w, tr[w]))
PY
note "$(grep -c '^id' lists.txt) identifiers, $(grep -c '^word' lists.txt) words"

# --- the images, each fault confirmed by e2fsck ---
seeded_bytes data 65536 > data
# v1 and v3 leaks: the 2012 bug, made every time by write --reproduce
mkimg v1.img 32M -O ^metadata_csum
"$E4R" write --ops=40 --seed=1 --csum=v1 --reproduce=ialloc-3.4 v1.img >/dev/null 2>&1 || fail "write v1"
mkimg v3.img 32M -O metadata_csum
"$E4R" write --ops=40 --seed=1 --csum=v3 --reproduce=ialloc-3.4 v3.img >/dev/null 2>&1 || fail "write v3"
# a debugfs journal: T1 logs 100-102, T2 logs 200 and revokes 100, T3 logs 300; T2's commit flipped
mkimg dbg.img 16M -O metadata_csum
jwrite dbg.img "jo -c" "jw -b 100,101,102 $PWD/data" "jc" "jo" "jw -b 200 -r 100 $PWD/data" "jc" \
	"jo" "jw -b 300 $PWD/data" "jc"
cp dbg.img revoke.img
commit=$(debugfs -R "logdump" dbg.img 2>&1 | sed -n 's/.*type 2 (commit block) at block \([0-9]*\).*/\1/p' | sed -n 2p)
[ -n "$commit" ] || fail "debugfs logdump shows no second commit block"
flip dbg.img $(( $(jblock_offset dbg.img "$commit") + 300 )) 3
# a crash: power cut in the middle of a workload's journal writes
mkimg crash.img 32M -O metadata_csum
"$E4R" write --ops=60 --seed=2 --crash-after=40 crash.img >/dev/null 2>&1
# a damaged filesystem: a link count e2fsck names
mkimg fs.img 16M
debugfs -w -R "mkdir d" fs.img >/dev/null 2>&1 && debugfs -w -R "write data d/f" fs.img >/dev/null 2>&1 ||
	fail "debugfs populate"
debugfs -w -R "sif d/f links_count 5" fs.img >/dev/null 2>&1 || fail "debugfs sif"
for img in v1 v3 dbg; do
	cp $img.img oracle.img
	run e2fsck -fy oracle.img
	expect_out "Journal (checksum error found|transaction [0-9]+ was corrupt)" "oracle: e2fsck finds the fault in $img"
done
run e2fsck -fn fs.img
expect_out "ref count is 5, should be 1" "oracle: e2fsck finds the link count"

# --- every command in English and in German ---
: > en.txt; : > de.txt
both() { # ARGS...: run in English and German, append both outputs
	local en dee
	en=$("$E4R" "$@" 2>&1); dee=$(de "$E4R" "$@" 2>&1)
	printf '%s\n' "$en" >> en.txt; printf '%s\n' "$dee" >> de.txt
	[ -n "$dee" ] || fail "$*: no output"
	[ "$en" != "$dee" ] || fail "$*: the German output is the English one"
}
for img in v1 v3 dbg revoke crash; do
	both logdump --decode --all --diagnose $img.img
	both logdump --decode --block=100 $img.img
	both diagnose $img.img
	for p in auto stop skip-block skip-transaction all; do
		both replay --dry-run --policy=$p $img.img
	done
	both check -n -f $img.img
	cp $img.img y.img; "$E4R" check -y -f y.img > y.en 2>&1; cat y.en >> en.txt
	cp $img.img y.img; de "$E4R" check -y -f y.img > y.de 2>&1; cat y.de >> de.txt
done
both check -n -f fs.img
cp fs.img y.img; "$E4R" check -y -f y.img >> en.txt 2>&1
cp fs.img y.img; de "$E4R" check -y -f y.img >> de.txt 2>&1
note "$(wc -l < en.txt) lines in English, $(wc -l < de.txt) in German"

# No identifier in either text; no English word of the lists in the German one, and the
# German for each that the English uses.
python3 - lists.txt en.txt de.txt <<'PY' || fail "identifiers or English words in the text output"
import re, sys
ids, words = [], []
for line in open(sys.argv[1], encoding="utf-8"):
    f = line.rstrip("\n").split("\t")
    (ids if f[0] == "id" else words).append(f[1:] if f[0] == "word" else f[1])
en, de = (open(p, encoding="utf-8").read() for p in sys.argv[2:4])
bad = []
for i in ids:
    # an identifier with '_' is never a word of the text; a one-word one only where it is
    # not also one of the words (the fate "replayed" is both)
    if "_" not in i and any(i == w[0] for w in words):
        continue
    for name, text in (("English", en), ("German", de)):
        m = re.search(r"(?<![\w-])" + re.escape(i) + r"(?![\w-])", text)
        if m and ("_" in i or name == "German"):
            line = text[text.rfind("\n", 0, m.start()) + 1:text.find("\n", m.end())]
            bad.append("%s text has identifier %r: %s" % (name, i, line))
used = 0
for w, g in words:
    pat = r"(?<![\w-])" + re.escape(w) + r"(?![\w-])"
    if re.search(pat, en):
        used += 1
        if g not in de:
            bad.append("English uses %r, German lacks %r" % (w, g))
    m = re.search(pat, de)
    # a word German shares (a loan word) is not English left over: only flag it when
    # the translation differs
    if m and w != g:
        line = de[de.rfind("\n", 0, m.start()) + 1:de.find("\n", m.end())]
        bad.append("German text has English %r: %s" % (w, line))
if used < 12:
    bad.append("the images use only %d of the words: the test sees too little" % used)
for b in bad[:30]:
    print(b)
sys.exit(1 if bad else 0)
PY
exit 0
