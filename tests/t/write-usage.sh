# write: usage errors exit 16, operational errors (a bad path, ENOSPC, an image needing
# recovery) exit 8 with the image, the operation and the reason named.
. "$E4R_TESTS_SRCDIR/lib.sh"

mkimg a.img 8M
run "$E4R" write a.img;                          expect_rc 16 "neither --script nor --ops"
run "$E4R" write --ops=3 --script=x a.img;       expect_rc 16 "both --script and --ops"
run "$E4R" write --ops=3 --csum=v9 a.img;        expect_rc 16 "unknown checksum"; expect_out "v9" "the checksum is named"
run "$E4R" write --ops=3 --reproduce=nope a.img; expect_rc 16 "unknown bug"; expect_out "ialloc-3.4" "the known bug is listed"
printf 'mkdir /a\nfrobnicate /b\n' > bad.txt
run "$E4R" write --script=bad.txt a.img;         expect_rc 16 "bad script line"; expect_out "line 2" "the line is named"
printf 'create relative 10\n' > rel.txt
run "$E4R" write --script=rel.txt a.img;         expect_rc 16 "relative path"
run "$E4R" write --script=missing.txt a.img;     expect_rc 8 "missing script"

printf 'create /a/b 10\n' > nodir.txt
run "$E4R" write --script=nodir.txt a.img;       expect_rc 8 "missing parent"; expect_out "a.img.*operation 1.*/a/b" "the op is named"
run e2fsck -fn a.img;                            expect_rc 0 "a failed op leaves the image clean"
printf 'mkdir /d\ncreate /d/f 1\nrmdir /d\n' > nonempty.txt
run "$E4R" write --script=nonempty.txt a.img;    expect_rc 8 "rmdir of a non-empty directory"; expect_out "not empty" "the reason is given"
run e2fsck -fn a.img;                            expect_rc 0 "clean after the refused rmdir"
# what came before a refused operation is written back, as the unmount does: the file has
# the content the same creation alone gives it, not its size over holes
mkimg k.img 8M; cp k.img k1.img
printf 'create /kept 3000\n' > kept.txt
printf 'create /kept 3000\ncreate /no/such 1\n' > refused.txt
run "$E4R" write --script=kept.txt k1.img;       expect_rc 0 "one creation"
run "$E4R" write --script=refused.txt k.img;     expect_rc 8 "a creation, then a refused one"
run e2fsck -fn k.img;                            expect_rc 0 "clean after the refused creation"
debugfs -R "cat /kept" k.img > kept.out 2>/dev/null; debugfs -R "cat /kept" k1.img > kept1.out 2>/dev/null
[ "$(wc -c < kept.out)" = 3000 ] && cmp -s kept.out kept1.out && [ -n "$(tr -d '\0' < kept.out)" ] ||
	fail "the file created before the refused operation lost its data"

mkimg full.img 2M -b 1024
printf 'create /big 4000000\n' > big.txt
run "$E4R" write --script=big.txt full.img;      expect_rc 8 "ENOSPC"; expect_out "ENOSPC" "ENOSPC is named"
run e2fsck -fn full.img;                         expect_rc 0 "the file keeps what was written; the image is clean"

mkimg rec.img 8M
printf 'create /f 10\ncommit\ncrash\n' > crash.txt
run "$E4R" write --script=crash.txt rec.img;     expect_rc 0 "a crash line"
run "$E4R" write --script=crash.txt rec.img;     expect_rc 8 "an image that needs recovery"; expect_out "recovery" "recovery is named"
run e2fsck -fy rec.img
run debugfs -R "stat /f" rec.img;                expect_out "Size: 10" "the committed file survives the crash line"
exit 0
