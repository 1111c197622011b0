# Clean filesystems of every flavour: check -n -f exits 0 like e2fsck -fn, reports
# the same file and block counts, and a filesystem marked clean is not fully checked without -f.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

# e2fsck's summary numbers: "N/M files ... B/C blocks".
summary() { printf '%s\n' "$OUT" | sed -n 's/^[^ ]*: \([0-9]*\/[0-9]*\) files.* \([0-9]*\/[0-9]*\) blocks$/\1 \2/p' | tail -1; }

clean_case() { # NAME mke2fs-options...
	local name=$1 ref; shift
	case "${1:-}" in
	ext2|ext3)	# mkimg makes ext4; these need mke2fs's own defaults for the type
		mke2fs -q -F -t "$1" -U "$FIXED_UUID" -E "hash_seed=$FIXED_HASH_SEED,lazy_itable_init=0" "$name.img" 16M >/dev/null 2>&1 ||
			fail "mke2fs -t $1" ;;
	*)	mkimg "$name.img" 16M "$@" ;;
	esac
	populate "$name.img"
	run e2fsck -fn "$name.img"
	expect_rc 0 "oracle: e2fsck -fn on $name"
	ref=$(summary)
	run "$E4R" check -n -f "$name.img"
	expect_rc 0 "check -n -f on clean $name"
	expect_no_out "WARNING" "no warning on clean $name"
	[ "$(summary)" = "$ref" ] || fail "$name: summary '$(summary)' differs from e2fsck's '$ref'"
}

clean_case ext4
clean_case ext4-1k -b 1024
clean_case ext4-nocsum -O ^metadata_csum
clean_case ext4-inline -O inline_data
clean_case ext4-bigalloc -O bigalloc -C 16384
clean_case ext4-nonflex -O ^flex_bg
clean_case ext4-nouninit -O ^metadata_csum,^uninit_bg
clean_case ext4-meta-bg -O meta_bg,^resize_inode
clean_case ext3 ext3
clean_case ext2 ext2

# Marked clean and not forced: the superblock is checked, not the rest (like e2fsck).
cp ext4.img unforced.img
debugfs -w -R "clri f1" unforced.img >/dev/null 2>&1 || fail "debugfs clri"
run e2fsck -n unforced.img
expect_rc 0 "oracle: e2fsck -n without -f on a filesystem marked clean"
run "$E4R" check -n unforced.img
expect_rc 0 "check -n without -f"
expect_out "unforced.img: clean, [0-9]+/[0-9]+ files" "reports clean"
run "$E4R" check -n -f unforced.img
expect_rc 4 "check -n -f sees the damage"

# A filesystem not cleanly unmounted is checked without -f.
cp ext4.img dirty.img
debugfs -w -R "ssv state 0" dirty.img >/dev/null 2>&1 || fail "debugfs ssv state"
run "$E4R" check -n dirty.img
expect_rc 0 "check -n on a clean but unclean-unmounted filesystem"
expect_out "was not cleanly unmounted, check forced" "says why it checks"

# The kernel as the oracle of a clean filesystem: files, hard links, a sparse file,
# long and short symlinks, a fifo, a device, many entries (htree), deleted files.
mkimg kernel.img 64M
mkdir mnt
mount -o loop kernel.img mnt 2>/dev/null || skip "loop mount refused (not root?): kernel part skipped"
(
	cd mnt && mkdir -p a/b/c big && seq 1 100000 > a/file && ln a/file a/b/hard &&
	ln -s file a/short && ln -s "$(printf 'x%.0s' $(seq 1 200))" a/long &&
	truncate -s 50M a/sparse && echo tail >> a/sparse && mkfifo a/fifo && mknod a/dev c 1 3 &&
	for i in $(seq 1 600); do echo $i > big/entry-with-a-long-name-$i; done &&
	rm -f big/entry-with-a-long-name-1?? && dd if=/dev/zero of=a/zeros bs=64k count=40 2>/dev/null
) || { umount mnt; fail "populating through the kernel"; }
umount mnt || fail "umount"
run e2fsck -fn kernel.img
expect_rc 0 "oracle: e2fsck -fn on the kernel-written image"
ref=$(summary)
run "$E4R" check -n -f kernel.img
expect_rc 0 "check -n -f on the kernel-written image"
[ "$(summary)" = "$ref" ] || fail "kernel.img: summary '$(summary)' differs from e2fsck's '$ref'"
exit 0
