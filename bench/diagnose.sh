#!/bin/bash
# Benchmark: locating one flipped bit in a transaction of 10,000 blocks (v1: one crc32 over
# 40 MiB; v3: per-block crc32c), e4recover diagnose against logdump (the scan alone).
# Usage: bench/diagnose.sh [E4RECOVER]   (default: recover/e4recover under the current dir)
# Env: BENCH_DIR (scratch dir, default a temp dir), BENCH_TAGS (blocks, default 10000).
# Not part of make check.
set -eu
BENCH=$(cd "$(dirname "$0")" && pwd)
. "$BENCH/lib.sh"
E4R=$(bench_binary "${1:-recover/e4recover}")
export PATH="/sbin:/usr/sbin:$PATH" LC_ALL=C
TAGS=${BENCH_TAGS:-10000}
dir=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/e4r-bench-diagnose.XXXXXX")}
mkdir -p "$dir"
cd "$dir"

build() { # IMAGE MKE2FS-FEATURES JO-COMMAND
	[ -f "$1.done" ] && return 0
	echo "building $1: one transaction of $TAGS blocks ($3)"
	rm -f "$1"
	truncate -s 1G "$1"
	mke2fs -q -F -t ext4 -b 4096 -J size=64 -O "$2" "$1"
	[ -f data ] || head -c $((TAGS * 4096)) /dev/urandom > data
	# one jw is one transaction; debugfs lines are short, so give the blocks as a range
	printf '%s\n' "$3" "jw -b 100000-$((100000 + TAGS - 1)) $dir/data" "jc" > script
	debugfs -w -f script "$1" >/dev/null 2>&1
	touch "$1.done"
}

# flip one bit in a data block in the middle of the transaction
flip_middle() { # IMAGE OUT
	local bs=4096 jb=$((3 + TAGS / 2)) phys
	cp "$1" "$2"
	phys=$(debugfs -R "bmap <8> $jb" "$2" 2>/dev/null)
	python3 -c 'import sys
p, off = sys.argv[1], int(sys.argv[2])
f = open(p, "r+b"); f.seek(off); b = f.read(1); f.seek(off); f.write(bytes([b[0] ^ 0x10]))' "$2" $((phys * bs + 1234))
	echo "flipped journal block $jb, byte 1234, bit 4"
}


build v1.img "^metadata_csum" "jo -c -v 1"
build v3.img "metadata_csum" "jo -c"
for v in v1 v3; do
	flip_middle $v.img $v-flip.img
	"$E4R" diagnose $v-flip.img | grep -E "candidate|pattern" | head -2
	timeit "$v: e4recover logdump (scan only)" "$E4R" logdump --json $v-flip.img >/dev/null
	timeit "$v: e4recover diagnose" "$E4R" diagnose --json $v-flip.img >/dev/null
done
[ -n "${BENCH_DIR:-}" ] || rm -rf "$dir"
