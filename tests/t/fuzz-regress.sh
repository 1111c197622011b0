# The fuzz targets without libFuzzer (fuzz/regress_*): the seed corpora and every input
# that once crashed a target (fuzz/regress/) run through each subcommand in memory, with
# the targets' own assertions (documented exit code, no write outside the image, no write
# at all by read-only commands). The in-memory io manager is checked against e2fsck: the
# replay it does in memory leaves the same image as e2fsck's replay of the same file.
. "$E4R_TESTS_SRCDIR/lib.sh"

fz=$E4R_TOP_BUILDDIR/fuzz
src=$E4R_TESTS_SRCDIR/../fuzz
[ -x "$fz/regress_replay" ] || fail "fuzz/regress_replay was not built"

run sh "$src/mkseeds.sh" "$E4R" "$fz/img2seed" seeds; expect_rc 0 "seed corpora build"
for t in logdump replay diagnose check; do
	n=$(ls seeds/$t | wc -l)
	[ "$n" -ge 10 ] || fail "$t: only $n seeds"
	# check's inputs also get the second check: after -y or -p said "all fixed", -n finds nothing
	run env E4R_FUZZ_SECOND_CHECK=1 "$fz/regress_$t" seeds/$t "$src/regress/$t"
	expect_rc 0 "$t: seeds and regression inputs"
	expect_out "^[0-9]+ inputs run" "$t: inputs ran"
done

# libext2fs is not built with the sanitizers: its reads of memory nobody wrote,
# and its writes past a buffer, go unseen by AddressSanitizer (such a write,
# corrupting the allocator's own records, is the likeliest cause of an overflow
# it reported in fs_wrap_inner only after other inputs: fuzz/open/README).
# Valgrind sees them; in a plain build only, as it cannot run over
# AddressSanitizer. The check inputs, in one process as the fuzzer runs them.
if ! command -v valgrind >/dev/null 2>&1; then
	note "no valgrind: libext2fs's memory use is not checked"
elif nm "$fz/regress_check" 2>/dev/null | grep -q __asan_init; then
	note "a sanitizer build: valgrind cannot run it"
else
	run env E4R_FUZZ_SECOND_CHECK=1 valgrind -q --error-exitcode=99 "$fz/regress_check" "$src/regress/check"
	expect_rc 0 "check: regression inputs under valgrind"
fi

# The targets reuse one decode buffer and clear only what the last run left: a
# check -n after a bigger image that check -y rewrote must see what it sees
# alone (-n: a repair would stamp the time into the superblock).
for b in nocsum-0 v1-async-0 torn-1; do
	run env E4R_FUZZ_DUMP=after.img "$fz/regress_check" seeds/check/v3-2k-2 seeds/check/$b
	expect_rc 0 "check: $b after v3-2k-2"
	run env E4R_FUZZ_DUMP=alone.img "$fz/regress_check" seeds/check/$b; expect_rc 0 "check: $b alone"
	cmp -s after.img alone.img || fail "check: $b after another input differs from $b alone"
done

# The oracle: a crash image, replayed in memory (policy stop) and by e2fsck.
mkimg crash.img 3M -b 1024 -O metadata_csum
run "$E4R" write --ops=40 --seed=3 --csum=v3 --crash-after=200 crash.img; expect_rc 0 "crash image"
dumpe2fs -h crash.img 2>/dev/null | grep -q needs_recovery || fail "the crash image needs no recovery"
cp crash.img ref.img
e2fsck -E journal_only -y ref.img >/dev/null 2>&1
"$fz/img2seed" crash.img 1024 0 stop.seed || fail "img2seed"
run env E4R_FUZZ_DUMP=mem.img "$fz/regress_replay" stop.seed; expect_rc 0 "replay in memory"
run python3 "$E4R_TESTS_TOOLS/imgdiff.py" ref.img mem.img
expect_rc 0 "the in-memory replay leaves what e2fsck's replay leaves"

# Read-only runs leave every byte as it was: --dry-run (option bit 0x80) and check -n.
"$fz/img2seed" crash.img 1024 128 dry.seed || fail "img2seed"
run env E4R_FUZZ_DUMP=dry.img "$fz/regress_replay" dry.seed; expect_rc 0 "dry run in memory"
cmp -s crash.img dry.img || fail "replay --dry-run in memory changed the image"
run env E4R_FUZZ_DUMP=checked.img "$fz/regress_check" stop.seed; expect_rc 0 "check -n in memory"
cmp -s crash.img checked.img || fail "check -n in memory changed the image"

# A journal named by UUID alone (no journal inode): a real run looks for the
# device among the machine's (libblkid, as e2fsck does); a run in memory probes
# nothing, or every fuzz run would read the disks and depend on them.
# LIBBLKID_DEBUG makes libblkid report whatever it is asked to do.
mkimg ext.img 2M -b 1024
debugfs -w -R "ssv journal_inum 0" ext.img >/dev/null 2>&1 || fail "debugfs journal_inum"
debugfs -w -R "ssv journal_uuid 5a5a5a5a-0000-4000-8000-000000000022" ext.img >/dev/null 2>&1 ||
	fail "debugfs journal_uuid"
"$fz/img2seed" ext.img 1024 0 ext.seed || fail "img2seed"
OUT=$(LIBBLKID_DEBUG=all "$E4R" logdump ext.img 2>&1)
if printf '%s\n' "$OUT" | grep -q "libblkid:"; then
	run env LIBBLKID_DEBUG=all "$fz/regress_logdump" ext.seed; expect_rc 0 "logdump in memory"
	expect_out "no device carries the journal's UUID" "the in-memory journal lookup"
	expect_no_out "libblkid:" "logdump in memory probed the machine's devices"
else
	note "this libblkid reports nothing under LIBBLKID_DEBUG: the probe is not checked"
fi
exit 0
