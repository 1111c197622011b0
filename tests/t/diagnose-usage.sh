# diagnose's exit codes (DESIGN.md): 0 nothing wrong, 8 operational errors with the image
# and the reason named; a filesystem without a journal, as dumpe2fs sees it, is nothing
# wrong: exit 0 and one line saying so (a JSON document under --json).
. "$E4R_TESTS_SRCDIR/lib.sh"

run "$E4R" diagnose no-such.img
expect_rc 8 "a missing image"
expect_out "no-such.img" "the image is named"

mkimg nojournal.img 8M -O ^has_journal
dumpe2fs -h nojournal.img 2>/dev/null | grep -q has_journal && fail "mke2fs made a journal anyway"
run "$E4R" diagnose nojournal.img
expect_rc 0 "no journal"
[ "$(printf '%s\n' "$OUT" | wc -l)" -eq 1 ] || fail "no journal: one line expected"
expect_out "^nojournal.img: the filesystem has no journal" "says so, naming the image"
run "$E4R" diagnose --json nojournal.img
expect_rc 0 "no journal, --json"
printf '%s\n' "$OUT" | python3 -c 'import json,sys
d = json.load(sys.stdin)
sys.exit(0 if d["has_journal"] is False and d["findings"] == [] and d["problems"] == 0 else 1)' ||
	fail "no journal: the JSON document does not say so"

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
