# After the replay, check does what e2fsck does next (the kernel's crash images, mkcrash.py
# with files deleted while open at the crash, v3 and v1 journals): the orphans are released
# as routine by check -y and -p without -f (exit code as e2fsck's, the same inodes named),
# the "clean, N/M files, B/C blocks" line equals e2fsck's, the superblock's free counts then
# equal those e2fsck leaves on a copy (dumpe2fs), and e2fsck -fn finds nothing. With -f the
# orphans are not reported as corruption and the exit code is e2fsck -fy's. Also the orphan
# file (feature orphan_file) the kernel leaves: released, clean, e2fsck's counts.
. "$E4R_TESTS_SRCDIR/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root for loop mounts"
counts() { dumpe2fs -h "$1" 2>/dev/null | grep -E "^Free (blocks|inodes):"; }
cleared() { printf '%s\n' "$1" | sed -n 's/^\([^ ]*: \)\{0,1\}Clearing orphaned inode \([0-9]*\) .*/\2/p' | sort -n | tr '\n' ' '; }
tested=0
for v in v3 v1; do
	with_sync_lock -x python3 "$E4R_TESTS_TOOLS/mkcrash.py" k-$v.img 41 $v orphans > k-$v.log 2>&1 || {
		[ "$v" = v3 ] && skip "mkcrash.py could not make a crash image: $(tail -n 1 k-$v.log)"
		fail "mkcrash.py $v: $(tail -n 3 k-$v.log)"
	}
	# The oracle: e2fsck -y (not forced) on a copy.
	cp k-$v.img ref.img
	run e2fsck -y ref.img
	ref_rc=$RC ref_out=$OUT
	want=$(cleared "$ref_out")
	[ -n "$want" ] || { note "$v: the kernel left no orphan behind"; continue; }
	ref_clean=$(printf '%s\n' "$ref_out" | sed -n 's/^ref.img: \(clean, .*\)/\1/p')
	[ -n "$ref_clean" ] || fail "$v: oracle: e2fsck -y does not call the replayed image clean"
	ref_counts=$(counts ref.img)

	for mode in -y -p; do
		cp k-$v.img t.img
		run "$E4R" check $mode t.img
		expect_rc "$ref_rc" "$v: check $mode exits as e2fsck -y"
		[ "$(cleared "$OUT")" = "$want" ] || fail "$v: check $mode cleared '$(cleared "$OUT")', e2fsck '$want'"
		expect_out "^t.img: $ref_clean\$" "$v: check $mode's clean line is e2fsck's ($ref_clean)"
		[ "$(counts t.img)" = "$ref_counts" ] || fail "$v: check $mode leaves counts '$(counts t.img)', e2fsck '$ref_counts'"
		run e2fsck -fn t.img
		expect_rc 0 "$v: oracle: e2fsck -fn after check $mode"
		dumpe2fs -h t.img 2>/dev/null | grep -q "^First orphan inode" && fail "$v: the orphan list is left after check $mode"
	done

	# The same through JSON: what was released, and the summary.
	cp k-$v.img t.img
	"$E4R" check -y --json t.img > t.json 2>/dev/null
	python3 - t.json "$want" "$ref_clean" <<'PY' || fail "$v: check -y --json does not tell the orphans and counts as e2fsck"
import json, re, sys
d = json.load(open(sys.argv[1]))
want = sorted(int(x) for x in sys.argv[2].split())
m = re.match(r"clean, (\d+)/(\d+) files, (\d+)/(\d+) blocks", sys.argv[3])
o, s = d["orphans"], d["summary"]
assert sorted(x["inode"] for x in o["inodes"]) == want, o
assert o["cleared"] + o["truncated"] == len(want) and not o["left_to_check"], o
assert d["findings"] == [] and d["clean"] and not d["full_check"], d
assert [s["inodes_used"], s["inodes_count"], s["blocks_used"], s["blocks_count"]] == [int(x) for x in m.groups()], s
assert d["journal"]["replayed"] and d["journal"]["left_out"] == [], d["journal"]
PY

	# Forced: the full check after the release finds no orphan to complain about.
	cp k-$v.img ref.img
	run e2fsck -fy ref.img
	ref_rc=$RC
	cp k-$v.img t.img
	run "$E4R" check -y -f t.img
	expect_rc "$ref_rc" "$v: check -y -f exits as e2fsck -fy"
	# Pass 5 may fix the free counts (e2fsck -fy does too); nothing about the orphans.
	expect_no_out "orphan list|orphaned inode list|zero deletion time" \
		"$v: with -f no orphan is reported as corruption"
	[ "$(cleared "$OUT")" = "$want" ] || fail "$v: check -y -f cleared '$(cleared "$OUT")', e2fsck '$want'"
	run e2fsck -fn t.img
	expect_rc 0 "$v: oracle: e2fsck -fn after check -y -f"
	tested=$((tested + 1))
done
[ "$tested" -gt 0 ] || skip "no crash image had orphans"

# The orphan file (feature orphan_file): two files deleted while open, then a shutdown.
# e2fsck 1.47.0 releases the same inodes but then forces a check (it wrote only the primary
# superblock) and reports its own orphan block; its counts are the oracle, not its exit code.
mkimg of.img 64M -O orphan_file
mkdir -p mnt
mount -o loop of.img mnt 2>/dev/null || fail "loop mount of the orphan_file image"
(
	cd mnt && seq 1 100000 > f1 && seq 1 50000 > f2 && sync -f . && exec 3<f1 4<f2 &&
		rm f1 f2 && sync -f . && "$E4R_SHUTDOWN" "$PWD"
) || { umount mnt; fail "shutdown with files open"; }
umount mnt || fail "umount"
dumpe2fs -h of.img 2>/dev/null | grep -q "orphan_present" || skip "the kernel did not use the orphan file"
cp of.img ref.img
run e2fsck -y ref.img
want=$(cleared "$OUT")
[ -n "$want" ] || fail "orphan file: oracle: e2fsck -y releases nothing"
cp of.img t.img
run "$E4R" check -y t.img
expect_rc 0 "orphan file: check -y releases the orphans as routine"
[ "$(cleared "$OUT")" = "$want" ] || fail "orphan file: check -y cleared '$(cleared "$OUT")', e2fsck '$want'"
expect_out "^t.img: clean, " "orphan file: check -y calls the result clean"
[ "$(counts t.img)" = "$(counts ref.img)" ] || fail "orphan file: counts '$(counts t.img)', e2fsck '$(counts ref.img)'"
dumpe2fs -h t.img 2>/dev/null | grep -q "orphan_present" && fail "orphan file: orphan_present is left set"
run e2fsck -fn t.img
expect_rc 0 "orphan file: oracle: e2fsck -fn after check -y"
exit 0
