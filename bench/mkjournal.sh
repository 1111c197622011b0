#!/bin/bash
# Build the benchmarks' image: a 4 GiB sparse ext4 image (4 KiB blocks, metadata_csum) with a
# 512 MiB journal holding TXNS transactions of TAGS blocks each, written with debugfs's journal
# writer (csum v3), so the image needs recovery. Reuses DIR/big.img when already built.
# Usage: bench/mkjournal.sh DIR TXNS TAGS
set -eu
dir=$1 TXNS=$2 TAGS=$3
img=$dir/big.img
export PATH="/sbin:/usr/sbin:$PATH" LC_ALL=C
[ -f "$img.done" ] && [ "$(cat "$img.done")" = "$TXNS x $TAGS" ] && exit 0
echo "building: 4 GiB sparse image, 512 MiB journal, $TXNS transactions x $TAGS blocks" >&2
rm -f "$img" "$img.done"
truncate -s 4G "$img"
mke2fs -q -F -t ext4 -b 4096 -J size=512 -O metadata_csum "$img"
head -c $((TAGS * 4096)) /dev/urandom > "$dir/data"
{
	echo "jo -c"
	for t in $(seq 0 $((TXNS - 1))); do
		# distinct home blocks well inside the filesystem
		echo "jw -b $(seq -s, $((200000 + t * TAGS)) $((200000 + t * TAGS + TAGS - 1))) $dir/data"
	done
	echo "jc"
} > "$dir/script"
debugfs -w -f "$dir/script" "$img" >/dev/null 2>&1
echo "$TXNS x $TAGS" > "$img.done"
