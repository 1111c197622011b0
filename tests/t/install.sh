# make install DESTDIR=...: the program, its manual page, the bash completion and a message
# catalog for every language in po/LINGUAS land under DESTDIR, and each works from there:
# the program runs, man reads the page, bash picks up the completion.
. "$E4R_TESTS_SRCDIR/lib.sh"

dest=$PWD/dest
make -s -C "$E4R_TOP_BUILDDIR" install DESTDIR="$dest" > install.log 2>&1 ||
	{ cat install.log; fail "make install DESTDIR=$dest"; }
find "$dest" -type f | sed "s|^$dest||" | sort > files.txt
cat files.txt

bin=$(grep '/bin/e4recover$' files.txt) || fail "no bin/e4recover installed"
run "$dest$bin" --version; expect_rc 0 "the installed program runs"
expect_out "^e4recover [0-9]" "the installed program prints its version"
man=$(grep '/man/man8/e4recover\.8$' files.txt) || fail "no man8/e4recover.8 installed"
grep -q '@PACKAGE_VERSION@' "$dest$man" && fail "the installed page still holds @PACKAGE_VERSION@"
if command -v man > /dev/null; then
	LC_ALL=C MANWIDTH=80 man -l "$dest$man" 2>&1 | grep -q "^EXIT STATUS" || fail "man cannot read the installed page"
fi
comp=$(grep '/bash-completion/completions/e4recover$' files.txt) || fail "no bash completion installed"
bash -c '. "$1"; complete -p e4recover' x "$dest$comp" | grep -q -- '-F _e4recover' ||
	fail "the installed completion does not complete e4recover"

json=$(grep '/man/man5/e4recover-json\.5$' files.txt) || fail "no man5/e4recover-json.5 installed"
for schema in check logdump replay diagnose; do
	grep -q "/doc/e4recover/schema/$schema\.schema\.json$" files.txt ||
		fail "no $schema schema installed"
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$dest$(grep "/$schema\.schema\.json$" files.txt)" ||
		fail "the installed $schema schema is not JSON"
done

for lang in $(sed 's/#.*//' "$E4R_TESTS_SRCDIR/../po/LINGUAS"); do
	grep -q "/locale/$lang/LC_MESSAGES/e4recover\.mo$" files.txt || fail "no catalog installed for $lang"
done

# Nothing but these (and the catalogs): an installed file nobody listed is a packaging surprise.
grep -v -e '/bin/e4recover$' -e '/man8/e4recover\.8$' -e '/completions/e4recover$' \
	-e '/LC_MESSAGES/e4recover\.mo$' -e '/man5/e4recover-json\.5$' \
	-e '/doc/e4recover/schema/[a-z]*\.schema\.json$' files.txt > other.txt
[ -s other.txt ] && { cat other.txt; fail "make install installs files not listed here"; }
exit 0
