# Every random input of the suite comes from a seed (E4R_TEST_SEED), so a failure replays:
# no test or helper reads /dev/urandom or bash's $RANDOM, or shuffles without a source.
. "$E4R_TESTS_SRCDIR/lib.sh"

cd "$E4R_TESTS_SRCDIR" || fail "no tests source dir"
hits=$(grep -nE '/dev/u?random|\$RANDOM|\$\{RANDOM|shuf( |$)' t/*.sh ./*.sh ./*.py tools/*.py 2>/dev/null |
	grep -v '^t/seeded-data.sh:' | grep -vE 'shuf .*--random-source')
[ -z "$hits" ] || fail "unseeded random data: $hits"
# The check itself: a line that reads /dev/urandom must be caught.
printf 'head -c 1 /dev/urandom\n' | grep -qE '/dev/u?random' || fail "the pattern misses /dev/urandom"
note "no unseeded random source in $(ls t/*.sh ./*.sh ./*.py tools/*.py | wc -l) files"
