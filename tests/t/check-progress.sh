# check -C FD writes e2fsck's progress lines ("pass done total device"): on an image of
# 80 groups and some 180 directory blocks, the same passes, totals and number of
# lines per pass as e2fsck -C on the same image; each pass counts up from 0 to its
# total; pass 1 and 4 count the groups, pass 2 the directory blocks (counted with
# debugfs), pass 3 the directories, pass 5 the groups twice (block, then inode bitmaps).
. "$E4R_TESTS_SRCDIR/lib.sh"

# The tree: 150 directories of one entry, one directory of 400 long names (many blocks).
mkdir tree tree/big
for i in $(seq 1 150); do mkdir tree/d$i; : > tree/d$i/f; done
for i in $(seq 1 400); do : > tree/big/file_with_a_rather_long_name_$i; done
mkimg g.img 80M -b 1024 -g 1024 -N 2048 -d tree
run e2fsck -fn g.img
expect_rc 0 "oracle: the image is clean"

sb=$(dumpe2fs -h g.img 2>/dev/null)
field() { printf '%s\n' "$sb" | sed -n "s/^$1: *//p"; }
blocks=$(field "Block count"); first=$(field "First block"); bpg=$(field "Blocks per group")
groups=$(( (blocks - first + bpg - 1) / bpg ))
[ "$groups" -ge 64 ] || fail "the image has only $groups groups"

# The directory blocks, by debugfs: the data blocks of every directory.
{ echo "blocks /"; echo "blocks /lost+found"; echo "blocks /big"
  for i in $(seq 1 150); do echo "blocks /d$i"; done; } > dirs.cmd
dblocks=$(debugfs -f dirs.cmd g.img 2>/dev/null | grep -v '^debugfs' | wc -w)
ndirs=153
[ "$dblocks" -ge 150 ] || fail "debugfs counts only $dblocks directory blocks"

E2FSPROGS_SKIP_PROGRESS= e2fsck -fn -C 3 g.img 3> e2.txt >/dev/null 2>&1
[ -s e2.txt ] || fail "e2fsck -C 3 wrote no progress"
"$E4R" check -n -f -C 3 g.img 3> ours.txt > out.txt; RC=$?
expect_rc 0 "check -n -f -C 3"
[ -s ours.txt ] || fail "no progress written to fd 3"
grep -qvE '^[1-5] [0-9]+ [0-9]+ g\.img$' ours.txt &&
	fail "a line not of the form 'pass done total device': $(grep -vE '^[1-5] [0-9]+ [0-9]+ g\.img$' ours.txt | head -3)"
grep -q . out.txt && grep -qE '^[0-9]+ [0-9]+ [0-9]+ ' out.txt && fail "progress lines on stdout"

# Per pass: lines, first done, last done, total (the same on every line), ordered.
summary() {
	awk '{ if (!($1 in n)) { order = order " " $1; first[$1] = $2 }
	       if ($1 in last && $2 < last[$1]) bad = bad " " $1
	       if ($1 in tot && $3 != tot[$1]) bad = bad " " $1
	       n[$1]++; last[$1] = $2; tot[$1] = $3 }
	     END { print "order" order; if (bad) print "not monotonic:" bad
	           for (p = 1; p <= 5; p++) if (p in n) print p, n[p], first[p], last[p], tot[p] }' "$1"
}
summary e2.txt > e2.sum
summary ours.txt > ours.sum
note "e2fsck: $(tr '\n' ';' < e2.sum)"
note "ours:   $(tr '\n' ';' < ours.sum)"
grep -q "not monotonic" ours.sum && fail "progress runs backwards: $(cat ours.sum)"
cmp -s e2.sum ours.sum || fail "not e2fsck's progress: e2fsck $(tr '\n' ';' < e2.sum) ours $(tr '\n' ';' < ours.sum)"

# Against the image itself: every pass starts at 0 and reaches its total, and the totals
# are what e2fsck counts in (groups, directory blocks, directories).
while read -r p lines firstd lastd total; do
	case $p in order | not) continue ;; esac
	[ "$firstd" = 0 ] && [ "$lastd" = "$total" ] || fail "pass $p runs $firstd..$lastd of $total"
	case $p in
	1 | 4) [ "$total" = "$groups" ] && [ "$lines" -ge "$groups" ] ||
		fail "pass $p: $lines lines of $total, the image has $groups groups" ;;
	2) [ "$total" = "$dblocks" ] && [ "$lines" -ge "$dblocks" ] ||
		fail "pass 2: $lines lines of $total, debugfs counts $dblocks directory blocks" ;;
	3) [ "$total" = "$ndirs" ] || fail "pass 3: total $total, the image has $ndirs directories" ;;
	5) [ "$total" = $((groups * 2)) ] || fail "pass 5: total $total for $groups groups" ;;
	esac
done < ours.sum

# No progress asked, none written; -C with --json writes none either (stdout is the document).
"$E4R" check -n -f --json -C 3 g.img 3> json-progress.txt > out.json
[ -s json-progress.txt ] && fail "progress written with --json"
python3 -c 'import json; json.load(open("out.json"))' || fail "--json -C 3 is not one JSON document"
exit 0
