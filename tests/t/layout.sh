# lib/'s layout, read from its object files with nm (tests/layout.py): each exported
# symbol has its folder's prefix, each call between folders is one that lib/README
# allows, and no files call each other round a cycle.
. "$E4R_TESTS_SRCDIR/lib.sh"

command -v nm >/dev/null || skip "needs nm (binutils)"
run python3 "$E4R_TESTS_SRCDIR/layout.py" "$E4R_TOP_BUILDDIR/lib" "$E4R_TESTS_SRCDIR/../lib/README"
expect_rc 0 "lib/ layout"
expect_out "layout: [0-9]+ objects, [0-9]+ exported symbols, [0-9]+ calls between files, 0 violations" "objects read"

# The checker itself: a wrong-way call and a cycle between two files must be caught.
mkdir -p probe/util probe/fs
printf 'int fs_b(void);\nint util_a(void) { return fs_b(); }\n' > a.c
printf 'int util_a(void);\nint fs_b(void) { return util_a(); }\n' > b.c
cc -c a.c -o probe/util/a.o && cc -c b.c -o probe/fs/b.o || skip "no C compiler for the probe"
printf '  util:\n  fs: util\n' > probe/README
run python3 "$E4R_TESTS_SRCDIR/layout.py" probe probe/README
expect_rc 1 "a wrong-way call fails"
expect_out "util/a.o calls fs_b" "the wrong-way call is named"
expect_out "cycle between files: fs/b.o util/a.o" "the cycle is named"
