#!/bin/sh
# Build the fuzz targets' seed corpora: small images (80-160 KiB as seeds)
# that carry every structure the checker walks, turned into sparse seeds
# (sparse_image.h). Small seeds decode to small images with few non-zero
# blocks: the targets run many times a second on them, and mutations land on
# metadata rather than on filler.
#
# What the seeds carry (the features list of the earlier, 140-430 KiB seeds,
# all kept): an htree directory (a one-level index: a second level would need
# some 124 leaf blocks at 1 KiB), inline data in a file and a directory,
# extended attributes in the inode and in a block, an extent tree of depth 2
# (1 KiB blocks; depth 1 at 2 KiB), a resize inode, flex_bg, metadata_csum
# with and without 64bit and a filesystem without it (uninit_bg), block sizes
# of 1 and 2 KiB; journals that need recovery (written by `e4recover write`)
# with each journal checksum version (none, v1 with async commit, v2, v3),
# one with the 2012 leak (v1 and v3), one torn, one with a flipped bit, one
# the kernel left with fast commits when loop mounts work.
#
# What keeps them small: one reserved descriptor block or two (mke2fs -E
# resize=: the default reserves 159 blocks of backup descriptors, 159 KiB of
# every seed), the smallest journal mke2fs makes (1024 blocks, zeros but for
# what the workload logs), journals cut after 40-80 block writes, the
# workload's files under two blocks each, 72 inodes in three groups of 1024
# blocks, the htree's 49 names hard links to one inode, and the deep file's
# data zeroed. (The earlier seeds' csum base had 64bit too, from mke2fs.conf;
# it is now the one without.)
# Usage: mkseeds.sh E4RECOVER IMG2SEED OUTDIR
set -eu
e4r=$1 img2seed=$2 out=$3
PATH=/sbin:/usr/sbin:$PATH
export E2FSCK_CONFIG=/dev/null MKE2FS_CONFIG=${MKE2FS_CONFIG:-/etc/mke2fs.conf}
work=$(mktemp -d)
trap 'umount "$work/mnt" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$out/logdump" "$out/replay" "$out/diagnose" "$out/check"

# seed NAME IMAGE BLOCKSIZE: one seed per target, with a few option bytes each.
seed() {
	for opt in 0 3 15; do "$img2seed" "$2" "$3" $opt "$out/logdump/$1-$opt"; done
	for opt in 0 4 129; do "$img2seed" "$2" "$3" $opt "$out/replay/$1-$opt"; done
	for opt in 0 1; do "$img2seed" "$2" "$3" $opt "$out/diagnose/$1-$opt"; done
	for opt in 0 1 2 4; do "$img2seed" "$2" "$3" $opt "$out/check/$1-$opt"; done
}

# The same UUID and hash seed every time, so that the seeds are the same on every machine.
UUID=6b2b3a4c-5d6e-4f70-8192-a3b4c5d6e7f8
HASH=0f1e2d3c-4b5a-4697-8887-96a5b4c3d2e1

# Contents for the files: an empty one, one for inline data, one of two
# blocks, an xattr value too big for the inode, and a sparse file with one
# byte in every other block (one extent per block: at 1 KiB blocks, 360
# extents are more than four leaves of 84 hold, so the tree gets depth 2; at
# 2 KiB, 100 of them make depth 1, and a deeper tree would take 677 blocks).
: > "$work/empty"
printf '%060d' 0 > "$work/small"
printf '%01500d' 0 > "$work/two-blocks"
printf '%0700d' 0 > "$work/big-value"

# base NAME BLOCKSIZE SIZE EXTENTS FEATURES: a small filesystem with one of each structure.
base() {
	img=$work/$1.base sparse=$work/sparse-$2-$4
	if [ ! -f "$sparse" ]; then
		i=0
		while [ $i -lt $(($4 * 2)) ]; do
			printf z | dd of="$sparse" bs="$2" seek=$i conv=notrunc 2>/dev/null
			i=$((i + 2))
		done
	fi
	# resize= past what one descriptor block more holds: one or two reserved blocks
	# (at or below one block's worth mke2fs falls back to its default)
	mke2fs -q -F -t ext4 -b "$2" -g 1024 -I 256 -N 64 -J size=$(($2 / 1024)) -U $UUID \
		-E hash_seed=$HASH,lazy_itable_init=0,root_owner=0:0,resize=$((($2 / 32 + 4) * 1024)) \
		-O "$5" "$img" "$3" >/dev/null
	name=a-name-long-enough-that-the-entries-fill-blocks
	{
		# 49 names of one inode in four blocks (debugfs's ln does not add blocks)
		echo "mkdir htree"
		echo "write $work/empty htree/$name-0"
		echo "expand_dir htree"; echo "expand_dir htree"; echo "expand_dir htree"
		i=1
		while [ $i -le 48 ]; do
			echo "ln htree/$name-0 htree/$name-$i"
			i=$((i + 1))
		done
		echo "mkdir inline-dir"
		echo "write $work/small inline"
		echo "ea_set inline user.small tiny"
		echo "write $work/two-blocks xattrs"
		echo "ea_set xattrs user.in-inode short"
		echo "write $sparse deep"
		# The data of the sparse file would make the seeds big; zeros cost nothing.
		i=0
		while [ $i -lt $(($4 * 2)) ]; do
			echo "zap_block -f deep -p 0 $i"
			i=$((i + 2))
		done
	} > "$work/populate"
	debugfs -w -f "$work/populate" "$img" >/dev/null 2>&1
	# Separately: in the same session as the writes above, debugfs left i_blocks without the xattr block.
	debugfs -w -R "ea_set -f $work/big-value xattrs user.in-block" "$img" >/dev/null 2>&1
	# e2fsck -D indexes the directories of more than one block (debugfs does not),
	# and counts the htree's links.
	e2fsck -fyD "$img" >/dev/null 2>&1 || [ $? -le 2 ]
	e2fsck -fn "$img" >/dev/null 2>&1 || { echo "mkseeds: base image $1 is not clean" >&2; exit 1; }
	want_deep=1
	[ "$4" -gt $((4 * ($2 - 12) / 12)) ] && want_deep=2
	debugfs -R "ex deep" "$img" 2>/dev/null | grep -q "^ *$want_deep/ *$want_deep " ||
		{ echo "mkseeds: base image $1: the extent tree of deep is not of depth $want_deep" >&2; exit 1; }
	debugfs -R "htree htree" "$img" 2>/dev/null | grep -q "Indirect levels" ||
		{ echo "mkseeds: base image $1: htree is not indexed" >&2; exit 1; }
}

