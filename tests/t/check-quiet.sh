# check's text report is about as long as e2fsck's: check -n -f and check -y -f print at
# most 1.2 times the lines e2fsck -fn and -fy print (the oracle) on every damaged image the
# suite builds: the README's sample, the writer's journals (the 2012 leak with v1 and v3
# checksums, a crash), check_lib.sh's damaged images (shared blocks, a cleared inode and a
# lost directory, wrong counts), and each case of tests/difftest/regress.txt the
# differential tester rebuilds (difftest.py --line-counts).
#
# The rule: e2fsck's version banner is not counted; ours <= 1.2 x e2fsck's + 4. The 4
# lines are what a short report of ours says and e2fsck's does not: a clean filesystem's
# pass headers where e2fsck -n prints almost nothing, a recheck's line and its pass
# header, the note that repairs went to the disk without the journal or that the
# journal was made anew. Where e2fsck does not finish a check (no "N/N files" summary:
# it cannot proceed, an unsupported feature, a journal it will not load, "e2fsck:
# aborted") it checked too little to compare with: not compared, but counted.
#
# Also: -v prints every finding's message that --json lists (the folded ones included),
# and without -v no finding's message is printed twice as a line of its own.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

RATIO_TENTHS=12 ALLOWANCE=4
: > counts.txt
nlines() { grep -vc '^e2fsck 1\.' "$1"; }
finished() { grep -Eq ': [0-9]+/[0-9]+ files' "$1" && ! grep -q '^e2fsck: aborted' "$1"; }
# within WHAT E2FSCK-LINES OURS-LINES: the rule above.
within() {
	[ $(($3 * 10)) -le $(($2 * RATIO_TENTHS + ALLOWANCE * 10)) ] ||
		fail "$1: check prints $3 lines, e2fsck $2 (at most 1.2x + $ALLOWANCE)"
	printf '%s %s %s\n' "$1" "$2" "$3" >> counts.txt
}
# measure IMAGE [OPTION...]: -n and -y (on copies) by both tools, held to the rule.
measure() {
	local img=$1; shift
	e2fsck -fn "$@" "$img" > e.n 2>&1
	"$E4R" check -n -f "$img" > o.n 2>&1
	cp "$img" e.img; cp "$img" o.img
	e2fsck -fy "$@" e.img > e.y 2>&1
	"$E4R" check -y -f o.img > o.y 2>&1
	if finished e.n; then within "$img -n" "$(nlines e.n)" "$(nlines o.n)"
	else note "$img: e2fsck -fn does not finish: not compared"; fi
	if finished e.y; then within "$img -y" "$(nlines e.y)" "$(nlines o.y)"
	else note "$img: e2fsck -fy does not finish: not compared"; fi
	# every finding once as a line of its own; -v shows each one --json lists
	"$E4R" check -n -f --json "$img" 2>/dev/null > n.json
	cp "$img" v.img; "$E4R" check -y -f -v v.img > o.yv 2>&1
	cp "$img" j.img; "$E4R" check -y -f --json j.img 2>/dev/null > y.json
	python3 - n.json o.n y.json o.y o.yv <<'PY' || fail "$img: findings printed twice, or missing under -v"
import json, sys
for doc, quiet, verbose in ((sys.argv[1], sys.argv[2], None), (sys.argv[3], sys.argv[4], sys.argv[5])):
    msgs = [f["message"] for f in json.load(open(doc))["findings"]]
    lines = open(quiet, encoding="utf-8").read().splitlines()
    for m in set(msgs):
        # the same message twice in --json (the same finding in two checks) may stand twice
        if lines.count(m) > msgs.count(m) or (lines.count(m) > 1 and msgs.count(m) == 1):
            sys.exit("%s: %r printed %d times" % (quiet, m, lines.count(m)))
    if verbose:
        text = open(verbose, encoding="utf-8").read()
        missing = [m for m in msgs if m not in text]
        if missing:
            sys.exit("-v leaves out %d findings, e.g. %r" % (len(missing), missing[0]))
PY
}

# The README's sample and the writer's journals (each fault confirmed by e2fsck).
sh "$E4R_TESTS_SRCDIR/mksample.sh" sample.img >/dev/null || fail "tests/mksample.sh"
measure sample.img
mkimg v1.img 32M -O ^metadata_csum
"$E4R" write --ops=40 --seed=1 --csum=v1 --reproduce=ialloc-3.4 v1.img >/dev/null 2>&1 || fail "write v1"
mkimg v3.img 32M -O metadata_csum
"$E4R" write --ops=40 --seed=1 --csum=v3 --reproduce=ialloc-3.4 v3.img >/dev/null 2>&1 || fail "write v3"
mkimg crash.img 32M -O metadata_csum
"$E4R" write --ops=60 --seed=2 --crash-after=40 crash.img >/dev/null 2>&1
for img in v1 v3; do
	cp $img.img oracle.img
	run e2fsck -fy oracle.img
	expect_out "Journal (checksum error found|transaction [0-9]+ was corrupt)" "oracle: e2fsck finds $img's fault"
	measure $img.img
done
measure crash.img

# check_lib.sh's damaged images, each found damaged by e2fsck -fn.
nomem_damaged_images
for img in dup dir cnt; do
	measure $img.img
done

# The differential tester's regression cases, rebuilt on its flavours' bases.
if [ "$(id -u)" = 0 ] && mkimg probe.img 8M && mkdir -p mnt && mount -o loop,ro probe.img mnt 2>/dev/null; then
	umount mnt
	[ -x "$E4R_FSMETA" ] || fail "no $E4R_FSMETA: build it with make check"
	python3 "$E4R_TESTS_SRCDIR/difftest/difftest.py" --e4recover "$E4R" --fsmeta "$E4R_FSMETA" \
		--work "$PWD/bases" --count 0 --jobs 2 --line-counts \
		--regress "$E4R_TESTS_SRCDIR/difftest/regress.txt" > regress.out 2>&1
	grep -q '^[0-9]* passed, 0 failed$' regress.out || fail "difftest --regress: $(grep -A5 '^FAIL' regress.out | head -20)"
	grep '^# lines ' regress.out > lines.txt
	# most regression cases are damage e2fsck finds (a few are false alarms we once gave)
	cases=$(grep -cv '^\s*\(#\|$\)' "$E4R_TESTS_SRCDIR/difftest/regress.txt")
	[ $(($(wc -l < lines.txt) * 2)) -ge "$cases" ] ||
		fail "only $(wc -l < lines.txt) of the $cases regression cases measured"
	stopped=0 over=""
	while read -r _ _ label flavour _ en _ on _ ey _ oy _ pn py; do
		if [ "$pn" = 1 ]; then (within "$label $flavour -n" "$en" "$on") || over="$over$label -n ($on/$en) "
		else stopped=$((stopped + 1)); fi
		if [ "$py" = 1 ]; then (within "$label $flavour -y" "$ey" "$oy") || over="$over$label -y ($oy/$ey) "
		else stopped=$((stopped + 1)); fi
	done < lines.txt
	[ -z "$over" ] || fail "check prints more than 1.2x + $ALLOWANCE e2fsck's lines (ours/e2fsck's): $over"
	note "regress.txt: $(wc -l < lines.txt) damaged cases; $stopped runs where e2fsck did not finish"
else
	note "no root or no loop mounts: the differential tester's cases are not measured"
fi

# the worst ratios, for the log
awk '$(NF-1) >= 5 { printf "%.2f %s\n", $NF / $(NF-1), $0 }' counts.txt | sort -rn | head -5 |
	while read -r line; do note "worst: $line"; done
note "$(wc -l < counts.txt) comparisons"
exit 0
