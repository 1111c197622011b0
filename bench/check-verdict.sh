#!/bin/bash
# Verdict agreement of `e4recover check -n -f` with `e2fsck -fn` (clean = exit 0,
# not clean = exit 4) over image directories, e.g. e2fsprogs' test images:
#   bench/check-verdict.sh [BIN] DIR...     (DIR holds image.gz, image.bz2 or image)
# Prints one line per image and "N/M agree" last. Not part of make check.
set -u
bin=recover/e4recover
case "${1:-}" in */e4recover) bin=$1; shift ;; esac
export E2FSCK_CONFIG=/dev/null TZ=GMT0 LC_ALL=C E2FSPROGS_SKIP_PROGRESS=1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
agree=0 total=0
verdict() { case $1 in 0) echo clean ;; 4|12) echo errors ;; *) echo "exit$1" ;; esac; }
for d in "$@"; do
	img=$tmp/img
	if [ -f "$d/image.gz" ]; then gzip -dc "$d/image.gz" > "$img"
	elif [ -f "$d/image.bz2" ]; then bzip2 -dc "$d/image.bz2" > "$img"
	elif [ -f "$d/image" ]; then cp "$d/image" "$img"
	else continue; fi
	timeout 120 e2fsck -fn "$img" >/dev/null 2>&1; ref=$?
	timeout 120 "$bin" check -n -f "$img" >/dev/null 2>&1; ours=$?
	total=$((total + 1))
	if [ "$(verdict $ref)" = "$(verdict $ours)" ]; then
		agree=$((agree + 1)); echo "agree    $(basename "$d"): $(verdict $ref)"
	else
		echo "DISAGREE $(basename "$d"): e2fsck $(verdict $ref), e4recover $(verdict $ours)"
	fi
done
echo "$agree/$total agree"
