#!/bin/sh
# Install the Debian packages e4recover builds and tests with, only the missing ones
# (time: bench/ reads peak memory from /usr/bin/time -v; clang and its runtime
# libraries: the libFuzzer targets, make check-fuzz; man-db: tests/t/man.sh reads the
# manual page; debhelper, lintian, bash-completion: tests/t/debian-package.sh builds and
# lints the Debian package, whose build wants bash-completion's completionsdir;
# python3-jsonschema: the test runner validates every --json document against doc/schema/;
# valgrind: tests/t/fuzz-regress.sh checks libext2fs's memory use, which the sanitizers do not see).
set -e
PKGS="build-essential pkg-config autoconf automake autopoint gettext libext2fs-dev libblkid-dev comerr-dev libpopt-dev e2fsprogs python3 python3-jsonschema time clang libclang-rt-14-dev man-db debhelper lintian bash-completion attr valgrind"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q $missing
