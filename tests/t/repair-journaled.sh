# Journaled repair rounds: each round of check -y reaches the disk as one transaction of
# the filesystem's own journal (several, each complete, when it is larger than the log),
# or not at all.
#
# For each damaged image (the journal with no checksum, v1, v2 and v3, 32- and 64-bit
# tags, 1 and 4 KiB blocks), tests/unit/repair_cuts --states cuts the repair after every
# block write, lets e2fsck replay the journal (e2fsck -E journal_only, the oracle), and
# requires the image outside the journal to be one of at most rounds + 1 states, in
# order: the image as it was, then the state after each transaction, never anything in
# between; where loop mounts work, a cut that left a committed transaction is mounted by
# the kernel too, whose replay must give what e2fsck's gives. Then every allocation of
# e4recover's own code fails in turn: each run must end as an operational error in one of
# those states, marked with errors or with a log to replay, never with a finding made of
# the failure.
#
# A repair that cannot finish (the read of the block a clone copies fails): the round is
# dropped, the image is byte for byte the one before it (after a failed read nothing is
# written, not even the error state: the disk is not trusted), and the report says so.
# The error state a drop leaves where writes still go is the allocation failures' above.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

cuts=$E4R_TOP_BUILDDIR/tests/unit/repair_cuts
[ -x "$cuts" ] || fail "no $cuts: build with make check"

# The kernel as a second replayer, where it can be had.
kernel=
if [ "$(id -u)" = 0 ] && mkdir mnt && mkimg probe.img 8M && mount -o loop probe.img mnt 2>/dev/null; then
	umount mnt
	kernel=$PWD/mnt
else
	note "loop mounts refused: the kernel's replay is not compared"
fi

# On a RAM disk a cut's copy, repair and replay take a third of the time.
scratch=.
if [ -d /dev/shm ] && [ -w /dev/shm ] && s=$(mktemp -d /dev/shm/e4r-jcuts.XXXXXX 2>/dev/null); then
	scratch=$s
	trap 'rm -rf "$scratch"' EXIT
fi

images=0 states=0 journaled=0 kreplays=0 nomem=0
# states_of IMAGE WHAT: the cut and out-of-memory runs over IMAGE (damaged: the oracle says so).
states_of() {
	local img=$1 what=$2 stride=${3:-1} line
	run e2fsck -fn "$img"
	[ "$RC" -ne 0 ] || fail "oracle: e2fsck -fn finds nothing wrong with $what"
	cp "$img" "$scratch/s.img"
	run env E4R_CUTS_JOURNALED=1 E4R_CUT_STRIDE=$stride ${kernel:+E4R_CUTS_KERNEL=$kernel} E2FSPROGS_FAKE_TIME=1700000000 \
		"$cuts" --states "$scratch/s.img"
	expect_rc 0 "$what: every cut leaves the state before or after a transaction, every allocation failure too"
	line=$(printf '%s\n' "$OUT" | grep "cuts, .* states, .* journaled")
	[ -n "$line" ] || fail "$what: no summary"
	set -- $(printf '%s\n' "$line" | sed 's/.*, \([0-9]*\) states, \([0-9]*\) journaled .*, \([0-9]*\) replayed.*/\1 \2 \3/')
	[ "$2" -gt 0 ] || fail "$what: no transaction went through the journal"
	images=$((images + 1)) states=$((states + $1)) journaled=$((journaled + $2)) kreplays=$((kreplays + $3))
	line=$(printf '%s\n' "$OUT" | grep "allocations failed in turn" | sed 's/.*: \([0-9]*\) allocations.*/\1/')
	nomem=$((nomem + ${line:-0}))
}

# damaged IMAGE "DEBUGFS COMMANDS": a copy of IMAGE damaged by debugfs -w, then states_of.
n=0
damaged() {
	n=$((n + 1))
	cp "$1" "d$n.img"
	printf '%s\n' "$2" | tr ';' '\n' | debugfs -w -f - "d$n.img" >/dev/null 2>&1 || fail "debugfs $2"
	states_of "d$n.img" "$1: '$2'"
}

