# replay --policy=auto on kernel crash images (mkcrash.py v3 and data=journal) whose commit block
# of one transaction is torn (its second half replaced by seeded bytes: nothing can prove the
# intended content, so auto cannot correct it).
# (a) A transaction whose every block a later committed transaction logs again: auto proves it
#     superseded, replays past it, and the result is block for block e2fsck -fy's of the
#     undamaged crash (only the torn journal block differs), every file identical by the
#     kernel's read-only reading (fslisting.py); e2fsck on the damaged image (stop) loses the
#     later transactions.
# (b) A transaction with a block nobody logs again: auto acts as stop (the image equals
#     --policy=stop's), and the blocks it prints per alternative policy are exactly those that
#     differ (imgdiff) between a stop replay and a replay under that policy.
. "$E4R_TESTS_SRCDIR/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root for loop mounts"
mkdir mnt

# pick LOGDUMP.json superseded|not: the sequence and commit block of each committed live
# transaction (not the first) whose blocks are all logged again by later committed ones (with
# no revoke records), or of the first one with a block logged by no later transaction.
pick() {
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
live = [t for t in d["transactions"] if t["committed"] and not t["old"]]
for i, t in enumerate(live):
    if i == 0:
        continue
    later = set()
    for u in live[i + 1:]:
        later |= {b["fs_block"] for b in u["blocks"]}
    mine = {b["fs_block"] for b in t["blocks"]}
    sup = bool(mine) and mine <= later and not t["revoked"]
    if (sys.argv[2] == "superseded") == sup and (sup or mine - later):
        print(t["sequence"], t["commit_block"])
        if not sup:
            break
PY
}
# tear IMAGE JBLK: the second half of journal block JBLK becomes seeded bytes.
tear() {
	local bs; bs=$(dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Block size: *//p')
	seeded_bytes "tear-$2" $((bs / 2)) |
		dd of="$1" bs=1 seek=$(( $(jblock_offset "$1" "$2") + bs / 2 )) conv=notrunc 2>/dev/null
}
differs() { # A B: every filesystem block whose bytes differ, one per line (imgdiff stops at 50)
	python3 - "$1" "$2" "$(dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Block size: *//p')" <<'PY'
import sys
bs = int(sys.argv[3])
with open(sys.argv[1], "rb") as a, open(sys.argv[2], "rb") as b:
    n = 0
    while True:
        x, y = a.read(bs), b.read(bs)
        if not x and not y:
            break
        if x != y:
            print(n)
        n += 1
PY
}

proven=0 stopped=0
for c in "v3 21" "v3 22" "djournal 21"; do
	set -- $c; v=$1; seed=$2; n=$v-$seed
	with_sync_lock -x python3 "$E4R_TESTS_TOOLS/mkcrash.py" $n.img $seed $v > $n.log 2>&1 || {
		[ $n = v3-21 ] && skip "mkcrash.py could not loop-mount an image: $(tail -n 1 $n.log)"
		fail "mkcrash.py $n: $(tail -n 3 $n.log)"
	}
	"$E4R" logdump --json $n.img > $n.json 2>/dev/null
	jsb=$(( $(jblock_offset $n.img 0) / $(dumpe2fs -h $n.img 2>/dev/null | sed -n 's/^Block size: *//p') ))

	# ---- (a) superseded: the first two such transactions ----
	pick $n.json superseded | head -n 2 > sup.list
	while read -r seq cjb; do
		cp $n.img ref.img; e2fsck -fy ref.img >/dev/null 2>&1
		cp $n.img sup.img; tear sup.img $cjb
		cp sup.img e2.img; e2fsck -fy e2.img >/dev/null 2>&1 </dev/null
		cp sup.img ours.img
		run "$E4R" replay --policy=auto ours.img </dev/null
		expect_rc 1 "$n: auto on a torn commit reports the failure"
		expect_out "transaction $seq: commit checksum does not match: left out: wholly superseded" "$n: auto skips $seq"
		expect_out "transaction $seq: wholly superseded" "$n: auto says why"
		expect_no_out "was corrupt" "$n: nothing left unresolved"
		e2fsck -fy ours.img >/dev/null 2>&1 </dev/null
		run e2fsck -fn ours.img </dev/null
		expect_rc 0 "$n: e2fsck -fn finds nothing after auto and e2fsck -fy"
		phys=$(( $(jblock_offset $n.img $cjb) / $(dumpe2fs -h $n.img 2>/dev/null | sed -n 's/^Block size: *//p') ))
		d=$(differs ref.img ours.img | grep -v -x -e 0 -e 1 -e "$phys" | tr '\n' ' ')
		[ -z "$d" ] || fail "$n: auto's result differs from e2fsck on the undamaged crash in blocks $d"
		lost=$(differs ref.img e2.img | wc -l)
		[ "$lost" -gt 2 ] || fail "$n: stop loses nothing here: the case proves nothing"
		# The files, as the kernel reads them (read-only, no journal): every path identical.
		for i in ref e2 ours; do
			mount -o loop,ro,noload $i.img mnt || fail "$n: cannot mount $i.img"
			python3 "$E4R_TESTS_SRCDIR/fslisting.py" mnt $i.img > $i.list; rc=$?
			umount mnt
			[ $rc = 0 ] || fail "$n: fslisting.py $i.img"
		done
		cmp -s ref.list ours.list || fail "$n: the files differ from the undamaged crash's: $(diff ref.list ours.list | head -n 5)"
		kept=$(python3 -c 'import sys
r = {l.split()[0]: l for l in open(sys.argv[1])}; o = {l.split()[0]: l for l in open(sys.argv[2])}
print(sum(o.get(p) == r[p] for p in r))' ref.list e2.list)
		note "$n: transaction $seq superseded: auto keeps all $(wc -l < ref.list) paths of the undamaged replay; stop (e2fsck) $kept, and differs in $lost blocks"
		proven=$((proven + 1))
	done < sup.list

	# ---- (b) not superseded ----
	set -- $(pick $n.json not)
	[ $# = 2 ] || continue
	seq=$1 cjb=$2
	cp $n.img ns.img; tear ns.img $cjb
	for p in stop auto skip-block skip-transaction all; do
		cp ns.img ns-$p.img
		"$E4R" replay --policy=$p ns-$p.img > ns-$p.out 2>&1
	done
	grep -q "transaction $seq: not superseded" ns-auto.out || fail "$n: auto does not say $seq is not superseded"
	grep -A1 "transaction $seq: commit checksum does not match: not replayed" ns-auto.out | grep -q "^  why: [a-z]" ||
		fail "$n: the refusal does not say why"
	grep -q "what the other policies would write differently from auto" ns-auto.out ||
		fail "$n: auto does not print the alternatives"
	run python3 "$E4R_TESTS_TOOLS/imgdiff.py" ns-stop.img ns-auto.img
	expect_rc 0 "$n: auto without a proof is stop"
	cp ns.img dry.img
	"$E4R" replay --dry-run --json --policy=auto dry.img > dry.json
	cmp -s dry.img ns.img || fail "$n: the dry run wrote"
	for p in skip-block skip-transaction all; do
		printed=$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); a=[x for x in d["alternatives"] if x["policy"]==sys.argv[2]]
print(" ".join(str(b["fs_block"]) for b in a[0]["blocks"]))' dry.json $p)
		real=$(differs ns-stop.img ns-$p.img | grep -v -x -e 0 -e 1 -e "$jsb" | tr '\n' ' ')
		[ "$printed" = "${real% }" ] ||
			fail "$n: --policy=$p: auto printed blocks [$printed], the replays differ in [${real% }]"
		# The text names every one of them.
		for b in $printed; do
			grep -q "fs block $b, " ns-auto.out || fail "$n: --policy=$p: block $b is not named in the text"
		done
		note "$n: transaction $seq not superseded; --policy=$p writes $(echo $printed | wc -w) blocks differently"
	done
	stopped=$((stopped + 1))
done
[ $proven -ge 1 ] || fail "no crash image had a superseded transaction"
[ $stopped -ge 1 ] || fail "no crash image had a transaction that is not superseded"
exit 0
