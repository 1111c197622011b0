# write --crash-after=N at every N of a small script: e2fsck replays the journal, after which
# e2fsck -fn is clean and the tree is exactly the kernel's tree after the first k commits of the
# script, with k never decreasing as N grows and k = all commits when nothing was cut.
# (The script truncates only to block boundaries: a truncate to mid-block zeroes the tail of the
# block in place before its commit, as the kernel's ordered data does, so a cut there may show
# zeroes inside the old size.)
# This one: v3 (metadata_csum) on 1k blocks; write-crash-async.sh runs v1 with async commit
# and torn writes on 4k blocks.
. "$E4R_TESTS_SRCDIR/lib.sh"

need_kernel_mount

cat > s.txt <<'SCRIPT'
mkdir /a
create /a/f 3000
create /g 20000
commit
symlink /a/f /a/l
link /g /a/g2
append /g 5000
commit
unlink /g
rename /a /b
mkdir /b/c
truncate /b/g2 8192
commit
rmdir /b/c
unlink /b/l
create /h 1500
commit
SCRIPT
COMMITS=$(grep -c '^commit' s.txt)

# The kernel's view of its own images; e2fsprogs' view (debugfs rdump) of the cut ones,
# which is much faster than a mount per cut (rdump cannot show inode numbers or link counts:
# e2fsck -fn vouches for those).
FLAGS="--no-ino --no-links"
tree_of() { # IMAGE -> stdout
	mount -o loop,ro "$1" mnt || fail "mount $1"
	"$PY" -S "$W" tree mnt $FLAGS; umount mnt
}
rdump_tree() { # IMAGE -> stdout
	rm -rf dump; mkdir dump
	debugfs -R "rdump / dump" "$1" > /dev/null 2>&1 || fail "debugfs rdump $1"
	"$PY" -S "$W" tree dump $FLAGS
}

while IFS='|' read -r name bs opts wopts; do
	mkimg base.img 8M -b $bs $opts
	# The kernel's state after the first k commits, k = 0..COMMITS.
	for k in $(seq 0 $COMMITS); do
		awk -v k=$k 'k == 0 { exit } { print } /^commit/ { if (++n == k) exit }' s.txt > p$k.txt
		cp base.img k.img
		with_sync_lock -s "$PY" -S "$W" kernel k.img p$k.txt || fail "kernel run of the first $k commits"
		tree_of k.img > k$k.tree
	done
	cp base.img full.img
	run "$E4R" write --script=s.txt $wopts full.img; expect_rc 0 "$name: uncut run"
	total=$(printf '%s\n' "$OUT" | sed -n 's/.* \([0-9]*\) block writes$/\1/p')
	[ -n "$total" ] && [ "$total" -gt 10 ] || fail "$name: no block-write count"
	last=0
	for n in $(seq 1 $total); do
		cp base.img c.img
		"$E4R" write --script=s.txt $wopts --crash-after=$n c.img > w.log 2>&1 || fail "$name: write --crash-after=$n: $(cat w.log)"
		e2fsck -E journal_only -y c.img > r.log 2>&1
		e2fsck -fn c.img > f.log 2>&1 || { cat r.log f.log; fail "$name: e2fsck -fn after a cut at write $n"; }
		rdump_tree c.img > c.tree
		k=""
		for j in $(seq $last $COMMITS); do
			cmp -s c.tree k$j.tree && { k=$j; break; }
		done
		[ -n "$k" ] || { diff c.tree k$last.tree; fail "$name: cut at write $n: the tree is no commit boundary at or after $last"; }
		last=$k
	done
	[ "$last" = "$COMMITS" ] || fail "$name: a cut at the last write lost commits ($last of $COMMITS)"
	note "$name: $total cut points, every one replays to a commit boundary"
done <<CONFIGS
${E4R_CRASH_CONFIGS:-v3|1024|-O metadata_csum|}
CONFIGS
exit 0
