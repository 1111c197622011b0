# Hostile values in committed fast commits: a kernel-made image (seeded fsync
# workload, tests/mkfc.sh) whose committed tags get inode numbers, ranges,
# lengths, names and raw inode bytes changed, with the TAIL checksums
# recomputed so that every tag still reaches the replay (tests/fcmutate.py).
# Each `e4recover replay` must end with a defined exit (0 or 1, or 8 for an
# operational error), never a signal, leave the image its size, refuse the
# bad tags by count (exit 1, the filesystem marked for a check), and leave
# the journal replayed (a second replay has nothing to do).
. "$E4R_TESTS_SRCDIR/lib.sh"
. "$E4R_TESTS_SRCDIR/mkfc.sh"

mkfc_seeded crash.img "${E4R_FC_HOSTILE_SEED:-4}"
"$E4R" logdump --json crash.img > ld.json 2>&1 || fail "logdump: $(tail -n 3 ld.json)"
n=$(python3 -c 'import json; print(json.load(open("ld.json"))["fast_commit_end"]["committed_tags"])')
[ "$n" -gt 10 ] || skip "the kernel left only $n committed fast-commit tags for this seed"
size=$(stat -c %s crash.img)
refused=0
for s in $(seq 1 ${E4R_FC_HOSTILE_RUNS:-12}); do
	python3 "$E4R_TESTS_SRCDIR/fcmutate.py" "$E4R" crash.img m.img "$s" 0.3 || fail "fcmutate seed $s"
	"$E4R" logdump --json m.img > m.json 2>m.err
	rc=$?
	[ $rc -le 1 ] || fail "seed $s: logdump exit $rc: $(tail -n 3 m.err)"
	[ "$(python3 -c 'import json; print(json.load(open("m.json"))["fast_commit_end"]["committed_tags"])')" = "$n" ] ||
		fail "seed $s: the mutated area no longer commits $n tags: fcmutate's checksums are wrong"
	run "$E4R" replay m.img
	case $RC in 0|1|8) ;; *) fail "seed $s: replay exit $RC" ;; esac
	[ "$(stat -c %s m.img)" = "$size" ] || fail "seed $s: the image changed size"
	r=$(printf '%s\n' "$OUT" | sed -n 's/.*applied, \([0-9]*\) refused.*/\1/p')
	refused=$((refused + ${r:-0}))
	if [ "${r:-0}" -gt 0 ]; then
		expect_rc 1 "seed $s: refused tags are problems found"
		expect_out "marked not clean" "seed $s: refused tags ask for a full check"
	fi
	[ "$RC" = 8 ] && continue
	run "$E4R" replay m.img
	expect_rc 0 "seed $s: a second replay finds the journal empty"
done
[ "$refused" -gt 0 ] || fail "no mutated tag was refused: the mutations did not reach the replay"
note "$refused hostile tags refused over the runs"
exit 0
