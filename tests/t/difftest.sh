# The differential tester's short form: every damage in tests/difftest/regress.txt, then
# a few hundred new ones from the run's seed, over every flavour's populated base;
# check -n -f must agree with e2fsck -fn (the oracle) on each: damaged or clean, never
# exit 8 where e2fsck checks, never a write. The long form is `make difftest-long`.
. "$E4R_TESTS_SRCDIR/lib.sh"

need_kernel_mount
[ -x "$E4R_FSMETA" ] || fail "no $E4R_FSMETA: build it with make check"
run "$PY" "$E4R_TESTS_SRCDIR/difftest/difftest.py" --e4recover "$E4R" --fsmeta "$E4R_FSMETA" \
	--work "$PWD/bases" --seed "$E4R_TEST_SEED" --count "${E4R_DIFFTEST_COUNT:-400}" --jobs 1 \
	--regress "$E4R_TESTS_SRCDIR/difftest/regress.txt" --gaps "$E4R_TESTS_SRCDIR/difftest/gaps.txt"
expect_out "^[0-9]+ passed, 0 failed$" "every damage judged as e2fsck judges it"
expect_rc 0 "difftest"
# It ran what it says: the regression cases and the new ones, over every flavour.
cases=$(printf '%s\n' "$OUT" | sed -n 's/^# cases run: \([0-9]*\).*/\1/p')
want=$(grep -cv '^\s*\(#\|$\)' "$E4R_TESTS_SRCDIR/difftest/regress.txt")
[ "$cases" -ge $((want + ${E4R_DIFFTEST_COUNT:-400} * 9 / 10)) ] ||
	fail "only $cases cases ran (regress.txt has $want)"
