#!/bin/bash
# Test runner behind `make check`: unit tests of lib/, then image tests (tests/t/*.sh).
# Usage: runner.sh TOP_BUILDDIR TESTS_SRCDIR   (TESTS="name ..." runs only those)
# Each test exits 0 (pass), 77 (skip, with its reason on the last line) or anything else (fail).
# The last line printed is "N passed, N failed, N skipped".
set -u
top_build=$1
srcdir=$2
logdir=$top_build/tests/logs
mkdir -p "$logdir"
export E4R="$top_build/recover/e4recover"
export E4R_TOP_BUILDDIR="$top_build"
export E4R_TESTS_SRCDIR="$srcdir"
export E4R_TESTS_TOOLS="$srcdir/tools" E4R_SHUTDOWN="$top_build/tests/tools/shutdown"
export PATH="/sbin:/usr/sbin:$PATH"
export E2FSCK_CONFIG=/dev/null TZ=GMT0 LC_ALL=C
export E2FSPROGS_SKIP_PROGRESS=1 MKE2FS_CONFIG=/etc/mke2fs.conf

passed=0 failed=0 skipped=0
failures=""

wanted() {
	[ -z "${TESTS:-}" ] && return 0
	case " $TESTS " in *" $1 "*) return 0 ;; esac
	return 1
}

record() { # name rc log
	local name=$1 rc=$2 log=$3
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1)); echo "ok   $name"
	elif [ "$rc" -eq 77 ]; then
		skipped=$((skipped + 1)); echo "skip $name: $(tail -n 1 "$log")"
	else
		failed=$((failed + 1)); failures="$failures $name"
		echo "FAIL $name (exit $rc; log: $log)"
		tail -n 15 "$log" | sed 's/^/     | /'
	fi
}

for t in "$top_build"/tests/unit/test_*; do
	[ -x "$t" ] || continue
	name=unit/$(basename "$t")
	wanted "$name" || wanted "$(basename "$t")" || continue
	log=$logdir/$(basename "$t").log
	"$t" >"$log" 2>&1
	record "$name" $? "$log"
done

for t in "$srcdir"/t/*.sh; do
	[ -f "$t" ] || continue
	base=$(basename "$t" .sh)
	wanted "$base" || continue
	log=$logdir/$base.log
	work=$(mktemp -d "${TMPDIR:-/tmp}/e4r-test-$base.XXXXXX")
	(cd "$work" && E4R_WORK="$work" bash "$t") >"$log" 2>&1
	rc=$?
	record "$base" $rc "$log"
	[ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] && rm -rf "$work"
done

[ -n "$failures" ] && echo "failed:$failures"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
