#!/bin/sh
# Build the fuzz targets' seed corpora: small images (a few dozen to a few
# hundred KiB as seeds) that carry every structure the checker walks (an
# htree directory, inline data in a file and a directory, extended
# attributes in the inode and in a block, an extent tree of depth 2), whose
# journals need recovery (written by `e4recover write`, with each journal
# checksum version, one with the 2012 leak, one torn, one with a flipped bit,
# one the kernel left with fast commits when loop mounts work), turned into
# sparse seeds (sparse_image.h). Small seeds decode to small images: the
# targets run many times a second on them.
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
# blocks, an xattr value too big for the inode, and (in base) a sparse file
# with one byte in every other block (one extent per block: 360 extents are
# more than four leaves hold at 1 KiB blocks, so the tree gets depth 2).
: > "$work/empty"
printf '%060d' 0 > "$work/small"
printf '%01500d' 0 > "$work/two-blocks"
printf '%0700d' 0 > "$work/big-value"

# base NAME BLOCKSIZE SIZE FEATURES: a small filesystem with one of each structure.
base() {
	img=$work/$1.base
	if [ ! -f "$work/sparse-$2" ]; then
		i=0
		while [ $i -lt 720 ]; do
			printf z | dd of="$work/sparse-$2" bs="$2" seek=$i conv=notrunc 2>/dev/null
			i=$((i + 2))
		done
	fi
	mke2fs -q -F -t ext4 -b "$2" -I 256 -N 96 -J size=$(($2 / 1024)) -U $UUID \
		-E hash_seed=$HASH,lazy_itable_init=0,root_owner=0:0 -O "$4" "$img" "$3" >/dev/null
	{
		echo "mkdir htree"
		i=1
		while [ $i -le 48 ]; do
			echo "write $work/empty htree/a-name-long-enough-that-the-entries-fill-blocks-$i"
			i=$((i + 1))
		done
		echo "mkdir inline-dir"
		echo "write $work/small inline"
		echo "ea_set inline user.small tiny"
		echo "write $work/two-blocks xattrs"
		echo "ea_set xattrs user.in-inode short"
		echo "write $work/sparse-$2 deep"
		# The data of the sparse file would make the seeds big; zeros cost nothing.
		i=0
		while [ $i -lt 720 ]; do
			echo "zap_block -f deep -p 0 $i"
			i=$((i + 2))
		done
	} > "$work/populate"
	debugfs -w -f "$work/populate" "$img" >/dev/null 2>&1
	# Separately: in the same session as the writes above, debugfs left i_blocks without the xattr block.
	debugfs -w -R "ea_set -f $work/big-value xattrs user.in-block" "$img" >/dev/null 2>&1
	# e2fsck -D indexes the directories of more than one block (debugfs does not).
	e2fsck -fyD "$img" >/dev/null 2>&1 || [ $? -le 2 ]
	e2fsck -fn "$img" >/dev/null 2>&1 || { echo "mkseeds: base image $1 is not clean" >&2; exit 1; }
}

# written NAME BASE BLOCKSIZE WRITE-OPTIONS...
written() {
	name=$1 bs=$3
	img=$work/$name.img
	cp "$work/$2.base" "$img"
	shift 3
	"$e4r" write "$@" "$img" >/dev/null
	seed "$name" "$img" "$bs"
}

FEAT=extent,huge_file,flex_bg,dir_nlink,extra_isize,inline_data,dir_index,filetype,sparse_super
base csum 1024 3M $FEAT,metadata_csum
base csum64 1024 3M $FEAT,metadata_csum,64bit
base nocsum 1024 3M $FEAT,^metadata_csum,uninit_bg
base csum2k 2048 6M $FEAT,metadata_csum,64bit

written v3-1k csum 1024 --ops=40 --seed=3 --csum=v3 --crash-after=200
written v2-1k csum64 1024 --ops=60 --seed=5 --csum=v2 --crash-after=150
written v3-2k csum2k 2048 --ops=30 --seed=5 --csum=v3 --crash-after=100
written v1-async nocsum 1024 --ops=40 --seed=7 --csum=v1 --async-commit --crash-after=150
written nocsum nocsum 1024 --ops=50 --seed=11 --csum=none --crash-after=180
written torn csum 1024 --ops=30 --seed=13 --csum=v3 --crash-after=90 --torn=512
written leak nocsum 1024 --ops=40 --seed=1 --csum=v1 --reproduce=ialloc-3.4
written leak3 csum 1024 --ops=30 --seed=9 --csum=v3 --reproduce=ialloc-3.4

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