# 1 KiB blocks, 64-bit, a journal without checksums (as mke2fs leaves it).
base_image -b 1024
blk=$(debugfs -R "bmap f1 0" base.img 2>/dev/null)
f3=$(debugfs -R "bmap dir/f3 0" base.img 2>/dev/null)
damaged base.img "sif f1 links_count 5;set_bg 0 free_blocks_count 17;set_bg 0 checksum calc"
damaged base.img "unlink dir/sub;freeb $blk;sif f2 links_count 7;ln <40> dangling;set_bg 0 checksum 0x1"
damaged base.img "rmdir lost+found;unlink f2"
damaged base.img "sif f2 block[5] $f3"
# The journal's checksum schemes (the writer sets them, as a kernel mount would v3),
# with 32-bit tags on 4 KiB blocks and 64-bit ones on 1 KiB blocks.
for w in "v1 -b 4096 -O ^64bit" "v2 -b 1024 -O 64bit" "v3 -b 4096 -O ^64bit" "v3 -b 1024 -O 64bit"; do
	set -- $w
	cs=$1 && shift
	geo="$*"
	mkimg "w$cs.img" 16M $geo
	run "$E4R" write --csum "$cs" --ops 60 --seed 7 "w$cs.img"
	expect_rc 0 "the writer on w$cs.img ($geo)"
	populate "w$cs.img"
	dumpe2fs -h "w$cs.img" 2>/dev/null | grep -q "Journal features:.*checksum" ||
		fail "w$cs.img: the journal has no checksum feature"
	blk=$(debugfs -R "bmap f1 0" "w$cs.img" 2>/dev/null)
	damaged "w$cs.img" "sif f1 links_count 5;unlink dir/sub;freeb $blk;set_bg 0 free_blocks_count 17;set_bg 0 checksum calc"
done

# A round larger than the journal (the smallest, 1024 blocks): an inode of every inode
# table block (1,125 of 4,500 files, 256-byte inodes, 1 KiB blocks) has a deletion time,
# which e2fsck clears. The round goes through the log as several transactions, each
# full; the cuts (after every 37th of some 2,300 writes, so in every transaction)
# still leave at most transactions + 1 states, each marked not clean but the first
# and the last, and the report says the round was split.
mkdir many
(cd many && i=0 && while [ $i -lt 4500 ]; do i=$((i + 1)); : > "f$i"; done)
mke2fs -q -F -t ext4 -b 1024 -I 256 -N 4600 -J size=1 -d many big.img 16M >/dev/null 2>&1 ||
	fail "mke2fs -d many big.img"
ino=12
while [ $ino -lt 4512 ]; do echo "sif <$ino> dtime 1"; ino=$((ino + 4)); done > dtimes
# the same with the journal's checksums (v3, 64-bit tags: the writer sets them, as a
# kernel mounting with journal_checksum would)
cp big.img big3.img
printf 'create /v3 1000\n' > v3.script
run "$E4R" write --csum v3 --script v3.script big3.img
expect_rc 0 "the writer on big3.img"
dumpe2fs -h big3.img 2>/dev/null | grep -q "Journal features:.*checksum_v3" || fail "big3.img: no v3 checksums"
debugfs -w -f dtimes big.img >/dev/null 2>&1 || fail "debugfs: the deletion times"
debugfs -w -f dtimes big3.img >/dev/null 2>&1 || fail "debugfs: the deletion times (v3)"
states_of big.img "a round larger than the journal" 37
states_of big3.img "a round larger than the journal, v3 checksums" 41
cp big.img bigj.img
json=$("$E4R" check -y -f --json bigj.img 2>/dev/null)
printf '%s\n' "$json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
w = d["writes"]
assert w["split_rounds"] == 1 and w["direct"] == 0 and w["journaled"] >= 3, w
' || fail "--json does not say the round was split: $(printf '%s\n' "$json" | tail -12)"
run e2fsck -fn bigj.img
expect_rc 0 "oracle: e2fsck -fn after the split round"
cp big.img bigt.img
run "$E4R" check -y -f bigt.img
expect_out "did not fit in the journal at once: [0-9]+ transactions carried them" "the report says the round was split"
note "$images images: $states states, $journaled journaled transactions, $kreplays kernel replays compared, $nomem allocation failures"

