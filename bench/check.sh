#!/bin/bash
# Benchmark: e4recover check -n -f against e2fsck -fn on the same large image
# (300,000 files in 3,000 directories written through the kernel, some with
# several extents, hard links and symlinks; user and group quota), with wall time and
# peak memory (max RSS), both from /usr/bin/time -v.
# Usage: bench/check.sh [E4RECOVER]   (default: recover/e4recover under the current dir)
# Env: BENCH_DIR (scratch dir, default a temp dir), BENCH_FILES (default 300000).
# Needs root (loop mount). Not part of make check.
set -eu
E4R=${1:-recover/e4recover}
[ -x "$E4R" ] || { echo "no e4recover at $E4R (give its path)" >&2; exit 2; }
E4R=$(cd "$(dirname "$E4R")" && pwd)/$(basename "$E4R")
export PATH="/sbin:/usr/sbin:$PATH" LC_ALL=C E2FSCK_CONFIG=/dev/null
FILES=${BENCH_FILES:-300000}
dir=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/e4r-bench-check.XXXXXX")}
mkdir -p "$dir"
cd "$dir"
img=big.img

if [ ! -f "$img.done" ]; then
	echo "building: 4 GiB sparse image with $FILES files (kernel, loop mount)"
	rm -f "$img"
	truncate -s 4G "$img"
	mke2fs -q -F -t ext4 -b 4096 -N $((FILES + 50000)) "$img"
	mkdir -p mnt
	mount -o loop "$img" mnt
	python3 - "$FILES" mnt <<'PY'
import os, sys
n, root = int(sys.argv[1]), sys.argv[2]
per = 100
for i in range(n):
    d = os.path.join(root, "d%04d" % (i // per))
    if i % per == 0:
        os.mkdir(d)
    p = os.path.join(d, "f%06d" % i)
    with open(p, "wb") as f:
        # most files small; every 50th spans several extents (written with holes)
        if i % 50 == 0:
            for k in range(4):
                f.seek(k * 65536); f.write(b"x" * 8192)
        else:
            f.write(b"y" * (i % 5000))
    if i % 97 == 0:
        os.link(p, p + ".hard")
    if i % 89 == 0:
        os.symlink("f%06d" % i, p + ".sym")
PY
	umount mnt
	# user and group quota, added offline (tune2fs counts the usage), so both tools
	# also compare quota records: kernels without CONFIG_QUOTA cannot mount with quota.
	tune2fs -O quota -Q usrquota,grpquota "$img" >/dev/null
	touch "$img.done"
fi
dumpe2fs -h "$img" 2>/dev/null | grep -E '^(Inode count|Free inodes|Block count|Free blocks):' || true

[ -x /usr/bin/time ] || { echo "no /usr/bin/time: run build-aux/install-deps.sh" >&2; exit 2; }
# measure LABEL COMMAND...: the second (warm cache) run's wall time and peak memory,
# both from /usr/bin/time -v ("Elapsed (wall clock) time", "Maximum resident set size").
measure() {
	local label=$1 wall rss; shift
	"$@" >/dev/null 2>&1 || true
	/usr/bin/time -v -o time.out "$@" >/dev/null 2>&1 || true
	wall=$(sed -n 's/^.*Elapsed (wall clock) time.*): *//p' time.out |
		awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
	rss=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): *//p' time.out)
	printf '%-28s %8s s  %8s KiB max RSS\n' "$label" "${wall:-?}" "${rss:-?}"
}
measure "e2fsck -fn" e2fsck -fn "$img"
measure "e4recover check -n -f" "$E4R" check -n -f "$img"
e2fsck -fn "$img" >/dev/null 2>&1; ref=$?
"$E4R" check -n -f "$img" >/dev/null 2>&1; ours=$?
echo "verdict: e2fsck exit $ref, e4recover exit $ours"
