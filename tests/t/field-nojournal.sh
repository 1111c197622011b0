# A filesystem without a journal (ext2; dumpe2fs is the oracle for "no journal") is nothing
# wrong for the journal commands: replay (with and without --dry-run), diagnose and logdump
# exit 0 with one line saying so, or under --json a valid document saying so
# ("has_journal": false), and write nothing. A script looping over filesystems can tell a
# healthy ext2 from a failure.
. "$E4R_TESTS_SRCDIR/lib.sh"

rm -f e2.img
mke2fs -q -F -t ext2 -U "$FIXED_UUID" -E "hash_seed=$FIXED_HASH_SEED" e2.img 8M >/dev/null 2>&1 ||
	fail "mke2fs -t ext2"
dumpe2fs -h e2.img 2>/dev/null | grep -q "^Filesystem features:.*has_journal" &&
	fail "oracle: mke2fs -t ext2 made a journal"
before=$(sha e2.img)
for cmd in "replay" "replay --dry-run" "replay --policy=all" "diagnose" "logdump" "logdump --all"; do
	run $E4R $cmd e2.img
	expect_rc 0 "$cmd on ext2"
	[ "$(printf '%s\n' "$OUT" | wc -l)" -eq 1 ] || fail "$cmd on ext2: one line expected"
	expect_out "^e2.img: the filesystem has no journal" "$cmd on ext2 says so"
	OUT=$($E4R $cmd --json e2.img); RC=$?
	expect_rc 0 "$cmd --json on ext2"
	printf '%s\n' "$OUT" | python3 -c 'import json,sys
d = json.load(sys.stdin)
sys.exit(0 if d["has_journal"] is False and d["image"] == "e2.img" else 1)' ||
		fail "$cmd --json on ext2: the document does not say there is no journal: $OUT"
done
[ "$(sha e2.img)" = "$before" ] || fail "a journal command wrote to the ext2 image"
# A filesystem with a journal says it has one, in the same field.
mkimg j.img 8M
for cmd in replay diagnose logdump; do
	$E4R $cmd --json j.img | python3 -c 'import json,sys
sys.exit(0 if json.load(sys.stdin)["has_journal"] is True else 1)' ||
		fail "$cmd --json: has_journal is not true for a journalled image"
done
# check (e2fsck's oracle: clean) has always taken an ext2 in its stride.
run e2fsck -fn e2.img
expect_rc 0 "oracle: e2fsck -fn on the ext2"
run $E4R check -y e2.img
expect_rc 0 "check -y on the ext2"
exit 0
