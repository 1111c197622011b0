#!/bin/bash
# Test runner behind `make check`: unit tests of lib/ and image tests (tests/t/*.sh), several
# at a time. Usage: runner.sh TOP_BUILDDIR TESTS_SRCDIR   (TESTS="name ..." runs only those)
# Each test exits 0 (pass), 77 (skip, with its reason on the last line) or anything else (fail).
# A line "ok/FAIL/skip NAME" is printed as each test ends; the last line printed is
# "N passed, N failed, N skipped".
#
# How many at a time: E4R_TEST_JOBS if set, else make's -jN (it reaches us in MAKEFLAGS;
# -j1 runs one at a time), else twice the number of CPUs: most tests wait on the disk,
# e2fsck, the kernel or sleep more than they compute, so more jobs than CPUs pays.
# Every test runs in its own scratch directory (E4R_WORK) and writes its own log, so tests
# share no file. The slowest tests of the previous run (tests/logs/durations) start first,
# so that no long test is left running alone at the end.
# Every --json document a test makes e4recover print is checked against doc/schema/: $E4R is
# tests/tools/json_shim.sh, which keeps each such run's stdout for tests/tools/json_validate.py
# to read when the test ends; a violation fails the test, with the reasons in its log. Without
# python3's jsonschema (build-aux/install-deps.sh installs it), $E4R is the program itself
# and a line says that nothing is validated.
set -u
top_build=$1
srcdir=$2
logdir=$top_build/tests/logs
mkdir -p "$logdir"
export E4R="$top_build/recover/e4recover"
export E4R_TOP_BUILDDIR="$top_build"
export E4R_TESTS_SRCDIR="$srcdir"
export E4R_TESTS_TOOLS="$srcdir/tools" E4R_SHUTDOWN="$top_build/tests/tools/shutdown" \
	E4R_FSMETA="$top_build/tests/tools/fsmeta"
export PATH="/sbin:/usr/sbin:$PATH"
# The tests call python3 hundreds of times: call the interpreter itself, not a version
# manager's shim in front of it (pyenv's costs several times the interpreter's own start).
py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$py" ] &&
	PATH="$(dirname "$py"):$PATH"
export E2FSCK_CONFIG=/dev/null TZ=GMT0 LC_ALL=C
export E2FSPROGS_SKIP_PROGRESS=1 MKE2FS_CONFIG=/etc/mke2fs.conf
# The lock that keeps mkcrash.py's sync(2) away from images made of uncommitted journal
# state (tests/lib.sh: with_sync_lock).
export E4R_SYNC_LOCK=$logdir/.sync.lock
# The seed of every test's random data (tests/lib.sh: seeded_bytes); set it to explore.
export E4R_TEST_SEED="${E4R_TEST_SEED:-1}"

cpus=$(nproc 2>/dev/null || echo 2)

json_spool=""
if python3 -c 'import jsonschema' 2>/dev/null; then
	json_spool=$logdir/json-spool
	export E4R_JSON_REAL=$E4R E4R="$srcdir/tools/json_shim.sh"
else
	echo "note: no python3 jsonschema module: --json output is not validated (build-aux/install-deps.sh)"
fi

# The -j of the make that runs us: "-jN" (N jobs), "-j" alone (no limit), none (plain make).
make_jobs() {
	local flag
	for flag in ${MAKEFLAGS:-}; do
		case $flag in
		--) break ;; # variable assignments follow
		-j) echo $((cpus * 2)); return ;;
		-j[0-9]*) echo "${flag#-j}"; return ;;
		esac
	done
	echo $((cpus * 2))
}
jobs=${E4R_TEST_JOBS:-$(make_jobs)}
case $jobs in '' | *[!0-9]* | 0) jobs=1 ;; esac

