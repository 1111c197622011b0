# Progress bars on a terminal (script(1) gives one; what it records is replayed through a
# small terminal model: a carriage return goes back to the line's start, characters
# overwrite). check -C 0 draws a bar that is redrawn as the passes go and cleared before
# the report: no header, finding or question shares a line with a bar, and the headers
# come in order. A long replay or logdump draws one on stderr (E4RECOVER_PROGRESS_DELAY_MS=0
# makes this small journal "long"); none with --json or when not on a terminal.
. "$E4R_TESTS_SRCDIR/lib.sh"

command -v script >/dev/null || skip "script(1) (util-linux) not installed: no terminal to test on"

# screen RAW: the terminal's lines after RAW, then "draws N" (bars drawn) and
# "percents a b c ..." (the percentages they showed, in order).
screen() {
	python3 - "$1" <<'PY'
import re, sys
raw = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
lines, cur, col = [], [], 0
for ch in raw:
    if ch == "\r":
        col = 0
    elif ch == "\n":
        lines.append("".join(cur).rstrip()); cur, col = [], 0
    else:
        if col < len(cur):
            cur[col] = ch
        else:
            cur.append(ch)
        col += 1
if "".join(cur).strip():
    lines.append("".join(cur).rstrip())
for l in lines:
    print(l)
bars = re.findall(r"\r[^\r\n|]+ \|[= ]{40}\| +(\d+)%", raw)
print("draws", len(bars))
print("percents", " ".join(bars))
PY
}
is_bar='\|[= ]{40}\| +[0-9]+%'

# An image of 80 groups: pass 1 alone takes 80 steps.
mkdir tree
for i in $(seq 1 40); do mkdir tree/d$i; : > tree/d$i/f; done
mkimg g.img 80M -b 1024 -g 1024 -N 2048 -d tree

script -qec "$E4R check -n -f -C 0 g.img" /dev/null > bar.raw 2>&1
screen bar.raw > bar.screen
draws=$(sed -n 's/^draws //p' bar.screen)
[ "$draws" -ge 20 ] || fail "the bar was drawn $draws times: $(cat bar.screen)"
# it moves: each pass's percentages rise, and more than a few distinct ones are shown
distinct=$(sed -n 's/^percents //p' bar.screen | tr ' ' '\n' | sort -un | wc -l)
[ "$distinct" -ge 10 ] || fail "the bar showed only $distinct percentages"
grep -qE "$is_bar" bar.screen && fail "a bar is left on the screen: $(cat bar.screen)"
grep -q '^Pass 1: Checking inodes, blocks, and sizes$' bar.screen || fail "no pass 1 header alone on its line: $(cat bar.screen)"
# the headers in order, each on a line of its own, then the summary
grep -E '^Pass [1-5]:|files,' bar.screen | cut -c1-6 | tr '\n' ' ' > order.txt
[ "$(cat order.txt)" = "Pass 1 Pass 2 Pass 3 Pass 4 Pass 5 g.img: " ] || fail "headers out of order: $(cat order.txt)"
# the stream itself: the bar line is blanked before the first header is printed
python3 - bar.raw <<'PY' || fail "a header follows a bar without the bar being cleared"
import sys
raw = open(sys.argv[1], "rb").read()
i = raw.index(b"Pass 1: Checking")
before = raw[:i]
assert before.endswith(b"\r"), before[-80:]
assert before[:-1].split(b"\r")[-1].strip() == b"", before[-80:]
PY
# not on a terminal: no bar at all
"$E4R" check -n -f -C 0 g.img > notty.out
grep -q "$(printf '\r')" notty.out && fail "a bar drawn when stdout is not a terminal"

# On a terminal with questions (no -n): the headers of the check come first, then the
# question (after the passes, before the repairs); no question shares a line with a bar.
cp g.img bad.img
debugfs -w -R "sif /d1/f links_count 5" bad.img >/dev/null 2>&1 || fail "debugfs sif"
printf 'n\n' | script -qec "$E4R check -f -C 0 bad.img" /dev/null > ask.raw 2>&1
screen ask.raw > ask.screen
grep -q "ref count is 5, should be 1" ask.screen || fail "the finding is not shown: $(cat ask.screen)"
grep -E "\(yes/no/all\)\?" ask.screen | grep -qE "$is_bar|%" && fail "a question shares a line with a bar"
grep -E "\(yes/no/all\)\?|ref count" ask.screen | grep -qvE '^(Fix \(yes/no/all\)\?.*|inode [0-9]+ ref count is 5, should be 1)$' &&
	fail "a question or finding is not alone on its line: $(cat ask.screen)"
# in order: the check's headers, then its finding and question (asked after its passes)
lines=$(grep -nE '^Pass [1-5]:|ref count is 5|^Fix \(yes/no/all\)' ask.screen | sed 's/^[0-9]*://' | cut -c1-6 | tr '\n' ' ')
[ "$lines" = "Pass 1 Pass 2 Pass 3 Pass 4 Pass 5 inode  Fix (y " ] || fail "headers and question out of order: $lines ($(cat ask.screen))"
grep -qE "$is_bar" ask.screen && fail "a bar is left on the screen: $(cat ask.screen)"

# Replay and logdump: a journal of 150 transactions to recover.
mkimg j.img 8M -b 1024
head -c 1024 /dev/zero | tr '\0' 'e' > blk
for i in $(seq 1 150); do printf 'jo\njw -b %d blk\njc\n' $((3000 + i)); done > jw.cmd
debugfs -w -f jw.cmd j.img >/dev/null 2>&1 || fail "debugfs journal writes"
dumpe2fs -h j.img 2>/dev/null | grep -q needs_recovery || fail "the journal needs no recovery"
export E4RECOVER_PROGRESS_DELAY_MS=0
script -qec "$E4R logdump j.img" /dev/null > ld.raw 2>&1
screen ld.raw > ld.screen
[ "$(sed -n 's/^draws //p' ld.screen)" -ge 5 ] || fail "logdump drew no moving bar: $(head -c 300 ld.raw | od -c | head)"
grep -qE "$is_bar" ld.screen && fail "logdump left a bar: $(grep -E "$is_bar" ld.screen)"
grep -q '^Journal superblock (v2):$' ld.screen || fail "logdump's first line is not alone"
script -qec "$E4R logdump --json j.img" /dev/null > ldj.raw 2>&1
[ "$(sed -n 's/^draws //p' "$(screen ldj.raw > ldj.screen; echo ldj.screen)")" = 0 ] || fail "a bar with --json"
"$E4R" logdump j.img > ld.out 2> ld.err
grep -q "$(printf '\r')" ld.out ld.err && fail "a bar drawn off a terminal"
cp j.img r.img
script -qec "$E4R replay r.img" /dev/null > rp.raw 2>&1
screen rp.raw > rp.screen
grep -q "Writing blocks home" rp.raw || fail "replay drew no bar for its writes"
grep -qE "$is_bar" rp.screen && fail "replay left a bar: $(cat rp.screen)"
grep -qE '^wrote [0-9]+ blocks; journal emptied' rp.screen || fail "replay's report is not alone on its line: $(cat rp.screen)"
run e2fsck -fn r.img
expect_rc 0 "oracle: e2fsck finds the replayed image clean"
exit 0
