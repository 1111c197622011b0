# make check TESTS=... with a name that is no test fails before anything runs (a typo
# must not pass as "0 passed"), and says which name; a real name beside it does not
# save the run.
. "$E4R_TESTS_SRCDIR/lib.sh"

runner() {
	run env TESTS="$1" E4R_TEST_JOBS=1 bash "$E4R_TESTS_SRCDIR/runner.sh" \
		"$E4R_TOP_BUILDDIR" "$E4R_TESTS_SRCDIR"
}
[ -f "$E4R_TESTS_SRCDIR/t/nomem-rule.sh" ] || fail "no tests/t/nomem-rule.sh to name"

runner "no-such-test"
[ "$RC" -ne 0 ] || fail "an unknown test name passed (exit 0)"
expect_out "no such test: no-such-test" "the unknown name is named"
expect_out "^0 passed, 0 failed" "nothing ran"

runner "nomem-rule.sh no-such-test t/also-missing.sh"
[ "$RC" -ne 0 ] || fail "a real name beside an unknown one passed"
expect_out "no such test: no-such-test also-missing" "both unknown names are named"
expect_no_out "^ok +nomem-rule" "no test ran although a name was unknown"
exit 0
