# Out of memory from outside our code, on a clean filesystem: tests/unit/nomem_clean fails
# each allocation of the whole process in turn (libext2fs's and the C library's too), once
# alone and once with every later one, during check -fy (doc/DESIGN.md, "Journaled repair
# rounds": an operational error ends the run and is never read as damage). Every run exits
# 0 or 8, leaves the image's bytes but the superblock's state, error and time fields, and
# e2fsck -fn finds it clean. Four groups, so that a wrongly chosen backup superblock shows.
# Crashes inside libext2fs 1.47.0 itself (its inode cache and extent handle do not survive
# every failed allocation) are counted apart and only asked to leave the image unchanged.
. "$E4R_TESTS_SRCDIR/lib.sh"

nomem=$E4R_TOP_BUILDDIR/tests/unit/nomem_clean
[ -x "$nomem" ] || fail "no $nomem: build with make check"
mkimg clean.img 8M -b 1024 -g 2048
seeded_bytes f1 50000 > f1
printf '%s\n' 'mkdir d' 'write f1 d/f1' 'write f1 big' 'symlink s d/f1' 'mkdir d/e' 'write f1 d/e/p' |
	debugfs -w -f - clean.img >/dev/null 2>&1 || fail "debugfs writes"
run e2fsck -fn clean.img
expect_rc 0 "oracle: the image is clean"
cp clean.img orig.img

# ~200 allocations on this image, two runs each; the stride keeps a grown count to 250 indices
run env E2FSPROGS_FAKE_TIME=1700000000 "$nomem" --max-runs 250 clean.img
[ "$RC" -eq 77 ] && skip "allocation failures not injected in this build (a sanitizer's allocator)"
expect_rc 0 "every allocation failure leaves a clean image unchanged, exit 0 or 8"
expect_out "clean.img: [0-9]+ allocations, every [0-9]+-th failed \([0-9]+ runs\)" "summary"
cmp -s clean.img orig.img || fail "the helper changed its input"
