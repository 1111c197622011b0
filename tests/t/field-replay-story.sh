# A replay that leaves part of the journal out sets the error state, check then runs the full
# check that state calls for, and tells the journal's story (text and JSON): each failed
# checksum with its cause and what the policy did, and what was left out. Kernel crash
# images (mkcrash.py) with one bit flipped by flipbit.py (the oracle for where the flip is),
# under --policy=stop:
#   v3 data block: e2fsck leaves the block out and asks for a check; so do we.
#   v3 commit block: e2fsck calls the transaction corrupt (error state); so do we.
#   v3 async commit block: e2fsck ends the log there silently and calls the result clean;
#     check marks the error state itself and checks fully.
# After each, e2fsck -fn finds nothing.
. "$E4R_TESTS_SRCDIR/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root for loop mounts"
for v in v3 v3async; do
	with_sync_lock -x python3 "$E4R_TESTS_TOOLS/mkcrash.py" k-$v.img 51 $v > k-$v.log 2>&1 || {
		[ "$v" = v3 ] && skip "mkcrash.py could not make a crash image: $(tail -n 1 k-$v.log)"
		fail "mkcrash.py $v: $(tail -n 3 k-$v.log)"
	}
done

story() { # CASE IMAGE KIND: flip, then check -y --policy=stop in text and JSON
	local c=$1 img=$2 kind=$3
	cp "$img" "$c.img"
	python3 "$E4R_TESTS_TOOLS/flipbit.py" "$c.img" 3 "$kind" > "$c.flip" 2>&1 ||
		{ note "$c: flipbit.py found no $kind block: $(cat "$c.flip")"; return 1; }
	cp "$c.img" "$c-ref.img"
	run e2fsck -y "$c-ref.img"
	REF_OUT=$OUT
	cp "$c.img" t.img
	run "$E4R" check -y --policy=stop t.img
	[ "$RC" -le 1 ] || fail "$c: check -y exits $RC"
	TEXT=$OUT
	run e2fsck -fn t.img
	expect_rc 0 "$c: oracle: e2fsck -fn after check -y"
	cp "$c.img" t.img
	"$E4R" check -y --policy=stop --json t.img > "$c.json" 2>/dev/null
	run e2fsck -fn t.img
	expect_rc 0 "$c: oracle: e2fsck -fn after check -y --json"
	return 0
}

# What every case's JSON must say: the flip's transaction and block among the failures,
# proven a bit flip, the error state, the full check, and what was left out.
check_json() { # CASE OUTCOME MARKED(0/1)
	python3 - "$1.json" "$1.flip" "$2" "$3" <<'PY' || fail "$1: the JSON does not tell the story"
import json, sys
d = json.load(open(sys.argv[1]))
flip = json.load(open(sys.argv[2]))
outcome, marked = sys.argv[3], sys.argv[4] == "1"
j = d["journal"]
assert j["replayed"] and j["policy"] == "stop", j
f = [x for x in j["checksum_failures"]
     if x["sequence"] == flip["sequence"] and x["journal_block"] == flip["journal_block"]]
assert len(f) == 1, (flip, j["checksum_failures"])
f = f[0]
assert f["cause"] == "bit_flip" and f["proven"], f
assert f["outcome"] == outcome, (f, outcome)
if flip["fs_block"] is not None:
    assert f["fs_block"] == flip["fs_block"], f
assert j["error_state"] and j["marked_error"] == marked, j
assert j["left_out"], j
if flip["kind"] == "data":
    assert any(x.get("fs_block") == flip["fs_block"] for x in j["left_out"]), j["left_out"]
    assert j["left_out_blocks"] >= 1
else:
    assert j["left_out"][0]["sequence"] == flip["sequence"], j["left_out"]
    assert j["left_out_transactions"] == len(j["left_out"])
assert d["full_check"] and d["reason"] == "errors", d
assert d["errors_left"] == 0, d
PY
}

if story data k-v3.img data; then
	seq=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sequence"])' data.flip)
	printf '%s\n' "$REF_OUT" | grep -q "Invalid checksum recovering data block" ||
		fail "data: oracle: e2fsck does not see the flipped data block"
	printf '%s\n' "$TEXT" | grep -q "Journal transaction $seq: data block tag checksum fails .*cause: flipped bits (proven); policy stop: the block was left out" ||
		fail "data: the text does not name the failure, its cause and the policy's doing"
	printf '%s\n' "$TEXT" | grep -q "check forced" || fail "data: no full check"
	check_json data checksum_bad 1
fi
if story commit k-v3.img commit; then
	seq=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sequence"])' commit.flip)
	printf '%s\n' "$REF_OUT" | grep -q "Journal transaction $seq was corrupt" ||
		fail "commit: oracle: e2fsck does not call transaction $seq corrupt"
	printf '%s\n' "$TEXT" | grep -q "Left out of the replay: transaction(s) $seq" ||
		fail "commit: the text does not say what was left out"
	check_json commit past_replay_end 0
fi
if story async k-v3async.img commit; then
	# e2fsck ends the log at the bad async commit without a word and calls the result clean.
	printf '%s\n' "$REF_OUT" | grep -q "clean, " || note "async: e2fsck -y did not call it clean"
	e2fsck -fn async-ref.img >/dev/null 2>&1 || note "async: e2fsck -fn finds errors in what e2fsck -y called clean"
	printf '%s\n' "$TEXT" | grep -Eq "marked with errors, checking fully|contains a file system with errors, check forced" ||
		fail "async: check does not say it marked the error state"
	printf '%s\n' "$TEXT" | grep -q "check forced" || fail "async: no full check"
	check_json async past_replay_end 1
fi
exit 0
