# The German translation (po/de.po): every message of the template translated, none
# fuzzy, printf formats agreeing (msgfmt -c is the oracle) and the checker's own
# placeholders (%i, %b, ...) kept; the catalog make install puts in place is the one the
# program reads, and with it LANGUAGE=de under a UTF-8 locale speaks German: --help, a
# finding, an error from the com_err table, and a question answered "j" (ja).
# The catalog is found through E4RECOVER_LOCALEDIR (the program is not installed).
. "$E4R_TESTS_SRCDIR/check_lib.sh"

PO=$E4R_TESTS_SRCDIR/../po
command -v msgfmt >/dev/null && command -v msgcmp >/dev/null || skip "gettext's msgfmt/msgcmp not installed"
grep -qx de "$PO/LINGUAS" || fail "po/LINGUAS does not list de"

# Every msgid of the template has a translation that is neither empty nor fuzzy.
msgcmp "$PO/de.po" "$PO/e4recover.pot" 2> msgcmp.out || fail "de.po misses messages of the template: $(head -20 msgcmp.out)"
STATS=$(msgfmt -c --statistics -o de.mo "$PO/de.po" 2>&1) || fail "msgfmt -c de.po: $STATS"
case $STATS in *untranslated* | *fuzzy*) fail "msgfmt --statistics: $STATS" ;; esac
want=$(($(grep -c '^msgid ' "$PO/e4recover.pot") - 1))
[ "$STATS" = "$want translated messages." ] || fail "msgfmt --statistics: '$STATS', the template has $want messages"

# The check's problem messages are templates of their own (no-c-format for msgfmt): the
# translation must keep each placeholder as many times as the English has it.
python3 - "$PO/de.po" <<'PY' || fail "a problem message's translation changes its placeholders"
import ast, collections, re, sys
entries, cur, field = [], None, None
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.rstrip("\n")
    if line.startswith("#,"):
        cur = {"flags": line, "msgid": "", "msgstr": ""}
        entries.append(cur)
    elif line.startswith(("msgid ", "msgstr ")) and cur is not None:
        field, _, rest = line.partition(" ")
        cur[field] = ast.literal_eval(rest)
    elif line.startswith('"') and cur is not None and field:
        cur[field] += ast.literal_eval(line)
    elif not line:
        cur, field = None, None
n = 0
for e in entries:
    if "no-c-format" not in e["flags"]:
        continue
    n += 1
    a = collections.Counter(re.findall(r"%.", e["msgid"]))
    b = collections.Counter(re.findall(r"%.", e["msgstr"]))
    if a != b:
        sys.exit("%r -> %r" % (e["msgid"], e["msgstr"]))
if n < 100:
    sys.exit("only %d problem messages marked no-c-format" % n)
PY

# make install puts the catalog where the program looks (under DESTDIR, localedir moved).
make -s -C "$E4R_TOP_BUILDDIR/po" install DESTDIR="$PWD/inst" localedir=/locale >make.out 2>&1 ||
	fail "make -C po install: $(tail -5 make.out)"
MO=inst/locale/de/LC_MESSAGES/e4recover.mo
[ -s "$MO" ] || skip "make install put no German catalog (built without NLS?)"
cmp -s "$MO" de.mo || fail "the installed catalog is not de.po's"

export E4RECOVER_LOCALEDIR="$PWD/inst/locale"
de() { LC_ALL=C.UTF-8 LANGUAGE=de "$@"; }
de locale 2>&1 | grep -q "Cannot set" && skip "the C.UTF-8 locale is missing"

run de "$E4R" --help
expect_rc 0 "--help in German"
expect_out "^Aufruf: e4recover UNTERBEFEHL" "the German usage line"
expect_out "ein Dateisystem prüfen und wahlweise reparieren" "a subcommand's summary in German"
expect_no_out "^Usage: |check a filesystem and optionally repair it" "English left in --help"
run de "$E4R" check --help
expect_out "auch ein als sauber markiertes Dateisystem prüfen" "an option's help in German"
expect_out "\[--undo=DATEI\].*ABBILD" "the synopsis in German"
expect_no_out "check even a filesystem marked clean" "English option help"
# Without LANGUAGE the C locale stays English: the catalog is not forced on anyone.
run "$E4R" --help
expect_out "^Usage: e4recover SUBCOMMAND" "English under the C locale"

# A finding e2fsck names too (the oracle that the damage is there), told in German.
base_image
i1=$(debugfs -R "stat f1" base.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
cp base.img t.img
debugfs -w -R "sif f1 links_count 5" t.img >/dev/null 2>&1 || fail "debugfs sif"
run e2fsck -fn t.img
expect_out "Inode $i1 ref count is 5, should be 1" "oracle"
run de "$E4R" check -n -f t.img
expect_rc 4 "check -n -f in German"
expect_out "^Referenzzähler von Inode $i1 ist 5, sollte 1 sein$" "the finding in German"
expect_out "^Durchgang 4: Referenzzähler werden geprüft$" "a pass header in German"
expect_out "WARNUNG: Dateisystem hat noch Fehler" "the verdict in German"
expect_no_out "ref count is|Pass 4: Checking|WARNING" "English in the German report"

# A message of the com_err table (lib/util/e4r_err.et) is translated too.
head -c 65536 /dev/zero > zero.img
run de "$E4R" check -n zero.img
expect_out "kein ext2/ext3/ext4-Dateisystem" "a com_err message in German"
expect_no_out "not an ext2/ext3/ext4 filesystem" "the English com_err message"

# On a terminal the question is German and "j" (ja) answers yes.
if command -v script >/dev/null; then
	cp t.img tty.img
	printf 'j\n' | de script -qec "$E4R check -f tty.img" /dev/null > tty.out 2>&1
	grep -q "Beheben (ja/nein/alle)?" tty.out || fail "no German question: $(cat tty.out)"
	run e2fsck -fn tty.img
	expect_rc 0 "oracle: clean after answering j"
else
	note "script(1) not installed: the German question is not tried"
fi
exit 0
