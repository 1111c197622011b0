# Helpers for image tests; sourced by tests/t/*.sh, which run in a scratch directory.
set -u

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }
note() { echo "# $*"; }

# Random test data comes from one seed (the runner sets E4R_TEST_SEED, default 1), so that
# a failure replays: E4R_TEST_SEED=N make check TESTS=NAME. Other seeds explore further.
E4R_TEST_SEED=${E4R_TEST_SEED:-1}
note "E4R_TEST_SEED=$E4R_TEST_SEED"

# seeded_bytes NAME COUNT: COUNT bytes on stdout, the same for the same seed and NAME (give
# each file of a test its own NAME, so that they differ from each other).
seeded_bytes() {
	python3 -S -c '
import random, sys
sys.stdout.buffer.write(random.Random(sys.argv[1]).randbytes(int(sys.argv[2])))' \
		"$E4R_TEST_SEED/$1" "$2" || fail "seeded_bytes $*"
}

# Run a command, keep its output in $OUT (stdout+stderr) and its exit code in $RC.
run() {
	OUT=$("$@" 2>&1); RC=$?
	printf '$ %s\n%s\n[exit %s]\n' "$*" "$OUT" "$RC"
}

expect_rc() { # CODE DESCRIPTION
	[ "$RC" -eq "$1" ] || fail "$2: expected exit $1, got $RC"
}

expect_out() { # REGEX DESCRIPTION
	printf '%s\n' "$OUT" | grep -Eq -- "$1" || fail "$2: output does not match /$1/"
}

expect_no_out() { # REGEX DESCRIPTION
	printf '%s\n' "$OUT" | grep -Eq -- "$1" && fail "$2: output matches /$1/"
	return 0
}

# help_options SUBCOMMAND: the options SUBCOMMAND's --help lists (-x and --long), one a
# line, sorted. An option line starts at most 6 columns in with a dash; its description
# follows after two spaces or more, and wrapped lines are indented past that.
# (No {m,n} in the awk programs: mawk, Debian's default awk, may lack it.)
help_options() {
	"$E4R" "$1" --help | awk 'match($0, /^ +-/) && RLENGTH <= 7 {
		spec = $0; sub(/^ +/, "", spec); sub(/  .*/, "", spec)
		n = split(spec, w, /[ ,=]+/)
		for (i = 1; i <= n; i++) if (w[i] ~ /^--?[A-Za-z0-9]/) print w[i] }' | sort -u
}

# help_describe SUBCOMMAND OPTION: OPTION's description in SUBCOMMAND's --help, wrapped
# lines joined.
help_describe() {
	"$E4R" "$1" --help | awk -v opt="$2" '
		match($0, /^ +-/) && RLENGTH <= 7 {
			on = 0; spec = $0; sub(/^ +/, "", spec); sub(/  .*/, "", spec)
			n = split(spec, w, /[ ,=]+/); for (i = 1; i <= n; i++) if (w[i] == opt) on = 1
			if (on) { d = $0; sub(/^ +[^ ]+([ ,=][^ ]+)*  +/, "", d); out = d }
			next }
		on && match($0, /^ +[^ ]/) && RLENGTH > 8 { d = $0; sub(/^ +/, "", d); out = out " " d; next }
		{ on = 0 }
		END { print out }'
}

# help_values SUBCOMMAND OPTION: the values OPTION's description lists after its last
# colon ("...: a, b (default), c"), one a line.
help_values() {
	help_describe "$1" "$2" | sed 's/ *([^)]*)//g; s/.*: //; s/ or /, /g' | tr ',' '\n' |
		sed 's/^ *//; s/ *$//' | grep -v '^$'
}

# The UUID and directory hash seed of every image a test makes (mke2fs picks random ones).
FIXED_UUID=11111111-2222-3333-4444-555555555555
FIXED_HASH_SEED=00000000-0000-0000-0000-000000000001

# mkimg FILE SIZE [mke2fs options...]: a fresh image with fixed UUID and hash seed.
mkimg() {
	local f=$1 size=$2; shift 2
	rm -f "$f"
	mke2fs -q -F -t ext4 -U "$FIXED_UUID" \
		-E "hash_seed=$FIXED_HASH_SEED,lazy_itable_init=0" \
		"$@" "$f" "$size" >/dev/null 2>&1 || fail "mke2fs $* $f $size"
}

# mkimg_opts IMAGE SIZE BLOCKSIZE "OPTS": mkimg with the mke2fs options OPTS, where a
# word hash=ALG sets the directory hash instead (the writer's htree tests vary both).
mkimg_opts() {
	local f=$1 size=$2 bs=$3 o hash= mkfs=
	for o in $4; do
		case $o in hash=*) hash=${o#hash=} ;; *) mkfs="$mkfs $o" ;; esac
	done
	mkimg "$f" "$size" -b "$bs" $mkfs
	[ -z "$hash" ] || tune2fs -E hash_alg="$hash" "$f" > /dev/null 2>&1 || fail "tune2fs -E hash_alg=$hash"
}

# need_kernel_mount: skip unless root, python3 and loop mounts are at hand (the kernel as
# oracle). Sets W (tests/writer.py) and PY, and leaves an empty directory mnt.
need_kernel_mount() {
	[ "$(id -u)" = 0 ] || skip "needs root for loop mounts"
	W="$E4R_TESTS_SRCDIR/writer.py"
	# The interpreter itself, without site packages: a version-manager shim and site
	# setup cost most of a second per call.
	PY=$(python3 -c 'import sys; print(sys.executable)') || skip "needs python3"
	mkdir mnt
	mkimg probe.img 8M
	mount -o loop,ro probe.img mnt 2>/dev/null || skip "the kernel refuses loop mounts here"
	umount mnt
}

