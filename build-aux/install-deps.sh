#!/bin/sh
# Install the Debian packages e4recover builds and tests with, only the missing ones
# (time: bench/ reads peak memory from /usr/bin/time -v; clang and its runtime
# libraries: the libFuzzer targets, make check-fuzz).
set -e
PKGS="build-essential pkg-config autoconf automake autopoint gettext libext2fs-dev libblkid-dev comerr-dev libpopt-dev e2fsprogs python3 time clang libclang-rt-14-dev"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q $missing
