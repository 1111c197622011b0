# write: for the same script on the same fresh image, every file and directory gets the
# inode number the kernel gives it through a loop mount (Orlov for directories, top-level
# ones spread by the hash of their name, find_group_other for files, flex_bg, freed inodes
# taken again), on scripts x image layouts; the test fails on any mismatch. The top-level
# spread uses half-MD4 whatever the default directory hash (tea, legacy here).
# Block numbers are compared too, and their agreement rate is reported: a measure, not a
# requirement, since the kernel's own numbers are not stable on a busy machine (now and
# then it leaves its locality group preallocation for a new one 512 blocks on; the
# directories it turns into htrees have more blocks than our linear ones).
. "$E4R_TESTS_SRCDIR/lib.sh"

need_kernel_mount

listing() { # IMAGE TREE BLOCKS
	mount -o loop,ro "$1" mnt || return 1
	"$PY" -S "$W" tree mnt > "$2" && "$PY" -S "$W" blocks mnt > "$3"; local rc=$?
	umount mnt
	return $rc
}

n=0 bad=0 blk_same=0 blk_total=0
while read -r name size bs opts; do
	case $name in ''|'#'*) continue ;; esac
	"$PY" -S "$W" script "$name" > s.txt || fail "no script $name"
	hash= mkfs=
	for o in $opts; do
		case $o in hash=*) hash=${o#hash=} ;; *) mkfs="$mkfs $o" ;; esac
	done
	mkimg ours.img "$size" -b "$bs" $mkfs
	# hash=ALG: the default directory hash (mke2fs has no option for it)
	[ -z "$hash" ] || tune2fs -E hash_alg=$hash ours.img > /dev/null 2>&1 || fail "tune2fs -E hash_alg=$hash"
	cp ours.img kernel.img
	run "$E4R" write --script=s.txt ours.img; expect_rc 0 "$name ($size, $bs, $opts): write"
	run e2fsck -fn ours.img; expect_rc 0 "$name ($size, $bs, $opts): e2fsck -fn"
	with_sync_lock -s "$PY" -S "$W" kernel kernel.img s.txt || fail "$name: the kernel could not run the script"
	listing ours.img ours.tree ours.blocks && listing kernel.img kernel.tree kernel.blocks || fail "mount"
	set -- $("$PY" -S "$W" agree ours.blocks kernel.blocks 2>blocks.diff)
	blk_same=$((blk_same + $1)) blk_total=$((blk_total + $2))
	n=$((n + 1))
	if ! diff ours.tree kernel.tree > tree.diff; then
		bad=$((bad + 1))
		note "$name ($size, $bs-byte blocks, $opts): inode numbers differ from the kernel's:"
		head -20 tree.diff
	fi
	note "$name ($size, $bs, $opts): blocks agree $1 of $2"
	cat blocks.diff
done <<'CASES'
# script           image  block  mke2fs options
nested             32M    1024
nested             64M    4096   -O ^flex_bg
topdirs            64M    1024   -g 1024
topdirs            64M    1024   -g 1024 -O ^flex_bg
topdirs            256M   4096   -g 2048 -O ^metadata_csum
topdirs            64M    1024   -G 4
topdirs            64M    1024   -g 1024 hash=tea
topdirs-then-sub   64M    1024   -g 1024
topdirs-then-sub   128M   4096   -g 1024 -O ^flex_bg,^metadata_csum
topdirs-then-sub   32M    1024
topdirs-then-sub   128M   4096   -g 1024 hash=legacy
many-files         32M    1024   -N 1024
many-files         64M    4096   -g 4096 -N 1024 -O ^flex_bg
many-files         64M    1024   -g 2048 -N 1024 -O ^metadata_csum
many-files-dirs    64M    1024   -g 1024 -N 2048
many-files-dirs    64M    1024   -g 1024 -N 2048 -O ^flex_bg
many-files-dirs    128M   4096   -g 1024 -N 2048 -O ^metadata_csum
unlink-recreate    32M    1024
unlink-recreate    32M    4096   -O ^flex_bg,^metadata_csum
rmdir-recreate     64M    1024   -g 1024
rmdir-recreate     64M    4096   -g 2048 -O ^flex_bg
mixed              32M    1024   -O ^metadata_csum
mixed              64M    4096   -g 2048
big-files          64M    1024   -g 2048
big-files          64M    4096   -g 1024 -O ^flex_bg
CASES
note "inode numbers: $((n - bad)) of $n scripts agree with the kernel on every entry"
note "block numbers: $blk_same of $blk_total blocks agree with the kernel"
[ "$bad" -eq 0 ] || fail "$bad of $n scripts get other inode numbers than the kernel's"
exit 0
