#!/bin/sh
# Usage: dist-complete.sh SRCDIR TARBALL
# Fails when the release tarball lacks a file that git tracks in SRCDIR, except what is
# deliberately left out of it: CI's and git's own files, and debian/ (the Debian package
# is built from the repository, as a native package). Without git, or outside a git
# checkout, says so and passes: there is nothing to compare with.
set -eu
srcdir=$1 tarball=$2
if ! command -v git > /dev/null || ! git -C "$srcdir" rev-parse --git-dir > /dev/null 2>&1; then
	echo "dist-complete: $srcdir is not a git checkout: not compared"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$srcdir" ls-files | grep -v -e '^\.ci/' -e '^\.gitignore$' -e '^debian/' | sort > "$tmp/tracked"
tar tzf "$tarball" | sed 's|^[^/]*/||' | sort > "$tmp/dist"
comm -23 "$tmp/tracked" "$tmp/dist" > "$tmp/missing"
if [ -s "$tmp/missing" ]; then
	echo "dist-complete: $tarball lacks these tracked files (add them to EXTRA_DIST):"
	sed 's/^/  /' "$tmp/missing"
	exit 1
fi
echo "dist-complete: $tarball holds every tracked file ($(wc -l < "$tmp/tracked"))"
