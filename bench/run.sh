#!/bin/bash
# All the benchmarks in one command: builds its images once (in BENCH_DIR), runs
# e4recover and the reference tool (e2fsck / debugfs) alternately in every round, and
# prints one table: best and median wall time of both, the ratio reference / e4recover,
# and the peak RSS of both (from /usr/bin/time).
# Usage: bench/run.sh [E4RECOVER]     (default: recover/e4recover under the current dir)
# Env:   BENCH_DIR    where the images are kept between runs (default /tmp/e4r-bench-SCALE)
#        BENCH_SCALE  full (default: 100k and 1.6M inodes, 1 GiB journal, 4M revokes,
#                     100k orphans) or small (a quick run of the same cases, for development)
#        BENCH_ROUNDS rounds per case (default 3)
#        BENCH_CASES  the cases to run: check-A check-B fix-B replay logdump revoke orphans (default all)
#        BENCH_ORPHANS the number of disconnected inodes of the orphans case (default 100000 / 10000)
# Needs root (the images are written through the kernel on a loop mount). Not part of make check.
set -eu
BENCH=$(cd "$(dirname "$0")" && pwd)
. "$BENCH/lib.sh"
E4R=$(bench_binary "${1:-recover/e4recover}")
export PATH="/sbin:/usr/sbin:$PATH" LC_ALL=C E2FSCK_CONFIG=/dev/null E2FSPROGS_SKIP_PROGRESS=1
[ -x /usr/bin/time ] || { echo "no /usr/bin/time: run build-aux/install-deps.sh" >&2; exit 2; }

SCALE=${BENCH_SCALE:-full}
case $SCALE in
full)	FILES_A=100000 FILES_B=1600000 JMIB=1024 JTXNS=250 RVTXNS=100 ORPHANS=${BENCH_ORPHANS:-100000} ;;
small)	FILES_A=10000 FILES_B=50000 JMIB=128 JTXNS=30 RVTXNS=10 ORPHANS=${BENCH_ORPHANS:-10000} ;;
*)	echo "BENCH_SCALE is full or small" >&2; exit 2 ;;
esac
JTAGS=1000		# blocks per transaction of the replay journal
RVPER=40000		# revokes per transaction (always the same blocks: 40,000 distinct)
ROUNDS=${BENCH_ROUNDS:-3}
CASES=${BENCH_CASES:-"check-A check-B fix-B replay logdump revoke orphans"}
dir=${BENCH_DIR:-/tmp/e4r-bench-$SCALE}
mkdir -p "$dir"
cd "$dir"

# ---------------------------------------------------------------- images (built once)

