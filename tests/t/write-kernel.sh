# write: random workloads on fresh images (1k/4k blocks, with and without metadata_csum,
# flex_bg, 64bit, a 1 MiB journal that wraps, block-mapped files without extents) leave
# images e2fsck -fn finds clean, and the kernel, running the same operations on a copy of the same image, ends with the same tree:
# names, types, sizes, contents, link counts and, for the scripted case, inode numbers.
. "$E4R_TESTS_SRCDIR/lib.sh"

need_kernel_mount
# The kernel mounts with commit=3600: only the script's commits (writer.py: the dirty files
# written back in order by sync_file_range, then syncfs) end its transactions, as they end
# the writer's; the 5-second timer would split them wherever the machine's speed puts it.
mount_tree() { # IMAGE OUT [--no-ino]
	mount -o loop,ro "$1" mnt || return 1
	"$PY" -S "$W" tree mnt ${3:-} > "$2" && "$PY" -S "$W" blocks mnt > "$2.blocks"; local rc=$?
	umount mnt
	return $rc
}

# One script with every operation; inode numbers must be the kernel's.
cat > all.txt <<'SCRIPT'
mkdir /d1
create /d1/f1 5000
create /f2 70000
commit
symlink /short /d1/s1
symlink /a/very/long/target/that/does/not/fit/in/the/inode/itself/0123456789 /d1/s2
link /f2 /d1/h2
append /f2 3000
mkdir /d3
commit
rename /d1/f1 /f1moved
truncate /f2 1000
unlink /d1/h2
mkdir /d2
rename /d1 /d2/d1
rmdir /d3
create /d2/big 300000
truncate /d2/big 5000
append /d2/big 7000
commit
SCRIPT
for bs in 1024 4096; do
	mkimg s$bs.img 32M -b $bs
	cp s$bs.img k$bs.img
	run "$E4R" write --script=all.txt s$bs.img; expect_rc 0 "write the script on $bs-byte blocks"
	run e2fsck -fn s$bs.img; expect_rc 0 "e2fsck -fn after the script ($bs-byte blocks)"
	with_sync_lock -s "$PY" -S "$W" kernel k$bs.img all.txt loop,commit=3600 || fail "the kernel could not run the script"
	mount_tree s$bs.img ours.tree && mount_tree k$bs.img kernel.tree || fail "mount"
	diff ours.tree kernel.tree || fail "tree (with inode numbers) differs from the kernel's ($bs-byte blocks)"
done

# Random workloads: contents always agree; inode and block numbers are counted.
n=0 same=0 ino_total=0 ino_same=0 blk_total=0 blk_same=0
while read -r seed bs opts; do
	mkimg r.img 64M -b $bs $opts
	cp r.img k.img
	run "$E4R" write --ops=150 --seed=$seed --dump-script=r.txt r.img
	expect_rc 0 "random workload seed $seed ($bs $opts)"
	run e2fsck -fn r.img; expect_rc 0 "e2fsck -fn after seed $seed ($bs $opts)"
	with_sync_lock -s "$PY" -S "$W" kernel k.img r.txt loop,commit=3600 || fail "the kernel could not run seed $seed"
	mount_tree r.img ours.tree --no-ino && mount_tree k.img kernel.tree --no-ino || fail "mount"
	diff ours.tree kernel.tree > /dev/null || { diff ours.tree kernel.tree | head; fail "seed $seed ($bs $opts): the kernel sees other contents"; }
	mount_tree r.img ours.tree && mount_tree k.img kernel.tree || fail "mount"
	ino_total=$((ino_total + $(wc -l < kernel.tree)))
	ino_same=$((ino_same + $(paste -d'\n' ours.tree kernel.tree | uniq -d | wc -l)))
	set -- $("$PY" -S "$W" agree ours.tree.blocks kernel.tree.blocks 2>/dev/null)
	blk_same=$((blk_same + $1)) blk_total=$((blk_total + $2))
	n=$((n + 1))
done <<'CONFIGS'
1 4096
2 1024
3 1024 -O ^metadata_csum
4 4096 -O ^flex_bg,^metadata_csum,^64bit
5 1024 -J size=1
6 4096 -O ^flex_bg
7 1024 -O ^extent,^flex_bg,^metadata_csum,^64bit
CONFIGS
note "random workloads: $n of $n agree with the kernel on contents; inode numbers agree for $ino_same of $ino_total entries, block numbers for $blk_same of $blk_total blocks"
exit 0
