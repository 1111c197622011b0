# A journal whose log is damaged in its structure, not in a checksum: a revoke block's
# record count past the block, on a journal without checksums. e2fsck refuses to recover
# it ("... while recovering journal") and writes none of it; check -y must do the same,
# name that cause, and not call it a checksum error (there are no checksums to fail);
# diagnose must name it too and exit 1, where it said "every journal checksum matches".
. "$E4R_TESTS_SRCDIR/lib.sh"

mkimg rv.img 8M -O ^metadata_csum
seeded_bytes blk 1024 > e.blk
debugfs -w -f - rv.img >/dev/null 2>&1 <<EOC || fail "debugfs journal writes"
jo
jw -b 5000,5001 $PWD/e.blk
jc
jo
jw -b 5010 -r 5000 $PWD/e.blk
jc
EOC
dumpe2fs -h rv.img 2>/dev/null | grep -q needs_recovery || fail "the journal does not need recovery"
# the revoke block: the one logdump names; its r_count (bytes 12-15, big-endian) to 65535
run "$E4R" logdump rv.img
rjblk=$(printf '%s\n' "$OUT" | sed -n 's/^  revoke block \([0-9]*\):.*/\1/p' | head -1)
[ -n "$rjblk" ] || fail "no revoke block in the log"
fsblk=$(debugfs -R "bmap <8> $rjblk" rv.img 2>/dev/null)
printf '\000\000\377\377' | dd of=rv.img bs=1 seek=$((fsblk * 1024 + 12)) conv=notrunc 2>/dev/null
cp rv.img ours.img; cp rv.img theirs.img

run "$E4R" diagnose rv.img
expect_rc 1 "diagnose on a log that cannot be recovered"
expect_out "cannot be recovered: revoke block's record count is larger than the block" "diagnose names it"
expect_no_out "every journal checksum matches" "diagnose does not call the log sound"
"$E4R" diagnose --json rv.img > diag.json
python3 - diag.json <<'PY' || fail "diagnose --json: log_fault and problems"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["log_fault"] and "record count" in d["log_fault"] and d["problems"] >= 1, d
PY

run e2fsck -fy theirs.img
expect_out "while recovering journal" "oracle: e2fsck refuses to recover this log"
run "$E4R" check -y -f ours.img
expect_out "the journal cannot be replayed: revoke block's record count is larger than the block" \
	"check names the structural fault"
expect_no_out "[Cc]hecksum" "check speaks of no checksum on a journal that has none"
# the error state the replay set is said once, not again as a note; without -f, the check
# it forces is explained as e2fsck explains it
expect_no_out "marked as having errors" "the error state is not repeated as a note"
cp rv.img nof.img
run "$E4R" check -y nof.img
expect_out "contains a file system with errors, check forced" "the forced check is explained"
expect_no_out "marked as having errors" "the error state is not repeated as a note (without -f)"
# Neither tool wrote a logged block home: 5000, 5001 and 5010 hold what they held.
for b in 5000 5001 5010; do
	for img in ours theirs; do
		dd if=$img.img bs=1024 skip=$b count=1 2>/dev/null | cmp -s - blk &&
			fail "$img: block $b holds the logged content: part of the log was replayed"
	done
done
run e2fsck -fn ours.img
expect_rc 0 "oracle: e2fsck -fn after check -y"
cp rv.img j.img
"$E4R" check -y -f --json j.img > out.json
python3 - out.json <<'PY' || fail "--json: journal.log_fault"
import json, sys
d = json.load(open(sys.argv[1]))
j = d["journal"]
assert j["log_fault"] and "record count" in j["log_fault"], j
PY
exit 0
