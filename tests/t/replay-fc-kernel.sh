# Fast-commit replay against the kernel's own recovery, over seeded workloads
# (tests/fcwork.py: new files in new directories, appends, truncates, unlinks,
# hard links, renames, each fsynced, then a shutdown without log flush).
# For each seed: `e4recover replay` on one copy, a loop mount (the kernel
# replays full and fast commits) on another; both trees must hold the same
# paths, inode numbers, modes, sizes and contents, files the same link counts
# and blocks (tests/fslisting.py), and e2fsck -fn must find ours clean.
# Directories are compared without link counts and block numbers: the
# kernel's replay gives a new directory one link and its parent none more,
# and its block comes from the kernel's allocator (fast commits do not log
# directory blocks); e2fsck judges ours there.
. "$E4R_TESTS_SRCDIR/lib.sh"
. "$E4R_TESTS_SRCDIR/mkfc.sh"

SEEDS=${E4R_FC_SEEDS:-"4 12 19"}
LISTING="python3 $E4R_TESTS_SRCDIR/fslisting.py --loose-dirs"
compared=0 new_dirs=0

for seed in $SEEDS; do
	mkfc_seeded crash-$seed.img "$seed"
	"$E4R" logdump --json crash-$seed.img > ld-$seed.json 2>&1 || fail "seed $seed: logdump: $(tail -n 3 ld-$seed.json)"
	# Committed tags, and CREATs whose parent a CREAT of the same area made (a new directory).
	read -r ncommitted nnewdir <<-EOF
	$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
tags = [t for t in d["fast_commit"] if t.get("committed")]
made = set(t["ino"] for t in tags if t["tag"] == "create")
print(len(tags), sum(1 for t in tags if t["tag"] == "create" and t["parent"] in made))' ld-$seed.json)
	EOF
	note "seed $seed: $ncommitted committed tags, $nnewdir entries in new directories"

	cp crash-$seed.img kernel-$seed.img
	if ! mount -o loop kernel-$seed.img mnt 2>mount.err; then
		note "seed $seed: the kernel refuses the image ($(cat mount.err)): not compared"
		continue
	fi
	umount mnt || fail "umount"

	cp crash-$seed.img ours-$seed.img
	run "$E4R" replay ours-$seed.img
	expect_rc 0 "seed $seed: replay"
	expect_out "fast commits: $ncommitted committed tags(; $ncommitted applied, 0 refused)?\$" \
		"seed $seed: replay applies every committed tag logdump lists"
	run e2fsck -fn ours-$seed.img
	expect_rc 0 "seed $seed: e2fsck -fn finds ours clean"

	for img in kernel ours; do
		mount -o loop,ro,noload $img-$seed.img mnt 2>mount.err || fail "mount $img-$seed.img: $(cat mount.err)"
		$LISTING mnt $img-$seed.img > $img-$seed.list || { umount mnt; fail "listing $img-$seed.img"; }
		umount mnt || fail "umount"
	done
	run diff kernel-$seed.list ours-$seed.list
	expect_rc 0 "seed $seed: the tree after our replay is the kernel's"
	[ "$(wc -l < ours-$seed.list)" -ge 5 ] || fail "seed $seed: too few paths compared"
	[ "$ncommitted" -gt 0 ] && compared=$((compared + 1))
	new_dirs=$((new_dirs + nnewdir))
done

[ "$compared" -gt 0 ] || fail "no seed left committed fast commits the kernel replays: the test proves nothing"
[ "$new_dirs" -gt 0 ] || fail "no seed made a directory by fast commit: the directory path is untested"
note "$compared seeds with fast commits compared, $new_dirs entries in directories made by fast commit"
exit 0