# TESTS names image tests as tests/t/NAME.sh's NAME (NAME.sh and t/NAME.sh are taken too)
# and unit tests as test_NAME or unit/test_NAME.
TESTS=$(for w in ${TESTS:-}; do w=${w#t/}; printf '%s ' "${w%.sh}"; done)
wanted() {
	[ -z "$TESTS" ] && return 0
	case " $TESTS" in *" $1 "*) return 0 ;; esac
	return 1
}

# A name in TESTS that is no test fails the run before anything runs: a typo must not
# pass as "0 passed".
unknown=""
for w in $TESTS; do
	if [ ! -f "$srcdir/t/$w.sh" ] && [ ! -x "$top_build/tests/unit/${w#unit/}" ]; then
		unknown="$unknown $w"
	fi
done
if [ -n "$unknown" ]; then
	echo "no such test:$unknown (image tests are tests/t/NAME.sh, unit tests tests/unit/test_NAME)"
	echo "0 passed, 0 failed, 0 skipped"
	exit 2
fi

# The tests to run, one "NAME LOG COMMAND" per line (names never hold spaces).
list_tests() {
	local t base
	for t in "$top_build"/tests/unit/test_*; do
		[ -x "$t" ] || continue
		base=$(basename "$t")
		wanted "unit/$base" || wanted "$base" || continue
		echo "unit/$base $logdir/$base.log $t"
	done
	for t in "$srcdir"/t/*.sh; do
		[ -f "$t" ] || continue
		base=$(basename "$t" .sh)
		wanted "$base" || continue
		echo "$base $logdir/$base.log $t"
	done
}

# Slowest first, by the durations the previous run left (tests it did not run count as slow:
# they may be); ties keep the listing's order.
durations=$logdir/durations
order_tests() {
	awk 'FILENAME == ARGV[1] { secs[$1] = $2; next }
	     { print (($1 in secs) ? secs[$1] : 1e9), FNR, $0 }' "$durations" - 2>/dev/null |
		sort -k1,1gr -k2,2n | cut -d' ' -f3-
}
[ -f "$durations" ] || : >"$durations"

# The --json documents of a test's runs (SPOOL) against the schemas. A violation appends the
# reasons to LOG and returns 1; otherwise a note of how many were checked, unless the test
# skipped (the skip reason stays its log's last line).
check_json() { # SPOOL LOG RC
	local out
	if ls "$1"/*.args >/dev/null 2>&1; then
		if ! out=$(python3 "$srcdir/tools/json_validate.py" "$srcdir/../doc/schema" --spool "$1" 2>&1); then
			printf '%s\nFAIL: --json output does not match doc/schema (e4recover-json(5))\n' "$out" >>"$2"
			return 1
		fi
		[ "$3" -ne 77 ] && echo "# --json output: $out" >>"$2"
	fi
	rm -rf "$1"
	return 0
}

# One test, in the background: a unit test as it is, an image test in a fresh scratch
# directory that is removed unless the test failed.
run_one() { # NAME LOG COMMAND
	local name=$1 log=$2 t=$3 work rc spool
	case $name in
	unit/*) exec "$t" >"$log" 2>&1 ;;
	esac
	work=$(mktemp -d "${TMPDIR:-/tmp}/e4r-test-$name.XXXXXX") || exit 99
	spool=""
	if [ -n "$json_spool" ]; then
		spool=$json_spool/$name
		rm -rf "$spool" && mkdir -p "$spool" || exit 99
	fi
	# TMPDIR too: whatever a test's tools put in temporary files (the comparison
	# helpers' scratch images) stays in its own directory and goes with it.
	(cd "$work" && E4R_WORK="$work" TMPDIR="$work" E4R_JSON_SPOOL="$spool" exec bash "$t") >"$log" 2>&1
	rc=$?
	if [ -n "$spool" ] && ! check_json "$spool" "$log" "$rc"; then
		rc=1
	fi
	{ [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ]; } && rm -rf "$work"
	exit "$rc"
}

passed=0 failed=0 skipped=0
failures=""
declare -A job_name=() job_log=() job_start=()
new_durations=""

record() { # name rc log
	local name=$1 rc=$2 log=$3
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1)); echo "ok   $name"
	elif [ "$rc" -eq 77 ]; then
		skipped=$((skipped + 1)); echo "skip $name: $(tail -n 1 "$log")"
	else
		failed=$((failed + 1)); failures="$failures $name"
		echo "FAIL $name (exit $rc; E4R_TEST_SEED=$E4R_TEST_SEED; log: $log)"
		tail -n 15 "$log" | sed 's/^/     | /'
	fi
}

# Wait for any one test to end and report it.
reap() {
	local pid rc name
	wait -n -p pid "${!job_name[@]}"
	rc=$?
	name=${job_name[$pid]}
	record "$name" "$rc" "${job_log[$pid]}"
	new_durations="$new_durations$name $(awk -v a="${job_start[$pid]}" -v b="$EPOCHREALTIME" \
		'BEGIN { printf "%.1f", b - a }')
"
	unset "job_name[$pid]" "job_log[$pid]" "job_start[$pid]"
}

# ^C or a kill of make stops the tests too.
stop_all() {
	trap - INT TERM
	[ ${#job_name[@]} -gt 0 ] && kill -TERM "${!job_name[@]}" 2>/dev/null
	wait
	exit 130
}
trap stop_all INT TERM

while read -r name log t; do
	while [ ${#job_name[@]} -ge "$jobs" ]; do reap; done
	run_one "$name" "$log" "$t" </dev/null &
	job_name[$!]=$name
	job_log[$!]=$log
	job_start[$!]=$EPOCHREALTIME
done < <(list_tests | order_tests)
while [ ${#job_name[@]} -gt 0 ]; do reap; done

# Keep the durations of tests not run this time (TESTS=...) for the next ordering.
{
	printf '%s' "$new_durations"
	cat "$durations"
} | awk '!seen[$1]++' | sort -k2,2gr >"$durations.new" && mv "$durations.new" "$durations"

[ -n "$failures" ] && echo "failed:$failures"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
