# Shared by the benchmarks: finding the binary, timing. Sourced, not run.

# bench_binary PATH: the absolute path of an executable e4recover, or exit 2 saying why.
bench_binary() {
	[ -x "$1" ] || { echo "no e4recover at $1 (give its path)" >&2; exit 2; }
	echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
}

# timeit LABEL COMMAND...: prints "LABEL  N.NNN s" on stderr and the best wall time of three
# runs on stdout. If BENCH_BEFORE is set, it is evaluated before each run, untimed.
timeit() {
	local best="" s e t i
	for i in 1 2 3; do
		[ -z "${BENCH_BEFORE:-}" ] || eval "$BENCH_BEFORE"
		s=$(date +%s.%N)
		"${@:2}" >/dev/null 2>&1 || true
		e=$(date +%s.%N)
		t=$(echo "$e - $s" | bc)
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
	done
	printf '%-40s %8.3f s\n' "$1" "$best" >&2
	echo "$best"
}
