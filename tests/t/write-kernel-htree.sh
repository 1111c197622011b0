# write: a directory grown past one block becomes an htree as the kernel's does. For the
# same script on the same image, the kernel's directory (loop mount) and ours have the
# same index (debugfs htree: the root's hash version, every index entry, every leaf with
# its names in their order and hashes; checksums aside, since the kernel gives the
# directory a random i_generation that seeds them), the same blocks, list the same
# names in the same order through the kernel's readdir, and e2fsck -fn finds ours clean.
# Names are removed and added again after the split too (freed room is taken again).
. "$E4R_TESTS_SRCDIR/lib.sh"

need_kernel_mount

script() { # COUNT: /h grown to COUNT names, a third of them removed, new ones added
	echo "mkdir /h"
	i=0
	while [ $i -lt "$1" ]; do echo "create /h/entry-number-$i-of-the-directory 0"; i=$((i + 1)); done
	echo commit
	i=0
	while [ $i -lt "$1" ]; do echo "unlink /h/entry-number-$i-of-the-directory"; i=$((i + 3)); done
	i=0
	while [ $i -lt $(($1 / 2)) ]; do echo "create /h/again-$i 100"; i=$((i + 1)); done
	echo "mkdir /h/sub"
	echo commit
}

readdir_order() { # IMAGE OUT
	mount -o loop,ro "$1" mnt || return 1
	"$PY" -S -c 'import os, sys; print("\n".join(os.listdir(sys.argv[1] + "/h")))' mnt > "$2"; local rc=$?
	umount mnt
	return $rc
}

while read -r count bs opts; do
	case $count in ''|'#'*) continue ;; esac
	mkimg_opts ours.img 32M "$bs" "$opts"
	cp ours.img kernel.img
	script "$count" > s.txt
	what="$count names, $bs-byte blocks${opts:+, $opts}"
	run "$E4R" write --script=s.txt ours.img; expect_rc 0 "write ($what)"
	run e2fsck -fn ours.img; expect_rc 0 "e2fsck -fn ($what)"
	with_sync_lock -s "$PY" -S "$W" kernel kernel.img s.txt || fail "the kernel could not run the script ($what)"
	for img in ours kernel; do
		debugfs -R "htree /h" $img.img 2>/dev/null | grep -vi checksum > $img.htree
		debugfs -R "stat /h" $img.img 2>/dev/null | sed -n '/^EXTENTS:/,$p' > $img.blocks
		readdir_order $img.img $img.order || fail "mount $img.img"
	done
	grep -q '^Root node dump' kernel.htree || fail "the kernel did not make /h an htree ($what)"
	leaves=$(grep -c '^Entry #' kernel.htree)
	diff ours.htree kernel.htree > htree.diff || { head -20 htree.diff; fail "the htree differs from the kernel's ($what)"; }
	diff ours.blocks kernel.blocks || fail "the directory's blocks differ from the kernel's ($what)"
	diff ours.order kernel.order > /dev/null || fail "readdir lists the names in another order than the kernel's ($what)"
	note "$what: the same htree as the kernel's ($leaves leaves), blocks and readdir order"
done <<'CASES'
# names  block  mke2fs options (hash=ALG: the default directory hash)
300      1024
900      1024
400      4096   -O ^metadata_csum
300      1024   -O ^flex_bg hash=tea
300      4096   hash=legacy
# the first split counts the last entry moved out of the root with the room "." and ".."
# took (make_indexed_dir stretches it); here the halves differ without that
150      4096
CASES
exit 0
