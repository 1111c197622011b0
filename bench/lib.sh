# Shared by the benchmarks: timing. Sourced, not run.

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
