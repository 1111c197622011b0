# Fuzz inputs whose repair was once worse than e2fsck's (fuzz/regress/check-vs-e2fsck/):
# each is decoded to its image by fuzz/regress_check (run read-only: byte 5 of an input
# picks the mode), then repaired by e2fsck -fy and by check -y -f, each on its own copy.
# Wherever e2fsck -fn is clean after e2fsck's repair, it must be clean after ours, a second
# check -n -f must find nothing, and ours must keep at least the inodes in use e2fsck keeps.
. "$E4R_TESTS_SRCDIR/lib.sh"

fz=$E4R_TOP_BUILDDIR/fuzz
src=$E4R_TESTS_SRCDIR/../fuzz/regress/check-vs-e2fsck
[ -x "$fz/regress_check" ] || fail "fuzz/regress_check was not built"

used() { e2fsck -fn "$1" 2>&1 | sed -n 's/.*: \([0-9]*\)\/[0-9]* files.*/\1/p'; }

n=0 compared=0
for input in "$src"/*; do
	name=${input##*/}
	n=$((n + 1))
	# byte 5 set to 0: mode -n, which leaves the decoded image as it was
	python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[5] = 0; open(sys.argv[2], "wb").write(d)' \
		"$input" in.bin || fail "$name: cannot copy the input"
	rm -f img
	E4R_FUZZ_DUMP=img "$fz/regress_check" in.bin >/dev/null 2>&1
	[ -s img ] || fail "$name: regress_check left no image"
	cp img ours.img; cp img e2.img
	e2fsck -fy e2.img >/dev/null 2>&1
	run "$E4R" check -y -f ours.img
	[ "$RC" = 0 ] || [ "$RC" = 1 ] || fail "$name: check -y -f exit $RC"
	e2fsck -fn e2.img >/dev/null 2>&1 || { note "$name: e2fsck -fn not clean after e2fsck -fy; not compared"; continue; }
	run e2fsck -fn ours.img
	expect_rc 0 "$name: oracle: e2fsck -fn after check -y -f"
	run "$E4R" check -n -f ours.img
	expect_rc 0 "$name: a second check -n -f"
	a=$(used ours.img) b=$(used e2.img)
	note "$name: inodes in use after check -y: $a, after e2fsck -fy: $b"
	[ -n "$a" ] && [ -n "$b" ] && [ "$a" -ge "$b" ] || fail "$name: check -y keeps $a inodes in use, e2fsck -fy $b"
	compared=$((compared + 1))
done
note "$n inputs, $compared compared with e2fsck"
[ "$compared" -ge 1 ] || fail "no input compared with e2fsck"
exit 0
