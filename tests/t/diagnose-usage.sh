# diagnose's exit codes (DESIGN.md): 0 nothing wrong, 8 operational errors with the image
# and the reason named; a filesystem without a journal, as dumpe2fs sees it, is nothing
# wrong: exit 0 and one line saying so (a JSON document under --json).
. "$E4R_TESTS_SRCDIR/lib.sh"

run "$E4R" diagnose no-such.img
expect_rc 8 "a missing image"
expect_out "no-such.img" "the image is named"

expect_no_journal_report diagnose findings
printf '%s\n' "$OUT" | python3 -c 'import json, sys; sys.exit(json.load(sys.stdin)["problems"] != 0)' ||
	fail "no journal: diagnose --json counts problems"

# A clean journal (s_start 0, as e2fsck leaves it): nothing to diagnose.
mkimg clean.img 8M
e2fsck -fn clean.img >/dev/null 2>&1 || fail "e2fsck does not find the fresh image clean"
run "$E4R" diagnose clean.img
expect_rc 0 "clean journal"
expect_out "every journal checksum matches" "says so"
run "$E4R" diagnose --json clean.img
expect_rc 0 "clean journal, JSON"
printf '%s\n' "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if d["findings"] == [] and d["problems"] == 0 else 1)' ||
	fail "JSON: no findings"
exit 0
