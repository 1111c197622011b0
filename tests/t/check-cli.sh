# check's command line: --json findings carry the objects e2fsck names; -n/-y/-p
# exclusive; -y/-p report (repairs are not implemented yet) and never write;
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

# -y and -p: the same check, nothing written, and said so.
sum=$(sha t.img)
for a in -y -p; do
	run "$E4R" check $a -f --policy=stop --undo="$PWD/undo.e2undo" t.img
	expect_rc 4 "check $a leaves the errors"
	expect_out "repairs are not implemented yet" "check $a says repairs are not implemented"
	expect_out "inode $i1 ref count is 5, should be 1" "check $a still reports"
done
[ "$(sha t.img)" = "$sum" ] || fail "check -y wrote to the image"

# -C FD: "pass done total image" lines; every pass reaches its total.
"$E4R" check -n -f -C 3 base.img 3> progress.txt >/dev/null; RC=$?
expect_rc 0 "check -C 3"
for p in 1 2 3 4 5; do
	awk -v p=$p '$1 == p && $2 == $3 && $4 == "base.img" { ok = 1 } END { exit !ok }' progress.txt ||
		fail "no final progress line for pass $p: $(cat progress.txt)"
done
exit 0