# written NAME BASE BLOCKSIZE OPS SEED WRITE-OPTIONS...: the random workload of OPS
# operations from SEED, with every file's size (at creation and each append) cut to
# less than two blocks: file data is random, and checked by no target.
written() {
	name=$1 bs=$3
	img=$work/$name.img
	cp "$work/$2.base" "$img"
	"$e4r" write --ops="$4" --seed="$5" --dump-script="$work/$name.ops" "$img" >/dev/null
	cp "$work/$2.base" "$img"
	awk -v max=$((bs * 3 / 2)) '($1 == "create" || $1 == "append") && $3 > max { $3 = $3 % max } { print }' \
		"$work/$name.ops" > "$work/$name.small"
	shift 5
	"$e4r" write --script="$work/$name.small" "$@" "$img" >/dev/null
	seed "$name" "$img" "$bs"
}

FEAT=extent,huge_file,flex_bg,dir_nlink,extra_isize,inline_data,dir_index,filetype,sparse_super
base csum 1024 2560K 360 $FEAT,metadata_csum,^64bit
base csum64 1024 2560K 360 $FEAT,metadata_csum,64bit
base nocsum 1024 2560K 360 $FEAT,^metadata_csum,uninit_bg
base csum2k 2048 5M 100 $FEAT,metadata_csum,64bit

written v3-1k csum 1024 40 3 --csum=v3 --crash-after=80
written v2-1k csum64 1024 60 5 --csum=v2 --crash-after=60
written v3-2k csum2k 2048 30 5 --csum=v3 --crash-after=50
written v1-async nocsum 1024 40 7 --csum=v1 --async-commit --crash-after=60
written nocsum nocsum 1024 50 11 --csum=none --crash-after=70
written torn csum 1024 30 13 --csum=v3 --crash-after=40 --torn=512
written leak nocsum 1024 15 1 --csum=v1 --reproduce=ialloc-3.4
written leak3 csum 1024 15 9 --csum=v3 --reproduce=ialloc-3.4

# A flipped bit in a logged block: the journal's 6th block (a data block of
# the first transaction), byte 100.
img=$work/flip.img
cp "$work/v3-1k.img" "$img"
jblk=$(debugfs -R "bmap <8> 5" "$img" 2>/dev/null)
off=$((jblk * 1024 + 100))
byte=$(od -An -tu1 -j "$off" -N1 "$img" | tr -d ' ')
printf "$(printf '\\%03o' $((byte ^ 4)))" | dd of="$img" bs=1 seek="$off" conv=notrunc 2>/dev/null
seed flip "$img" 1024

# Fast commits the kernel wrote, when loop mounts work here.
if [ "$(id -u)" = 0 ] && [ -n "${E4R_SHUTDOWN:-}" ] && [ -x "$E4R_SHUTDOWN" ]; then
	img=$work/fc.img
	mke2fs -q -F -t ext4 -b 1024 -O metadata_csum,fast_commit "$img" 8M
	mkdir -p "$work/mnt"
	if mount -o loop,commit=60 "$img" "$work/mnt" 2>/dev/null; then
		sync
		for i in 1 2 3; do
			head -c $((i * 3000)) /dev/urandom > "$work/mnt/f$i"
			sync "$work/mnt/f$i" 2>/dev/null || sync
		done
		"$E4R_SHUTDOWN" "$work/mnt" >/dev/null 2>&1 || true
		umount "$work/mnt"
		seed fc "$img" 1024
	fi
fi
echo "seeds in $out: $(ls "$out/logdump" | wc -l) images"
