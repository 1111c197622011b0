#!/bin/bash
# Benchmark: e4recover logdump --json against debugfs 'logdump -a' on a large journal
# (512 MiB journal, ~470 MiB of logged blocks written with debugfs's journal writer).
# Usage: bench/logdump.sh [E4RECOVER]   (default: recover/e4recover under the current dir)
# Env: BENCH_DIR (scratch dir, default a temp dir), BENCH_TXNS (transactions, default 120),
#      BENCH_TAGS (blocks per transaction, default 1000). Not part of make check.
set -eu
BENCH=$(cd "$(dirname "$0")" && pwd)
. "$BENCH/lib.sh"
E4R=$(bench_binary "${1:-recover/e4recover}")
export PATH="/sbin:/usr/sbin:$PATH" LC_ALL=C
TXNS=${BENCH_TXNS:-120}
TAGS=${BENCH_TAGS:-1000}
dir=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/e4r-bench-logdump.XXXXXX")}
mkdir -p "$dir"
cd "$dir"
img=big.img

"$BENCH/mkjournal.sh" "$dir" "$TXNS" "$TAGS"
dumpe2fs -h "$img" 2>/dev/null | grep -E '^(Journal (size|start|sequence)|Total journal)' || true


ours=$(timeit "e4recover logdump --json" "$E4R" logdump --json "$img")
text=$(timeit "e4recover logdump (text)" "$E4R" logdump "$img")
dec=$(timeit "e4recover logdump --json --decode" "$E4R" logdump --json --decode "$img")
ref=$(timeit "debugfs -R 'logdump -a'" debugfs -R "logdump -a" "$img")
echo "blocks logged: $("$E4R" logdump --json "$img" | grep -c '"fs_block"')"
printf 'ratio debugfs / e4recover --json: %.1fx\n' "$(echo "$ref / $ours" | bc -l)"
[ -n "${BENCH_DIR:-}" ] || rm -rf "$dir"
