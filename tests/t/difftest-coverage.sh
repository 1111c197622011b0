# The coverage list of e2fsck's problem codes (tests/difftest/COVERAGE) stays true to
# the checker's problem table (lib/check/problem.c): well formed, naming only problems
# that exist, leaving none of ours out, counts right. Then the same check on copies that
# drifted in each of those ways must fail, so that it can.
. "$E4R_TESTS_SRCDIR/lib.sh"

cov="$E4R_TESTS_SRCDIR/difftest/COVERAGE"
table="$E4R_TESTS_SRCDIR/../lib/check/problem.c"
checker="$E4R_TESTS_SRCDIR/difftest/coverage.py"
[ -f "$cov" ] && [ -f "$table" ] || fail "COVERAGE or lib/check/problem.c not found"

run python3 "$checker" "$cov" "$table"
expect_rc 0 "COVERAGE against lib/check/problem.c"
expect_out "^coverage: [0-9]+ codes" "the summary line"

# drifted NAME SED-SCRIPT FILE REGEX: the checker must fail on FILE edited by SED-SCRIPT
# (a copy of COVERAGE or of problem.c) and say REGEX.
drifted() {
	local c="$cov" t="$table"
	case $3 in
	cov) sed "$2" "$cov" > drift.cov; c=drift.cov ;;
	table) sed "$2" "$table" > drift.c; t=drift.c ;;
	esac
	cmp -s "$c" "$cov" && cmp -s "$t" "$table" && fail "$1: the edit changed nothing"
	run python3 "$checker" "$c" "$t"
	expect_rc 1 "$1"
	expect_out "$4" "$1"
}

# A problem renamed in problem.c: the covered line naming the old name is stale, and
# the new name is on no line.
drifted "a renamed problem" 's/"link_count"/"link_count_wrong"/' table \
	"names 'link_count', not a problem"
drifted "a problem added to problem.c" \
	's/^\(\tROW(E4R_PR_TOO_MANY, \)"too_many_findings"/\1"too_many_findings2"/' table \
	"our problem too_many_findings2 is on no covered line"
drifted "a covered line naming no problem of ours" \
	's/^PR_4_BAD_REF_COUNT  covered  link_count /PR_4_BAD_REF_COUNT  covered  link_counts /' cov \
	"names 'link_counts'"
drifted "a code moved from covered to gap without the counts" \
	's/^PR_4_BAD_REF_COUNT  covered  /PR_4_BAD_REF_COUNT  gap  /' cov "counts say"
drifted "an unknown status" 's/^PR_2_BAD_INO  covered  /PR_2_BAD_INO  maybe  /' cov "status 'maybe'"
drifted "a code listed twice" '/^PR_2_BAD_INO  /p' cov "already listed"
drifted "a line with one space between fields" 's/^PR_3_NO_ROOT_INODE  covered  /PR_3_NO_ROOT_INODE covered  /' cov \
	"not three fields|not a problem code"
drifted "an OWN line removed" '/^OWN  errors_flag  /d' cov \
	"our problem errors_flag is on no covered line and not OWN"
drifted "an OWN name also covering a code" \
	's/^PR_4_BAD_REF_COUNT  covered  link_count /PR_4_BAD_REF_COUNT  covered  link_count,errors_flag /' cov \
	"OWN errors_flag, yet"
note "$(python3 "$checker" "$cov" "$table")"
