# check's command line: --json findings carry the objects e2fsck names; -n/-y/-p
# exclusive; -y/-p repair (a link count is safe for -p), saying so in text and JSON;
# --policy and --undo accepted; -C FD writes progress per pass.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

base_image
i1=$(debugfs -R "stat f1" base.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
cp base.img t.img
debugfs -w -R "sif f1 links_count 5" t.img >/dev/null 2>&1 || fail "debugfs sif"
run e2fsck -fn t.img
expect_out "Inode $i1 ref count is 5, should be 1" "oracle"

# JSON: the finding names the inode and both counts e2fsck gives.
"$E4R" check -n -f --json t.img > out.json; RC=$?
expect_rc 4 "check --json on a damaged image"
python3 - "$i1" <<'PY' || fail "JSON findings do not match e2fsck's"
import json, sys
d = json.load(open("out.json"))
assert d["clean"] is False and d["full_check"] is True and d["errors"] >= 1, d
f = [x for x in d["findings"] if x["problem"] == "link_count"]
assert len(f) == 1, d["findings"]
f = f[0]
assert f["inode"] == int(sys.argv[1]) and f["found"] == 5 and f["expected"] == 1, f
assert f["pass"] == "links" and f["severity"] == "error" and "ref count" in f["message"], f
PY
"$E4R" check -n -f --json base.img > clean.json; RC=$?
expect_rc 0 "check --json on a clean image"
python3 -c 'import json; d = json.load(open("clean.json")); assert d["clean"] and d["findings"] == [], d' ||
	fail "clean JSON"

# Exclusive answers, bad policy: usage errors.
run "$E4R" check -n -y t.img;  expect_rc 16 "-n with -y"
run "$E4R" check -p -y t.img;  expect_rc 16 "-p with -y"
run "$E4R" check -n --policy=bogus t.img; expect_rc 16 "unknown policy"; expect_out "bogus" "the policy is named"

# -y and -p: the link count is fixed (exit 1), e2fsck agrees, JSON says what was fixed.
for a in -y -p; do
	cp t.img r.img
	rm -f undo.e2undo
	run "$E4R" check $a -f --policy=stop --undo="$PWD/undo.e2undo" r.img
	expect_rc 1 "check $a fixes the link count"
	expect_out "inode $i1 ref count is 5, should be 1" "check $a reports what it fixes"
	expect_out "Fix\\? yes" "check $a says it fixed it"
	run e2fsck -fn r.img
	expect_rc 0 "oracle: e2fsck -fn after check $a"
done
cp t.img r.img
"$E4R" check -y -f --json r.img > fixed.json; RC=$?
expect_rc 1 "check -y --json"
python3 - <<'PY' || fail "JSON does not say what was fixed"
import json
d = json.load(open("fixed.json"))
assert d["clean"] is True and d["fixed"] >= 1 and d["errors_left"] == 0, d
f = [x for x in d["findings"] if x["problem"] == "link_count"]
assert f and f[0]["fixed"] is True and f[0]["round"] == 0, f
PY

# -C FD: "pass done total image" lines; every pass reaches its total.
"$E4R" check -n -f -C 3 base.img 3> progress.txt >/dev/null; RC=$?
expect_rc 0 "check -C 3"
for p in 1 2 3 4 5; do
	awk -v p=$p '$1 == p && $2 == $3 && $4 == "base.img" { ok = 1 } END { exit !ok }' progress.txt ||
		fail "no final progress line for pass $p: $(cat progress.txt)"
done
# -C with a descriptor that is not open: refused before the check, as e2fsck refuses it.
run e2fsck -fn -C 99 base.img
want=$RC
run "$E4R" check -n -f -C 99 base.img
expect_rc "$want" "check -C 99 (not open), as e2fsck -C 99"
expect_out "file descriptor 99 is not open" "names the descriptor"

# --journal on a filesystem whose journal is internal names no device the check could use:
# a usage error (e2fsck ignores -j there, and the device would never be read).
run "$E4R" check -n -f --journal=t.img base.img
expect_rc 16 "--journal on an internal journal"
expect_out "names no external journal" "says why"
exit 0
