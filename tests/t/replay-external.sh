# An external journal device (--journal=PATH): logdump reads it, replay --policy=stop leaves both
# the filesystem and the journal device identical to `e2fsck -E journal_only -y -j JOURNAL`,
# and --undo refuses (an undo file cannot cover the second device).
. "$E4R_TESTS_SRCDIR/lib.sh"

mk_external_journal_fs 99999999-2222-3333-4444-555555555555
seeded_bytes d 8192 > d
jwrite fs.img "jo -c -f $PWD/jnl.img" "jw -b 100,101 $PWD/d" "jw -b 102 -r 100 $PWD/d" "jc"

run "$E4R" replay fs.img
expect_rc 8 "without --journal the external journal cannot be found"
expect_out "external device: give it with --journal=PATH" "says how to give it"

run "$E4R" logdump --json --journal=jnl.img fs.img
expect_rc 0 "logdump reads the external journal"
printf '%s\n' "$OUT" > ld.json
python3 - ld.json <<'PY' || fail "logdump's transactions on the external journal"
import json, sys
d = json.load(open(sys.argv[1]))
t = d["transactions"]
assert [x["sequence"] for x in t] == [1, 2], t
assert [b["fs_block"] for b in t[0]["blocks"]] == [100, 101]
assert t[1]["revoked"] == [100]
PY

cp fs.img ref.img; cp jnl.img refj.img
e2fsck -E journal_only -y -j refj.img ref.img >/dev/null 2>&1
cp fs.img ours.img; cp jnl.img oursj.img
run "$E4R" replay --policy=stop --journal=oursj.img ours.img
expect_rc 0 "replay with an external journal"
run python3 "$E4R_TESTS_TOOLS/imgdiff.py" ref.img ours.img
expect_rc 0 "the filesystem is e2fsck's"
cmp -s refj.img oursj.img || fail "the journal device differs from e2fsck's"

cp fs.img u.img; cp jnl.img uj.img
run "$E4R" replay --undo=u.undo --journal=uj.img u.img
expect_rc 8 "undo with an external journal is refused"
expect_out "external journal" "says why"
cmp -s u.img fs.img || fail "the refused replay wrote to the filesystem"
cmp -s uj.img jnl.img || fail "the refused replay wrote to the journal"

# A journal device that is not there ends every command before it reads anything, with
# e2fsck's exit code for a journal it cannot open; the filesystem is left as it was.
cp fs.img nj.img
run e2fsck -fn -j "$PWD/no-such-journal.img" nj.img
want=$RC
[ "$want" -ge 8 ] || fail "oracle: e2fsck -j on a missing device exits $want"
for cmd in "check -n -f" "check -y -f" "replay" "logdump" "diagnose"; do
	run "$E4R" $cmd --journal=no-such-journal.img nj.img
	expect_rc 8 "$cmd with a --journal device that does not exist (e2fsck: $want)"
	expect_out "no-such-journal.img: the journal device given with --journal does not open" \
		"$cmd names the device"
done
cmp -s nj.img fs.img || fail "a command with a missing journal device wrote to the filesystem"
exit 0
