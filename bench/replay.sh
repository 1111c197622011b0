#!/bin/bash
# Benchmark: e4recover replay --policy=stop against e2fsck -E journal_only -y on the same image
# (bench/mkjournal.sh: 512 MiB journal, ~470 MiB of logged blocks). Each run starts from a
# fresh copy of the image; the copy is not timed. Prints the best of 3 and the ratio.
# Usage: bench/replay.sh [E4RECOVER]   Env: BENCH_DIR, BENCH_TXNS (120), BENCH_TAGS (1000).
# Not part of make check.
set -eu
BENCH=$(cd "$(dirname "$0")" && pwd)
. "$BENCH/lib.sh"
E4R=$(bench_binary "${1:-recover/e4recover}")
export PATH="/sbin:/usr/sbin:$PATH" LC_ALL=C E2FSCK_CONFIG=/dev/null
TXNS=${BENCH_TXNS:-120}
TAGS=${BENCH_TAGS:-1000}
dir=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/e4r-bench-replay.XXXXXX")}
mkdir -p "$dir"
"$BENCH/mkjournal.sh" "$dir" "$TXNS" "$TAGS"
img=$dir/big.img work=$dir/work.img

# every run starts from a fresh copy of the image (not timed)
BENCH_BEFORE='cp --sparse=always "$img" "$work"; sync'

ours=$(timeit "e4recover replay --policy=stop" "$E4R" replay --policy=stop "$work")
ref=$(timeit "e2fsck -E journal_only -y" e2fsck -E journal_only -y "$work")
# Both must leave the same image (checked once, outside the timing).
cp --sparse=always "$img" "$work"; "$E4R" replay --policy=stop "$work" >/dev/null 2>&1 || true
cp --sparse=always "$img" "$dir/ref.img"; e2fsck -E journal_only -y "$dir/ref.img" >/dev/null 2>&1 || true
if python3 "$BENCH/../tests/tools/imgdiff.py" "$dir/ref.img" "$work" >/dev/null 2>&1; then
	echo "results identical to e2fsck"
else
	echo "results differ from e2fsck (or imgdiff.py not found)"
fi
printf 'ratio e2fsck / e4recover: %.2fx\n' "$(echo "$ref / $ours" | bc -l)"
rm -f "$work" "$dir/ref.img"
[ -n "${BENCH_DIR:-}" ] || rm -rf "$dir"
