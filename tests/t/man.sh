# The manual page: man(1) reads it without a warning, and its OPTIONS section documents
# exactly the options each subcommand's --help lists (both ways: an option added to one
# side only fails here), every subcommand --help lists, and every replay policy.
. "$E4R_TESTS_SRCDIR/lib.sh"

page=$E4R_TOP_BUILDDIR/doc/e4recover.8
[ -f "$page" ] || fail "no $page (configure makes it from doc/e4recover.8.in)"
command -v man > /dev/null || skip "needs man (Debian: man-db)"

LC_ALL=C MANWIDTH=80 man --warnings -l "$page" > page.txt 2> warnings.txt
[ -s warnings.txt ] && { cat warnings.txt; fail "man --warnings reports the above"; }
grep -q "^OPTIONS" page.txt || fail "the page renders without an OPTIONS section"

# "SECTION OPTION" for every option named in a .TP tag of a .SS subsection of SECTION (.SH),
# the roff escapes taken out. The tag of a .TP is the line after it.
man_tags() {
	awk '/^\.SH/ { sh = $0; sub(/^\.SH +/, "", sh); gsub(/"/, "", sh); ss = ""; next }
	     /^\.SS/ { ss = $0; sub(/^\.SS +/, "", ss); gsub(/"/, "", ss); next }
	     /^\.TP/ { tag = 1; next }
	     tag { tag = 0; t = $0
		   gsub(/\\f[BIRP]/, "", t); gsub(/\\-/, "-", t); gsub(/\\c/, "", t); gsub(/"/, " ", t)
		   sub(/^\.[A-Z]+ +/, "", t)
		   n = split(t, w, /[ ,=]+/)
		   for (i = 1; i <= n; i++) if (w[i] != "") print sh "|" ss "|" w[i] }' "$page"
}
man_tags > tags.txt
grep -q '^OPTIONS|check|-n$' tags.txt || fail "the parser of the page finds no -n under check: $(head -5 tags.txt)"

run "$E4R" --help
subs=$(printf '%s\n' "$OUT" | awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
[ "$(echo $subs)" = "check logdump replay diagnose write" ] || fail "--help lists subcommands: $subs"
awk -F'|' '$1 == "OPTIONS" && $2 != "Every subcommand" { print $2 }' tags.txt | sort -u > man-subs.txt
printf '%s\n' $subs | sort > help-subs.txt
diff help-subs.txt man-subs.txt || fail "the page's OPTIONS subsections are not the subcommands --help lists"

for sub in $subs; do
	help_options "$sub" > help.txt
	[ -s help.txt ] || fail "$sub --help lists no option"
	awk -F'|' -v want="$sub" '$1 == "OPTIONS" && ($2 == want || $2 == "Every subcommand") && $3 ~ /^--?[A-Za-z0-9]/ { print $3 }' \
		tags.txt | sort -u > man.txt
	diff help.txt man.txt > diff.txt || {
		cat diff.txt
		fail "$sub: options in --help (<) and the page (>) differ"
	}
	note "$sub: $(wc -l < help.txt) options in both"
done

help_values replay --policy | sort > help-pol.txt
awk -F'|' '$1 == "REPLAY POLICIES" { print $3 }' tags.txt | sort -u > man-pol.txt
diff help-pol.txt man-pol.txt || fail "replay policies in --help (<) and the page's REPLAY POLICIES (>) differ"

# The sections the page must have, and the exit codes of the program (cli.h).
for s in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" ENVIRONMENT FILES EXAMPLES "SEE ALSO"; do
	grep -q "^$s" page.txt || fail "no $s section"
done
for code in 0 1 4 8 16; do
	awk -F'|' -v c="$code" '$1 == "EXIT STATUS" && $3 == c { found = 1 } END { exit !found }' tags.txt ||
		fail "exit code $code is not documented"
done
for ref in 'e2fsck(8)' 'debugfs(8)' 'e2undo(8)' 'e4recover-json(5)'; do
	grep -qF "$ref" page.txt || fail "SEE ALSO lacks $ref"
done
exit 0
