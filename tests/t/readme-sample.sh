# The README's sample (make sample: tests/mksample.sh, then logdump, replay --dry-run and
# check -n) prints what the image holds. Its journal is written by debugfs, which stores
# the commit time's 32-bit seconds in the high half of the 64-bit field: logdump must
# show the date those bytes mean (read from the block with dd, dated by date(1)), not a
# count of seconds billions of years long. replay --dry-run and check -n exit as the
# README says, and check -n as e2fsck -n on the same image.
. "$E4R_TESTS_SRCDIR/lib.sh"

run sh "$E4R_TESTS_SRCDIR/mksample.sh" s.img
expect_rc 0 "tests/mksample.sh"
run "$E4R" logdump s.img
expect_rc 0 "logdump on the sample"
printf '%s\n' "$OUT" > ld.txt
expect_no_out "[0-9]{11,} s" "no commit time printed as a huge count of seconds"

# The first commit block's h_commit_sec, as bytes: the journal block logdump names.
jblk=$(sed -n 's/^  commit block \([0-9]*\),.*/\1/p' ld.txt | head -1)
[ -n "$jblk" ] || fail "logdump names no commit block"
fsblk=$(debugfs -R "bmap <8> $jblk" s.img 2>/dev/null)
bs=$(dumpe2fs -h s.img 2>/dev/null | sed -n 's/^Block size: *//p')
hex=$(dd if=s.img bs="$bs" skip="$fsblk" count=1 2>/dev/null | od -An -tx1 -j 48 -N 8 | tr -d ' \n')
[ "${#hex}" -eq 16 ] || fail "could not read h_commit_sec from block $fsblk"
hi=$((16#${hex:0:8})) lo=$((16#${hex:8:8}))
if [ "$lo" -eq 0 ] && [ "$hi" -ne 0 ]; then
	want=$(date -u -d "@$hi" '+%Y-%m-%d %H:%M:%S')
	grep -q "^  commit block $jblk, $want\.[0-9]* UTC (32-bit seconds in the high half" ld.txt ||
		fail "commit block $jblk: bytes $hex mean $want, logdump says: $(grep "commit block $jblk," ld.txt)"
else
	want=$(date -u -d "@$((16#$hex))" '+%Y-%m-%d %H:%M:%S')
	grep -q "^  commit block $jblk, $want\." ld.txt ||
		fail "commit block $jblk: bytes $hex mean $want, logdump says: $(grep "commit block $jblk," ld.txt)"
fi

run "$E4R" replay --dry-run s.img
expect_rc 0 "replay --dry-run on the sample"
expect_out "[Tt]ransaction" "the dry run lists the transactions"
run e2fsck -n s.img
want=$RC
run "$E4R" check -n s.img
expect_rc "$want" "check -n on the sample, as e2fsck -n"
exit 0