# with_sync_lock -s|-x COMMAND...: run COMMAND holding the runner's lock (E4R_SYNC_LOCK)
# shared (-s) or alone (-x). mkcrash.py's workload calls sync(2), which commits the journal
# of every mounted filesystem, also those of tests running at the same time; images whose
# journal must hold what the kernel has not committed yet (fast commits, writer.py's kernel
# runs) are made under -s, mkcrash.py runs under -x.
with_sync_lock() {
	local mode=$1 rc; shift
	[ -n "${E4R_SYNC_LOCK:-}" ] || { "$@"; return; }
	exec 9>>"$E4R_SYNC_LOCK" && flock "$mode" 9
	"$@"; rc=$?
	flock -u 9; exec 9>&-
	return $rc
}

# jwrite IMAGE DEBUGFS-COMMANDS...: write journal transactions with debugfs's
# journal writer (jo/jw/jc); the image then needs recovery.
jwrite() {
	local img=$1; shift
	printf '%s\n' "$@" | debugfs -w -f - "$img" >/dev/null 2>&1 || fail "debugfs journal write on $img"
}

# An ext4 image fs.img (1 KiB blocks, 16 MiB) whose journal is the external device jnl.img
# (4 MiB, journal UUID JUUID). mke2fs attaches a journal device only while it is a block
# device, so jnl.img is on a loop device just for mke2fs. Skips without root or a loop device.
# Give each test its own JUUID: blkid must not find another test's journal device.
mk_external_journal_fs() { # JUUID
	local juuid=$1 loop rc
	[ "$(id -u)" = 0 ] || skip "needs root: mke2fs attaches an external journal only to a block device"
	mke2fs -q -F -O journal_dev -b 1024 -U "$juuid" jnl.img 4M || fail "mke2fs journal_dev"
	loop=$(losetup -f --show jnl.img 2>/dev/null) || skip "no loop device for the journal"
	mke2fs -q -F -t ext4 -b 1024 -U "$FIXED_UUID" -E "hash_seed=$FIXED_HASH_SEED" \
		-J device="$loop" fs.img 16M >/dev/null 2>&1
	rc=$?
	losetup -d "$loop"
	[ $rc -eq 0 ] || fail "mke2fs with an external journal"
}

# SUBCOMMAND (logdump, diagnose) on a filesystem without a journal, as dumpe2fs sees it:
# nothing wrong (exit 0), one line naming the image, and a JSON document saying
# has_journal false with an empty LIST_FIELD.
expect_no_journal_report() { # SUBCOMMAND LIST_FIELD
	local cmd=$1 field=$2
	mkimg nojournal.img 8M -O ^has_journal
	dumpe2fs -h nojournal.img 2>/dev/null | grep -q has_journal && fail "mke2fs made a journal anyway"
	run "$E4R" "$cmd" nojournal.img
	expect_rc 0 "$cmd: a filesystem without a journal is nothing wrong"
	[ "$(printf '%s\n' "$OUT" | wc -l)" -eq 1 ] || fail "$cmd, no journal: one line expected"
	expect_out "^nojournal.img: the filesystem has no journal" "$cmd, no journal: names the image and says so"
	run "$E4R" "$cmd" --json nojournal.img
	expect_rc 0 "$cmd --json, no journal"
	printf '%s\n' "$OUT" | python3 -c 'import json, sys
d = json.load(sys.stdin)
sys.exit(0 if d["has_journal"] is False and d[sys.argv[1]] == [] else 1)' "$field" ||
		fail "$cmd, no journal: the JSON document does not say so"
}

# SHA-256 of a file: openssl's uses the CPU's SHA instructions (three times faster than
# coreutils' on big images), sha256sum where there is no openssl.
if command -v openssl >/dev/null 2>&1; then
	sha() { openssl dgst -sha256 -r "$1" | cut -d' ' -f1; }
else
	sha() { sha256sum "$1" | cut -d' ' -f1; }
fi

# Journal block J's byte offset in IMAGE (internal journal, inode 8).
jblock_offset() { # IMAGE J
	local bs phys
	bs=$(dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Block size: *//p')
	phys=$(debugfs -R "bmap <8> $2" "$1" 2>/dev/null)
	echo $((phys * bs))
}

# flip IMAGE BYTE-OFFSET BIT: flip one bit in place.
flip() {
	python3 -c '
import sys
p, off, bit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(p, "r+b") as f:
    f.seek(off); b = f.read(1)
    f.seek(off); f.write(bytes([b[0] ^ (1 << bit)]))' "$@"
}

# ask_images: the journal the ask tests answer questions on. v3.img (metadata_csum, 1 KiB
# blocks): T1 = descriptor 1, data 2-4 (fs 100-102), commit 5; T2 = descriptor 6, data 7-8
# (fs 200-201), commit 9 (checked with debugfs). dmg.img: v3.img with bit 6 of byte 517 of
# journal block 3 flipped (a proven correction) and 64 seeded bytes over journal block 7
# at byte 100 (none). Leaves the data written in the file data.
ask_images() {
	seeded_bytes data 65536 > data
	mkimg v3.img 16M -O metadata_csum
	jwrite v3.img "jo -c" "jw -b 100,101,102 $PWD/data" "jc" "jo -c" "jw -b 200,201 $PWD/data" "jc"
	debugfs -R "logdump" v3.img 2>&1 | grep -q "type 2 (commit block) at block 9" ||
		fail "unexpected journal layout from debugfs"
	cp v3.img dmg.img
	flip dmg.img $(( $(jblock_offset dmg.img 3) + 517 )) 6
	seeded_bytes garbage 64 |
		dd of=dmg.img bs=1 seek=$(( $(jblock_offset dmg.img 7) + 100 )) conv=notrunc 2>/dev/null
}
