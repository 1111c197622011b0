# check on a filesystem with multiple-mount protection (mke2fs -O mmp), as e2fsck:
# the feature is one libext2fs reads, not "unsupported"; a clean image is clean for
# -n, -y and -p and none of them changes a byte (e2fsck -fn is the oracle); a damaged
# one gets the finding e2fsck makes, and -y leaves what e2fsck -fn finds clean.
# In memory (the fuzz harness) the same image checks the same.
. "$E4R_TESTS_SRCDIR/lib.sh"

mkimg mmp.img 4M -b 1024 -O mmp
dumpe2fs -h mmp.img 2>/dev/null | grep -q "features:.*mmp" || fail "mke2fs made no MMP image"
run e2fsck -fn mmp.img; expect_rc 0 "oracle: e2fsck -fn finds the MMP image clean"

for mode in -n -y -p; do
	cp mmp.img t.img
	run "$E4R" check $mode -f t.img
	expect_rc 0 "check $mode -f on a clean MMP image"
	expect_no_out "unsupported features" "check $mode -f calls MMP unsupported"
	cmp -s mmp.img t.img || fail "check $mode -f changed a clean MMP image"
done

# A wrong link count on the root: e2fsck finds it; so must we, and -y must fix it for e2fsck.
cp mmp.img bad.img
debugfs -w -R "sif <2> links_count 9" bad.img >/dev/null 2>&1 || fail "debugfs sif"
run e2fsck -fn bad.img; expect_rc 4 "oracle: e2fsck -fn finds the damage"
run "$E4R" check -n -f bad.img; expect_rc 4 "check -n -f on a damaged MMP image"
expect_out "[Ii]node 2 ref count is 9, should be 3" "the finding e2fsck makes"
run "$E4R" check -y -f bad.img; expect_rc 1 "check -y -f repairs the MMP image"
run e2fsck -fn bad.img; expect_rc 0 "e2fsck -fn after check -y"

# The fuzz harness's twin: check -y in memory (option byte 2) exits 0 on the clean image.
fz=$E4R_TOP_BUILDDIR/fuzz
"$fz/img2seed" mmp.img 1024 2 mmp.seed || fail "img2seed"
run env E4R_FUZZ_DUMP=mem.img "$fz/regress_check" mmp.seed; expect_rc 0 "check -y in memory"
cmp -s mmp.img mem.img || fail "check -y in memory changed the clean MMP image"
exit 0
