# The 2012 bug end to end: write --reproduce=ialloc-3.4 leaks inode bitmap bits into committing
# transactions (e2fsck then aborts replay and loses the files). replay --policy=auto proves each
# leak benign (a later committed transaction sets the same bits) and recovers every file: the
# tree equals e2fsck's replay of the same operations done in the correct order (the oracle),
# and e2fsck -fn finds the result clean.
. "$E4R_TESTS_SRCDIR/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root to loop-mount the results"
mkdir -p mnt
tree() { # IMAGE OUT: every path with its type and size
	mount -o loop,ro "$1" mnt 2>mount.err || fail "mount $1: $(cat mount.err)"
	(cd mnt && find . -path ./lost+found -prune -o -printf '%p %y %s\n' | sort) > "$2"
	umount mnt
}
for seed in 1 2 3; do
	bs=$((seed % 2 ? 1024 : 4096))
	mkimg bug.img 16M -b $bs -O ^metadata_csum
	cp bug.img ok.img
	run "$E4R" write --ops=40 --seed=$seed --csum=v1 --reproduce=ialloc-3.4 --dump-script=ops.txt bug.img
	expect_out "inode bitmap bits leaked" "seed $seed: the bug was reproduced"
	echo crash >> ops.txt
	"$E4R" write --script=ops.txt --csum=v1 ok.img >/dev/null 2>&1 || fail "seed $seed: default order"
	e2fsck -E journal_only -y ok.img >/dev/null 2>&1
	tree ok.img want.txt

	cp bug.img e2.img
	e2fsck -E journal_only -y e2.img 2>&1 | grep -q "was corrupt, replay was aborted" || fail "seed $seed: e2fsck does not abort"
	run "$E4R" diagnose bug.img
	expect_out "unjournaled modification" "seed $seed: diagnose names the leak"
	expect_out "bit [0-9]+ \(inode [0-9]+\) is set here and by transaction" "seed $seed: with its inodes"

	run "$E4R" replay --policy=auto bug.img
	expect_no_out "refused" "seed $seed: auto refuses nothing"
	run e2fsck -fn bug.img
	expect_rc 0 "seed $seed: e2fsck -fn is clean after auto"
	tree bug.img got.txt
	run diff want.txt got.txt
	expect_rc 0 "seed $seed: auto recovered the tree of the correct run"
	tree e2.img e2.txt
	cmp -s want.txt e2.txt && fail "seed $seed: e2fsck lost nothing, the test proves nothing"
	note "seed $seed: $(wc -l < want.txt) paths recovered; e2fsck's replay keeps $(wc -l < e2.txt)"
done
exit 0
