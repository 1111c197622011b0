#!/bin/sh
# Build the fuzz targets' seed corpora: small images whose journals need recovery
# (written by `e4recover write`, one with the 2012 leak, one with a flipped bit,
# one the kernel left with fast commits when loop mounts work), turned into
# sparse seeds (sparse_image.h).
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

# written NAME SIZE BLOCKSIZE MKE2FS-OPTIONS WRITE-OPTIONS...
written() {
	name=$1 size=$2 bs=$3 feat=$4
	shift 4
	img=$work/$name.img
	rm -f "$img"
	mke2fs -q -F -t ext4 -b "$bs" -O "$feat" "$img" "$size" >/dev/null
	"$e4r" write "$@" "$img" >/dev/null
	seed "$name" "$img" "$bs"
}

written v3-1k 3M 1024 metadata_csum --ops=40 --seed=3 --csum=v3 --crash-after=200
written v2-4k 8M 4096 metadata_csum,64bit --ops=60 --seed=5 --csum=v2 --crash-after=150
written v1-async 3M 1024 ^metadata_csum --ops=40 --seed=7 --csum=v1 --async-commit --crash-after=150
written nocsum 3M 1024 ^metadata_csum,^flex_bg --ops=50 --seed=11 --csum=none --crash-after=180
written torn 3M 1024 metadata_csum --ops=30 --seed=13 --csum=v3 --crash-after=90 --torn=512
written leak 4M 1024 ^metadata_csum --ops=40 --seed=1 --csum=v1 --reproduce=ialloc-3.4
written leak3 4M 1024 metadata_csum --ops=30 --seed=9 --csum=v3 --reproduce=ialloc-3.4

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
