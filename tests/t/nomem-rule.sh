# One test for out-of-memory (doc/DESIGN.md, "Journaled repair rounds"): no source in lib/
# or recover/ compares an error with ENOMEM or EXT2_ET_NO_MEMORY alone; util_no_memory()
# (lib/util/nomem.h) is the one predicate, so neither spelling can pass for damage.
. "$E4R_TESTS_SRCDIR/lib.sh"

top=$E4R_TESTS_SRCDIR/..
run python3 "$E4R_TESTS_SRCDIR/nomem_lint.py" "$top/lib" "$top/recover"
expect_rc 0 "lib/ and recover/ test out-of-memory only through util_no_memory"
expect_out "nomem_lint: [1-9][0-9]+ files, 0 comparisons" "the sources were read"

# The checker itself: each form of the comparison is caught, comments and strings are not,
# and the predicate's own file is the one place allowed.
mkdir -p probe/util
cat > probe/p.c <<'PROBE'
/* err == ENOMEM in a comment is no comparison */
static const char *s = "err != EXT2_ET_NO_MEMORY";
int a(long err) { if (err == ENOMEM) return 1; return 0; }
int b(long err) { return EXT2_ET_NO_MEMORY != err; }
int c(long err) { switch (err) { case ENOMEM: return 1; } return 0; }
int d(long err) { return err ==
	(long)EXT2_ET_NO_MEMORY; }
int e(int r) { return r != -ENOMEM; }
long f(long err) { return err = ENOMEM; }
PROBE
cp probe/p.c probe/util/nomem.h
run python3 "$E4R_TESTS_SRCDIR/nomem_lint.py" probe
expect_rc 1 "a comparison with one spelling fails"
expect_out "nomem_lint: 1 files, 5 comparisons" "five comparisons, util/nomem.h skipped"
for n in 3 4 5 6 8; do
	expect_out "probe/p.c:$n: " "the comparison on line $n is named"
done
expect_no_out "probe/p.c:(1|2|9): " "comments, strings and assignments are not comparisons"
