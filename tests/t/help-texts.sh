# Each subcommand's --help is complete against what the program parses: the replay
# policies check and replay list are exactly lib/replay's table of names (and each is
# accepted), the checksum kinds write lists are accepted and a neighbour is not, and
# write says its IMAGE must come from mke2fs.
. "$E4R_TESTS_SRCDIR/lib.sh"

# The policy names as lib/replay/plan.c spells them (the parser's own table).
plan=$E4R_TESTS_SRCDIR/../lib/replay/plan.c
[ -f "$plan" ] || fail "no $plan"
sed -n '/policy_names\[\] = {/,/};/s/.*= "\([^"]*\)".*/\1/p' "$plan" | sort > parsed.txt
[ "$(wc -l < parsed.txt)" -ge 7 ] || fail "found only $(wc -l < parsed.txt) policy names in plan.c"

mkimg a.img 8M
for sub in check replay; do
	help_values $sub --policy | sort > listed.txt
	diff parsed.txt listed.txt || fail "$sub --help lists other policies than the parser knows"
	while read -r p; do
		# Read-only either way: check -n, replay --dry-run.
		if [ $sub = check ]; then run "$E4R" check -n --policy="$p" a.img
		else run "$E4R" replay --dry-run --policy="$p" a.img; fi
		[ "$RC" -ne 16 ] || fail "$sub --policy=$p (listed by --help) is refused"
	done < listed.txt
	run "$E4R" $sub --policy=stopp a.img; expect_rc 16 "$sub: a policy --help does not list"
	expect_out "stop, skip-block, skip-transaction, all, auto, ask, none" "$sub's refusal lists the policies"
done

help_values write --csum > csums.txt
[ "$(tr '\n' ' ' < csums.txt)" = "none v1 v2 v3 " ] || fail "write --help lists checksums: $(cat csums.txt)"
while read -r c; do
	mkimg w.img 8M
	run "$E4R" write --ops=2 --seed=1 --csum="$c" w.img; expect_rc 0 "write --csum=$c"
	run e2fsck -fn w.img; expect_rc 0 "e2fsck after write --csum=$c"
done < csums.txt
run "$E4R" write --ops=2 --csum=v4 a.img; expect_rc 16 "a checksum --help does not list"

run "$E4R" write --help; expect_out "made by mke2fs" "write --help says IMAGE comes from mke2fs"
truncate -s 8M blank.img
run "$E4R" write --ops=1 blank.img; expect_rc 8 "write on an image mke2fs did not make"
mkimg ext2.img 8M -O ^has_journal
run "$E4R" write --ops=1 ext2.img; expect_rc 8 "write on an image without a journal"
expect_out "no journal" "the missing journal is named"
run "$E4R" write --help; expect_out "with a journal" "write --help says the image needs a journal"
exit 0
