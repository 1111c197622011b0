# The Debian package (debian/): dpkg-buildpackage -us -uc -b builds it from a copy of the
# source as a clean clone would have it; the .deb holds the program, the manual page and
# the bash completion; the program runs from the unpacked package (dpkg-deb -x, nothing
# is installed on this machine); its version is configure's; lintian finds no error
# (its warnings are listed in the log).
. "$E4R_TESTS_SRCDIR/lib.sh"

top=$E4R_TESTS_SRCDIR/..
[ -d "$top/debian" ] || skip "no debian/ in $top (release tarballs leave it out)"
command -v dpkg-buildpackage > /dev/null || skip "needs dpkg-buildpackage (Debian: dpkg-dev)"
command -v dh > /dev/null || skip "needs debhelper (Debian: debhelper)"
command -v git > /dev/null && git -C "$top" rev-parse --git-dir > /dev/null 2>&1 ||
	skip "needs a git checkout of the source, to copy what a clean clone holds"

# What a clean clone holds after a commit: tracked files and new files git does not
# ignore, as they are in the working tree (nothing from a build in place).
mkdir -p src/e4recover
(cd "$top" && git ls-files -z --cached --others --exclude-standard) | tr '\0' '\n' |
	while IFS= read -r f; do [ -e "$top/$f" ] && printf '%s\n' "$f"; done > files.txt
tar -C "$top" -cf - -T files.txt | tar -C src/e4recover -xf - || fail "copying the source"
[ -f src/e4recover/configure ] && fail "the copy holds a generated configure: not a clean clone"

start=$(date +%s)
(cd src/e4recover && DEB_BUILD_OPTIONS="parallel=$(nproc) noddebs" dpkg-buildpackage -us -uc -b) > build.log 2>&1 ||
	{ tail -n 40 build.log; fail "dpkg-buildpackage -us -uc -b"; }
note "dpkg-buildpackage: $(( $(date +%s) - start )) s"
grep -q "^TESTS=cli-usage\|1 passed, 0 failed" build.log || fail "the build did not run its command-line test"
grep -Eq '^[0-9]+ passed' build.log && ! grep -q '^1 passed, 0 failed' build.log &&
	fail "the build ran more than its one test"

deb=$(ls src/e4recover_*.deb 2> /dev/null | grep -v dbgsym | head -n 1)
[ -n "$deb" ] || fail "no .deb next to the source"
note "built $(basename "$deb")"

# Version: configure's AC_INIT and the package's agree.
want=$(sed -n 's/^AC_INIT(\[e4recover\], \[\([^]]*\)\].*/\1/p' "$top/configure.ac")
got=$(dpkg-deb -f "$deb" Version)
[ -n "$want" ] && [ "$got" = "$want" ] || fail "package version $got, configure.ac says $want"
[ "$(dpkg-deb -f "$deb" Package)" = e4recover ] || fail "package name"

dpkg-deb -c "$deb" | awk '{ print $NF }' | sed 's|^\./|/|' > contents.txt
for f in /usr/bin/e4recover /usr/share/man/man8/e4recover.8.gz \
	 /usr/share/bash-completion/completions/e4recover /usr/share/doc/e4recover/copyright; do
	grep -qx "$f" contents.txt || fail "the package lacks $f"
done

dpkg-deb -x "$deb" root
run root/usr/bin/e4recover --version; expect_rc 0 "the packaged program runs"
expect_out "^e4recover $want\$" "the packaged program prints its version"
run root/usr/bin/e4recover --help; expect_rc 0 "--help from the package"
expect_out "^  replay " "--help lists the subcommands"
run root/usr/bin/e4recover check --help; expect_rc 0 "check --help from the package"
expect_out "skip-transaction" "check --help lists the policies"
mkimg a.img 8M
run root/usr/bin/e4recover check -n -f a.img; expect_rc 0 "the packaged program checks a fresh image"
if command -v man > /dev/null; then
	LC_ALL=C MANWIDTH=80 man -l root/usr/share/man/man8/e4recover.8.gz 2>&1 | grep -q '^EXIT STATUS' ||
		fail "man cannot read the packaged page"
fi

if command -v lintian > /dev/null; then
	lintian --fail-on error --tag-display-limit 0 "$deb" > lintian.txt 2>&1
	lrc=$?
	note "lintian (exit $lrc):"; sed 's/^/#   /' lintian.txt
	[ "$lrc" -eq 0 ] || fail "lintian reports errors"
	grep -q '^E: ' lintian.txt && fail "lintian reports errors"
else
	note "lintian is not installed: the package was not linted"
fi
exit 0