# feature_image IMG FILES: ext4 (4 KiB blocks, metadata_csum, 256-byte inodes) written through
# the kernel: directories of 500 files (htree), xattrs in the inode and in blocks, files with
# 1500 extents (extent tree of depth 2), hard links, short and long symlinks; then user and
# group quota added offline (kernels without CONFIG_QUOTA cannot mount with quota).
feature_image() {
	local img=$1 files=$2 size
	[ -f "$img.done" ] && return 0
	echo "building $img: $files files (kernel, loop mount)" >&2
	size=$(( (files / 100000 + 1) * 1024 + 1024 ))	# MiB: most files are empty
	rm -f "$img"; truncate -s "${size}M" "$img"
	mke2fs -q -F -t ext4 -b 4096 -I 256 -N $((files * 6 / 5 + 20000)) -E hash_seed=6f2c4a0e-1b7d-4c39-9a51-3e8d2f7b6c10 "$img"
	mkdir -p mnt; mount -o loop "$img" mnt
	python3 - "$files" mnt <<'PY'
import os, sys
n, root = int(sys.argv[1]), sys.argv[2]
per = 500
for i in range(n):
    d = os.path.join(root, "d%05d" % (i // per))
    if i % per == 0:
        os.mkdir(d)
    p = os.path.join(d, "f%07d" % i)
    with open(p, "wb") as f:
        if i % 16 == 0:	# most files empty: the image stays small on disk (1.6M inodes: ~1 GiB)
            f.write(b"y" * (i % 3000 + 1))
        if i % 200 == 100:
            # several extents (holes between them)
            for k in range(6):
                f.seek(k * 65536); f.write(b"x" * 4096)
    if i % 10 == 0:
        os.setxattr(p, "user.bench", b"v" * 24)
    if i % 1000 == 1:
        os.setxattr(p, "user.big", b"w" * 1500)		# does not fit in the inode: an xattr block
    if i % 97 == 0:
        os.link(p, p + ".hard")
    if i % 89 == 0:
        os.symlink("f%07d" % i, p + ".sym")
    if i % 891 == 0:
        os.symlink("../" * 30 + "long/target/%07d" % i, p + ".longsym")
# extent trees of depth 2: more than 4 x 340 extents
for k in range(max(2, n // 100000)):
    with open(os.path.join(root, "deep%d" % k), "wb") as f:
        for e in range(1500):
            f.seek(e * 8192); f.write(b"z" * 4096)
PY
	umount mnt
	tune2fs -O quota -Q usrquota,grpquota "$img" >/dev/null
	touch "$img.done"
}

# damage_script SRC SCRIPT: debugfs commands for damage both tools repair, applied to a
# fresh copy of SRC before each run (a damaged copy kept beside SRC would double the disk
# space): a directory of 500 files cleared (its files go to lost+found), wrong link counts,
# blocks marked free while in use, wrong free counts in the superblock.
damage_script() {
	local src=$1 script=$2 ino
	[ -f "$script" ] && return 0
	{
		echo "clri /d00003"
		for i in 11 23 45 67 89 101 123 145 167 189; do echo "sif /d00001/f$(printf %07d $((500 + i))) links_count 3"; done
		for ino in $(seq 40 47); do echo "freeb $(debugfs -R "bmap /deep0 $ino" "$src" 2>/dev/null)"; done
		echo "ssv free_blocks_count 12345"
		echo "ssv free_inodes_count 54321"
	} > "$script"
}

# journal_image IMG MIB TXNS TAGS: ext4 with a MIB MiB journal holding TXNS transactions of
# TAGS blocks each (debugfs's journal writer, csum v3), needing recovery.
journal_image() {
	local img=$1 mib=$2 txns=$3 tags=$4 t
	[ -f "$img.done" ] && return 0
	echo "building $img: $mib MiB journal, $txns transactions x $tags blocks" >&2
	rm -f "$img"; truncate -s 8G "$img"	# the 1 GiB journal sits in the middle, above the homes
	mke2fs -q -F -t ext4 -b 4096 -J size="$mib" -O metadata_csum "$img"
	head -c $((tags * 4096)) /dev/urandom > data
	{
		echo "jo -c"
		for t in $(seq 0 $((txns - 1))); do
			echo "jw -b $((200000 + t * tags))-$((200000 + t * tags + tags - 1)) data"
		done
		echo "jc"
	} > "$img.script"
	debugfs -w -f "$img.script" "$img" >/dev/null 2>&1
	touch "$img.done"
}

# revoke_image IMG TXNS: TXNS transactions each revoking the same RVPER blocks.
revoke_image() {
	local img=$1 txns=$2 t
	[ -f "$img.done" ] && return 0
	echo "building $img: $txns transactions of $RVPER revokes" >&2
	rm -f "$img"; truncate -s 2G "$img"
	mke2fs -q -F -t ext4 -b 4096 -J size=256 -O metadata_csum "$img"
	{
		echo "jo -c"
		for t in $(seq 1 "$txns"); do echo "jw -r 100000-$((100000 + RVPER - 1)) /dev/null"; done
		echo "jc"
	} > "$img.script"
	debugfs -w -f "$img.script" "$img" >/dev/null 2>&1
	touch "$img.done"
}

# orphan_image IMG N: N one-byte files in one directory, whose inode is then cleared: all N
# are disconnected and go to /lost+found.
orphan_image() {
	local img=$1 n=$2
	[ -f "$img.done" ] && return 0
	echo "building $img: $n disconnected inodes" >&2
	rm -f "$img"; truncate -s 2G "$img"
	mke2fs -q -F -t ext4 -b 4096 -N $((n + 20000)) "$img"
	mkdir -p mnt; mount -o loop "$img" mnt
	python3 -c '
import os, sys
n, d = int(sys.argv[1]), sys.argv[2] + "/o"
os.mkdir(d)
for i in range(n):
    with open("%s/f%07d" % (d, i), "wb") as f:
        f.write(b"x")	# not empty: both tools clear unattached empty inodes
' "$n" mnt
	umount mnt
	debugfs -w -R "clri /o" "$img" >/dev/null 2>&1
	touch "$img.done"
}

# ---------------------------------------------------------------- measuring

# run_one OUT PREP COMMAND...: evaluates PREP (untimed), runs COMMAND and appends
# "SECONDS KIB" to OUT: wall time (date, ns) and peak RSS (/usr/bin/time %M).
run_one() {
	local out=$1 prep=$2 s e; shift 2
	[ -z "$prep" ] || eval "$prep"
	s=$(date +%s%N)
	/usr/bin/time -f %M -o rss.out "$@" >/dev/null 2>&1 || true
	e=$(date +%s%N)
	echo "$(( (e - s) / 1000000 )) $(tail -1 rss.out)" >> "$out"
}

# stats FILE: "BEST MEDIAN MAXRSS" (times in ms, RSS in KiB)
stats() {
	sort -n "$1" | awk '{ t[NR] = $1; if ($2 > r) r = $2 }
		END { printf "%d %d %d\n", t[1], t[int((NR + 1) / 2)], r }'
}

TABLE=$dir/table.txt
printf '%-22s %9s %9s %9s %9s %7s %9s %9s  %s\n' case e4r-best e4r-med ref-best ref-med ratio e4r-RSS ref-RSS reference > "$TABLE"

# bench CASE REFNAME PREP-E4R PREP-REF -- E4R-COMMAND... -- REF-COMMAND...
# REF_ROUNDS (default: all) limits the rounds that run the reference (e2fsck's quadratic cases).
bench() {
	local name=$1 refname=$2 pe=$3 pr=$4 r a b refrounds=${REF_ROUNDS:-$ROUNDS}; shift 5
	local ecmd=() rcmd=()
	while [ "$1" != -- ]; do ecmd+=("$1"); shift; done; shift
	rcmd=("$@")
	rm -f e.t r.t
	for r in $(seq 1 "$ROUNDS"); do
		run_one e.t "$pe" "${ecmd[@]}"
		[ "$r" -gt "$refrounds" ] || run_one r.t "$pr" "${rcmd[@]}"
	done
	read -r ab am ar < <(stats e.t)
	read -r bb bm br < <(stats r.t)
	printf '%-22s %8.3fs %8.3fs %8.3fs %8.3fs %6.2fx %6d MiB %6d MiB  %s\n' "$name" \
		"$(echo "$ab / 1000" | bc -l)" "$(echo "$am / 1000" | bc -l)" \
		"$(echo "$bb / 1000" | bc -l)" "$(echo "$bm / 1000" | bc -l)" \
		"$(echo "$bb / ($ab + 0.0001)" | bc -l)" $((ar / 1024)) $((br / 1024)) "$refname" | tee -a "$TABLE" >&2
}

# after_fix IMG: what e2fsck -fn says about an image e4recover repaired (printed under the table)
after_fix() {
	local rc
	e2fsck -fn "$1" > fsck.out 2>&1 && rc=0 || rc=$?
	echo "$2: e2fsck -fn after e4recover: exit $rc$( [ $rc = 0 ] && echo ' (clean)' || echo ' (NOT clean)')" >> "$dir/notes.txt"
	[ $rc = 0 ] || sed 's/^/    /' fsck.out | head -20 >> "$dir/notes.txt"
}

has() { case " $CASES " in *" $1 "*) return 0 ;; esac; return 1; }
: > "$dir/notes.txt"
echo "scale $SCALE, $ROUNDS rounds, images in $dir, e4recover $E4R" >&2
echo "(images are built on first use; their building is not timed)" >&2

if has check-A || has check-B || has fix-B; then
	has check-A && feature_image fa.img "$FILES_A"
	{ has check-B || has fix-B; } && feature_image fb.img "$FILES_B"
fi
if has check-A; then
	bench "check -nf ${FILES_A}f" "e2fsck -fn" "" "" -- "$E4R" check -n -f fa.img -- e2fsck -fn fa.img
fi
if has check-B; then
	bench "check -nf ${FILES_B}f" "e2fsck -fn" "" "" -- "$E4R" check -n -f fb.img -- e2fsck -fn fb.img
fi
if has fix-B; then
	damage_script fb.img damage.script
	fresh='cp --sparse=always fb.img work.img; debugfs -w -f damage.script work.img >/dev/null 2>&1; sync'
	bench "check -fy damaged" "e2fsck -fy" "$fresh" "$fresh" -- "$E4R" check -f -y work.img -- e2fsck -fy work.img
	eval "$fresh"; "$E4R" check -f -y work.img >/dev/null 2>&1 || true
	after_fix work.img "check -fy damaged"
	rm -f work.img
fi
if has replay || has logdump; then
	journal_image j.img "$JMIB" "$JTXNS" "$JTAGS"
fi
if has replay; then
	fresh='cp --sparse=always j.img work.img; sync'
	bench "replay ${JMIB}MiB journal" "e2fsck -E journal_only" "$fresh" "$fresh" -- \
		"$E4R" replay --policy=stop work.img -- e2fsck -E journal_only -y work.img
	eval "$fresh"; "$E4R" replay --policy=stop work.img >/dev/null 2>&1 || true
	# a second replayed copy needs twice the journal's size on disk: checked only when it fits
	need=$(( $(du -k j.img | cut -f1) * 2 + 1048576 ))
	if [ "$(df -Pk . | awk 'NR == 2 { print $4 }')" -lt "$need" ]; then
		echo "replay: not compared with e2fsck's image (not enough disk space for a second copy)" >> "$dir/notes.txt"
	elif cp --sparse=always j.img ref.img && { e2fsck -E journal_only -y ref.img >/dev/null 2>&1 || true; } &&
		python3 "$BENCH/../tests/tools/imgdiff.py" ref.img work.img >/dev/null 2>&1; then
		echo "replay: image identical to e2fsck's" >> "$dir/notes.txt"
	else
		echo "replay: image DIFFERS from e2fsck's" >> "$dir/notes.txt"
	fi
	rm -f work.img ref.img
fi
if has logdump; then
	bench "logdump --json" "debugfs logdump -a" "" "" -- "$E4R" logdump --json j.img -- debugfs -R "logdump -a" j.img
	read -r best _ < <(stats e.t)
	echo "logdump --json: $(echo "$JTXNS * $JTAGS * 4096 / 1073741824 / ($best / 1000)" | bc -l |
		xargs printf '%.2f') GiB/s of logged blocks (best run, every checksum verified)" >> "$dir/notes.txt"
fi
if has revoke; then
	revoke_image rv.img "$RVTXNS"
	fresh='cp --sparse=always rv.img work.img; sync'
	bench "replay $((RVTXNS * RVPER / 1000))k revokes" "e2fsck -E journal_only" "$fresh" "$fresh" -- \
		"$E4R" replay --policy=stop work.img -- e2fsck -E journal_only -y work.img
	rm -f work.img
fi
if has orphans; then
	orphan_image "or$ORPHANS.img" "$ORPHANS"
	fresh="cp --sparse=always or$ORPHANS.img work.img; sync"
	# e2fsck's reconnection is quadratic (100k: 13 minutes here): it runs in the first round only
	REF_ROUNDS=1 bench "reconnect ${ORPHANS}" "e2fsck -fy (1 run)" "$fresh" "$fresh" -- \
		"$E4R" check -f -y work.img -- e2fsck -fy work.img
	eval "$fresh"; "$E4R" check -f -y work.img >/dev/null 2>&1 || true
	after_fix work.img "reconnect $ORPHANS"
	echo "reconnect: $(debugfs -R "ls /lost+found" work.img 2>/dev/null | grep -o '#[0-9][0-9]*' | wc -l) entries #INO in /lost+found" >> "$dir/notes.txt"
	rm -f work.img
fi

echo
cat "$TABLE"
echo "(ratio: reference best / e4recover best; f = files; RSS: peak resident set)"
cat "$dir/notes.txt"
