# replay --policy=auto on kernel crash images (mkcrash.py v1, v1async, v3, v3async) with one bit
# flipped in a logged data block of a committed transaction (flipbit.py): the diagnosis proves
# the flip, and the result is identical to e2fsck's replay of the undamaged image (imgdiff.py).
. "$E4R_TESTS_SRCDIR/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root for loop mounts"
trials=0 skipped=0 ambiguous=0
for v in v1 v1async v3 v3async; do
	with_sync_lock -x python3 "$E4R_TESTS_TOOLS/mkcrash.py" $v.img 21 $v > $v.log 2>&1 || {
		[ $v = v1 ] && skip "mkcrash.py could not loop-mount an image: $(tail -n 1 $v.log)"
		fail "mkcrash.py $v: $(tail -n 3 $v.log)"
	}
	cp $v.img ref-$v.img
	e2fsck -E journal_only -y ref-$v.img >/dev/null 2>&1
	for seed in 1 2 3; do
		cp $v.img flip.img
		if ! python3 "$E4R_TESTS_TOOLS/flipbit.py" flip.img $seed data > flip.json 2>/dev/null; then
			skipped=$((skipped + 1)); continue	# debugfs could not map this image's journal
		fi
		# flipbit picks from every logged block; count only the committed live transactions.
		seq=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sequence"])' flip.json)
		"$E4R" logdump --json $v.img > ld.json 2>/dev/null
		live=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(any(t["sequence"]==int(sys.argv[2]) and t["committed"] for t in d["transactions"]))' ld.json "$seq")
		if [ "$live" != True ]; then skipped=$((skipped + 1)); continue; fi
		trials=$((trials + 1))
		run "$E4R" replay --policy=auto flip.img
		[ "$RC" -le 1 ] || fail "$v seed $seed: replay --policy=auto exit $RC"
		if printf '%s\n' "$OUT" | grep -q "transaction $seq: .*: replayed as logged"; then
			# A flipped bitmap bit that the next transaction sets too is also the 2012 leak's
			# signature: both explanations give the same filesystem, so auto replays the
			# block as it is and leaves the journal copy uncorrected. The diagnosis must
			# name the leak, and only that journal block may differ from e2fsck's result.
			cp $v.img diag.img; python3 "$E4R_TESTS_TOOLS/flipbit.py" diag.img $seed data >/dev/null 2>&1
			run "$E4R" diagnose diag.img
			expect_out "transaction $seq, .*" "$v seed $seed: diagnosis of transaction $seq"
			expect_out "unjournaled modification" "$v seed $seed: auto kept the block as is: the leak explanation"
			phys=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["phys"])' flip.json)
			run python3 "$E4R_TESTS_TOOLS/imgdiff.py" ref-$v.img flip.img
			[ "$(printf '%s\n' "$OUT" | grep -c differs)" -eq 1 ] && expect_out "^block $phys differs$" \
				"$v seed $seed: only the flipped journal block differs" ||
				fail "$v seed $seed ($(cat flip.json)): the filesystem differs from e2fsck's replay of the undamaged image: $OUT"
			ambiguous=$((ambiguous + 1))
			continue
		fi
		run python3 "$E4R_TESTS_TOOLS/imgdiff.py" ref-$v.img flip.img
		expect_rc 0 "$v seed $seed ($(cat flip.json)): auto equals e2fsck on the undamaged image"
	done
done
note "$trials trials ($ambiguous where a flip and a leak explain the same bits), $skipped skipped"
[ $trials -ge 4 ] || fail "too few trials ($trials)"
[ $trials -gt $ambiguous ] || fail "no flip was proven and corrected ($trials trials)"
exit 0