# A repair that cannot finish: two files share every block (copy_inode onto a free
# inode), and the read of the shared block the clone copies fails with EIO (the fault
# injecting io manager under e4recover: the K-th read call fails, K found by trying
# each until the failed read is that block's; the check never reads a file's data, so
# the search starts near the reads check -n makes, and from the first if not there).
faulty=$E4R_TOP_BUILDDIR/tests/unit/e4r_faulty
[ -x "$faulty" ] || fail "no $faulty: build with make check"
mkimg full.img 8M -b 1024
seeded_bytes four 4096 > four
debugfs -w -R "write four fill0" full.img >/dev/null 2>&1 || fail "debugfs write fill0"
run e2fsck -fn full.img
expect_rc 0 "oracle: e2fsck -fn on the image"
free_ino=$(debugfs -R "ffi" full.img 2>&1 | sed -n "s/.*found: *\\([0-9]*\\).*/\\1/p")
[ -n "$free_ino" ] || fail "no free inode in full.img"
# (the free inode lies in its group's unused area: the area is cut to none first)
printf '%s\n' "set_bg 0 itable_unused 0" "set_bg 0 checksum calc" "copy_inode fill0 <$free_ino>" \
	"link <$free_ino> twin" "seti <$free_ino>" |
	debugfs -w -f - full.img >/dev/null 2>&1 || fail "debugfs: a twin of fill0"
run e2fsck -fn full.img
expect_rc 4 "oracle: e2fsck -fn sees the shared blocks"
expect_out "multiply-claimed" "oracle: e2fsck names the shared blocks"
shared=$(debugfs -R "bmap fill0 0" full.img 2>/dev/null)
cp full.img dropped.img
E4R_FAULT_TARGET=$PWD/dropped.img E4R_FAULT_REPORT=$PWD/fault.rep "$faulty" check -y -f "$PWD/dropped.img" >/dev/null 2>&1
reads=$(sed -n 's/^reads \([0-9]*\) .*/\1/p' fault.rep)
[ "${reads:-0}" -gt 0 ] || fail "e4r_faulty counted no read"
cp full.img dropped.img
E4R_FAULT_TARGET=$PWD/dropped.img E4R_FAULT_REPORT=$PWD/fault.rep "$faulty" check -n -f "$PWD/dropped.img" >/dev/null 2>&1
k=$(sed -n 's/^reads \([0-9]*\) .*/\1/p' fault.rep)
k=$(( ${k:-0} > 20 ? k - 20 : 1 )) eio_k=
while [ $k -le "$reads" ]; do
	cp full.img dropped.img
	E4R_FAULT_READ=$k E4R_FAULT_TARGET=$PWD/dropped.img E4R_FAULT_REPORT=$PWD/fault.rep \
		"$faulty" check -y -f "$PWD/dropped.img" >/dev/null 2>&1
	set -- $(cat fault.rep)	# reads R writes W eio D block B after A
	if [ "$6" = 1 ] && [ "$8" = "$shared" ]; then eio_k=$k; break; fi
	k=$((k + 1))
	[ $k -le "$reads" ] || [ -n "${again:-}" ] || { again=1 k=1; }
done
[ -n "$eio_k" ] || fail "no read call of $reads reads block $shared"
note "the clone's read of block $shared is read call $eio_k of $reads"
cp full.img dropped.img
run env E4R_FAULT_READ=$eio_k E4R_FAULT_TARGET=$PWD/dropped.img "$faulty" check -y -f "$PWD/dropped.img"
expect_rc 8 "check -y -f whose clone cannot read the shared block"
expect_out "could not be finished" "the report says the round was not done"
expect_out "none of them was written" "the report says nothing of it was written"
expect_out "multiply-claimed|also claims" "the report lists what was found"
cmp -s full.img dropped.img || fail "the dropped round wrote to the image after the failed read"
run e2fsck -fn dropped.img
expect_rc 4 "oracle: e2fsck -fn still finds the damage"
cp full.img dropped.img
json=$(E4R_FAULT_READ=$eio_k E4R_FAULT_TARGET=$PWD/dropped.img "$faulty" check -y -f --json "$PWD/dropped.img" 2>/dev/null)
[ $? = 8 ] || fail "check -y -f --json whose clone cannot read: not exit 8"
printf '%s\n' "$json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
w = d["writes"]
assert w["round_dropped"] is True and w["dropped_round"] == 1, w
assert w["journaled"] == 0 and d["problems_fixed"] == 0, (w, d["problems_fixed"])
assert any(f["problem"] == "block_dup" for f in d["findings"]), d["findings"]
' || fail "--json does not say the round was dropped: $json"
exit 0
