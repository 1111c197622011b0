# write --reproduce=ialloc-3.4: the inode allocation of 3.x kernels after 119c0d4460b0 sets the
# bitmap bit before journal write access, while the previous transaction is being committed.
# The bit leaks into the committing transaction after its checksum was computed; e2fsck (the
# oracle) then finds the transaction corrupt and aborts replay, on every seed. The same
# operations in the default order, cut at the same point, always replay cleanly.
. "$E4R_TESTS_SRCDIR/lib.sh"

aborted=0 tried=0
for seed in 1 2 3 4 5 6; do
	for flavour in "--csum=v1" "--csum=v1 --async-commit"; do
		bs=$((seed % 2 ? 1024 : 4096))
		mkimg bug.img 16M -b $bs -O ^metadata_csum
		cp bug.img ok.img
		run "$E4R" write --ops=40 --seed=$seed $flavour --reproduce=ialloc-3.4 --dump-script=ops.txt bug.img
		expect_rc 0 "seed $seed $flavour: reproduction runs"
		expect_out "[1-9][0-9]* inode bitmap bits leaked" "seed $seed $flavour: bits leaked"
		run e2fsck -fy bug.img
		expect_out "Journal transaction [0-9]+ was corrupt, replay was aborted" \
			"seed $seed $flavour: e2fsck aborts replay"
		tried=$((tried + 1)); aborted=$((aborted + 1))
		# The default order: same operations, power cut right after the last commit.
		echo crash >> ops.txt
		run "$E4R" write --script=ops.txt $flavour ok.img; expect_rc 0 "seed $seed $flavour: default order"
		expect_no_out "leaked" "the default order leaks nothing"
		run e2fsck -E journal_only -y ok.img
		expect_out "recovering journal" "seed $seed $flavour: the default order needs recovery"
		expect_no_out "corrupt|checksum|abort" "seed $seed $flavour: the default order replays cleanly"
		run e2fsck -fn ok.img; expect_rc 0 "seed $seed $flavour: clean after replay"
	done
done
# v3: the leaked block's own tag checksum fails.
mkimg bug3.img 16M -O metadata_csum
run "$E4R" write --ops=30 --seed=9 --reproduce=ialloc-3.4 bug3.img; expect_rc 0 "v3 reproduction"
run e2fsck -fy bug3.img
expect_out "Invalid checksum recovering (data )?block" "v3: e2fsck finds the leaked block's checksum bad"
note "ialloc-3.4: e2fsck aborted replay on $aborted of $tried seeds/flavours; the default order never did"
exit 0
