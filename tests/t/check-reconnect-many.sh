# Many disconnected inodes at once: a directory of 3,000 files and 20 subdirectories
# loses its inode (debugfs clri), so check -f -y links every one into /lost+found, which
# must grow by many blocks (the insertion keeps its place in lost+found instead of
# rescanning it per entry). Oracles: e2fsck -fn finds the result clean, and debugfs lists
# in /lost+found exactly the inodes the directory held, each as "#INO".
# On 1 KiB blocks with metadata_csum (checksum tails) and 4 KiB blocks without.
. "$E4R_TESTS_SRCDIR/lib.sh"

mkdir tree tree/d
for i in $(seq 1 3000); do printf x > "tree/d/f$i"; done	# not empty: unattached empty files are cleared
for i in $(seq 1 20); do mkdir "tree/d/s$i"; printf y > "tree/d/s$i/inner"; done

# inodes IMAGE DIR: the inode numbers of DIR's entries (not . and ..), sorted
inodes() {
	debugfs -R "ls -l $2" "$1" 2>/dev/null |
		awk '$NF != "." && $NF != ".." && $1 ~ /^[0-9]+$/ && $1 > 0 { print $1 }' | sort -n
}

for v in "1024 -O metadata_csum" "4096 -O ^metadata_csum"; do
	set -- $v
	img=img$1
	mkimg $img 64M -b "$1" "$2" "$3" -N 8192 -d tree
	inodes $img /d > before.$1
	[ "$(wc -l < before.$1)" = 3020 ] || fail "$1: the image holds $(wc -l < before.$1) entries in /d, not 3020"
	debugfs -w -R "clri /d" $img >/dev/null 2>&1 || fail "$1: debugfs clri"

	run "$E4R" check -f -y $img
	expect_rc 1 "$1: check -f -y repairs (and reconnects)"
	run e2fsck -fn $img
	[ "$RC" = 0 ] || fail "$1: e2fsck -fn after check -f -y: exit $RC: $OUT"
	inodes $img /lost+found > after.$1
	cmp -s before.$1 after.$1 ||
		fail "$1: /lost+found holds $(wc -l < after.$1) inodes, not the 3020 of /d: $(diff before.$1 after.$1 | head -5)"
	# each entry is named after its inode
	debugfs -R "ls -l /lost+found" $img 2>/dev/null |
		awk '$NF != "." && $NF != ".." && $1 ~ /^[0-9]+$/ && $1 > 0 && $NF != "#" $1 { bad++ }
		     END { exit bad > 0 }' || fail "$1: an entry in /lost+found is not named #INO"
	# the subdirectories' '..' names lost+found, and they kept their own entries
	sub=$(debugfs -R "ls -l /lost+found" $img 2>/dev/null | awk '$2 ~ /^4/ && $NF ~ /^#/ { print $NF; exit }')
	[ -n "$sub" ] || fail "$1: no directory in /lost+found"
	run debugfs -R "ls /lost+found/$sub" $img
	expect_out "inner" "$1: a reconnected subdirectory still holds its file"
done

# More unattached inodes than the checker lists in one round (100,000): 25 directories of
# 4,020 files lose their inodes. Their files are found in one round and reconnected in the
# next (after the directories' blocks are released), so the limit must hold per round, or
# the round that reconnects has no room left and repairs nothing. Same oracles.
mkdir many
for d in $(seq 1 25); do
	mkdir "many/d$d"
	python3 -c 'import sys
for i in range(4020):
    open("%s/f%d" % (sys.argv[1], i), "w").write("x")' "many/d$d"
done
mkimg many.img 512M -b 4096 -O ^metadata_csum -N 110000 -d many
for d in $(seq 1 25); do inodes many.img /d$d; done | sort -n > before.many
[ "$(wc -l < before.many)" = 100500 ] || fail "many: the image holds $(wc -l < before.many) files, not 100500"
for d in $(seq 1 25); do echo "clri /d$d"; done | debugfs -w -f - many.img >/dev/null 2>&1 || fail "many: debugfs clri"
run "$E4R" check -f -y many.img
expect_rc 1 "many: check -f -y repairs (and reconnects)"
run e2fsck -fn many.img
[ "$RC" = 0 ] || fail "many: e2fsck -fn after check -f -y: exit $RC: $(printf '%s\n' "$OUT" | head -5)"
inodes many.img /lost+found > after.many
cmp -s before.many after.many ||
	fail "many: /lost+found holds $(wc -l < after.many) inodes, not the 100500 of the 25 directories"
