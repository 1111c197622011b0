# Hostile journals end in a defined way, never a hang or a crash: a log made of one descriptor
# block repeated (no commit ever: the walk must stop after one lap, reason "wrapped"); every
# subcommand on it exits with a documented code; replay writes nothing it should not.
. "$E4R_TESTS_SRCDIR/lib.sh"

mkimg base.img 8M -O metadata_csum
seeded_bytes d 1024 > d
jwrite base.img "jo -c" "jw -b 5000 $PWD/d" "jc"
"$E4R" logdump base.img | grep -q "descriptor block 1:" || fail "unexpected journal layout"
extents=$(debugfs -R "stat <8>" base.img 2>/dev/null | grep -A1 "^EXTENTS:" | tail -n 1)
# Every log block (1..1023) becomes a copy of the descriptor at journal block 1.
python3 - base.img "$extents" <<'PY' || fail "cannot map the journal: $extents"
import re, sys
p, ext = sys.argv[1], sys.argv[2]
phys = {}
for m in re.finditer(r"\((\d+)(?:-(\d+))?\):(\d+)(?:-\d+)?", ext):
    a = int(m.group(1)); b = int(m.group(2) or a); s = int(m.group(3))
    for j in range(a, b + 1):
        phys[j] = s + j - a
assert len(phys) == 1024, len(phys)
f = open(p, "r+b")
f.seek(phys[1] * 1024); d = f.read(1024)
for j in range(2, 1024):
    f.seek(phys[j] * 1024); f.write(d)
PY
cp base.img loop.img
run timeout 60 "$E4R" logdump --json loop.img
[ "$RC" -le 1 ] || fail "logdump on a looping log: exit $RC"
printf '%s\n' "$OUT" > loop.json
python3 - loop.json <<'PY' || fail "the looping log does not end as a lap"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["end"]["reason"] == "wrapped", d["end"]
assert all(not t["committed"] for t in d["transactions"]), "a commit appeared from nowhere"
PY
for args in "logdump --all" "diagnose" "replay --policy=auto" "replay --policy=all" "check -n -f"; do
	cp loop.img x.img
	run timeout 60 "$E4R" $args x.img
	case $RC in 0|1|4|8) ;; *) fail "$args on a looping log: exit $RC" ;; esac
done
# Nothing committed, so nothing may reach a home block: replay leaves block 5000 alone.
cp loop.img r.img
"$E4R" replay --policy=all r.img >/dev/null 2>&1
cmp -s <(dd if=r.img bs=1024 skip=5000 count=1 2>/dev/null) <(dd if=loop.img bs=1024 skip=5000 count=1 2>/dev/null) ||
	fail "replay wrote an uncommitted block home"
exit 0
