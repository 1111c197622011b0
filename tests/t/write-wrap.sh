# write: a long random workload on a 1 MiB journal wraps the log several times (checkpoints move
# the tail, kept in the journal superblock). Cut at points spread over the run, the image always
# replays (e2fsck) to a state e2fsck -fn finds clean, and debugfs sees a log that starts past
# its first block, i.e. the writer really wrapped and checkpointed.
. "$E4R_TESTS_SRCDIR/lib.sh"

mkimg base.img 48M -b 1024 -J size=1
cp base.img full.img
run "$E4R" write --ops=500 --seed=77 full.img; expect_rc 0 "uncut run"
total=$(printf '%s\n' "$OUT" | sed -n 's/.* \([0-9]*\) block writes$/\1/p')
run e2fsck -fn full.img; expect_rc 0 "uncut run is clean"
[ -n "$total" ] && [ "$total" -gt 2000 ] || fail "expected a long run, got '$total' block writes"
wrapped=0
for k in 1 3 5 6 7 8 9; do
	n=$((total * k / 10))
	cp base.img c.img
	run "$E4R" write --ops=500 --seed=77 --crash-after=$n c.img; expect_rc 0 "cut at $n"
	run debugfs -R "logdump" c.img
	start=$(printf '%s\n' "$OUT" | sed -n 's/^Journal starts at block \([0-9]*\),.*/\1/p')
	[ -n "$start" ] && [ "$start" -gt 1 ] && wrapped=$((wrapped + 1))
	run e2fsck -E journal_only -y c.img
	run e2fsck -fn c.img; expect_rc 0 "clean after replaying a cut at $n of $total"
done
[ $wrapped -ge 3 ] || fail "the log tail never moved ($wrapped cuts with s_start > 1)"

# A script without commit lines whose single transaction would overflow the log: like jbd2,
# the writer commits when the running transaction reaches a quarter of the journal.
mkimg many.img 32M -b 1024 -J size=1 -N 8192
seq 1 4000 | sed 's|.*|create /m& 0|' > many.txt
run "$E4R" write --script=many.txt many.img; expect_rc 0 "4000 creates without a commit line"
run e2fsck -fn many.img; expect_rc 0 "clean after 4000 creates"
expect_out "^many.img: 4011/" "e2fsck counts the 4000 new inodes"
note "$wrapped of 7 cut points had the log tail moved by checkpoints"
exit 0
