#!/bin/sh
# Make the README's sample: a small ext4 image whose journal needs recovery,
# written with debugfs's journal writer (two transactions, one with a revoke).
set -e
out=${1:-sample.img}
PATH=/sbin:/usr/sbin:$PATH
rm -f "$out"
mke2fs -q -F -t ext4 -O metadata_csum -U 11111111-2222-3333-4444-555555555555 "$out" 8M
tmp=$(mktemp)
head -c 4096 /dev/zero | tr '\0' 'e' > "$tmp"
debugfs -w -f - "$out" >/dev/null 2>&1 <<EOC
jo -c
jw -b 5000,5001,5002 $tmp
jc
jo
jw -b 5010 -r 5000 $tmp
jc
EOC
rm -f "$tmp"
dumpe2fs -h "$out" 2>/dev/null | grep -q needs_recovery
echo "$out: ext4 image with 2 journal transactions to recover"
