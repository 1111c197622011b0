# Out of memory in check -n on damaged images: tests/unit/nomem_cmds fails each allocation
# of the whole process (libext2fs's and the C library's too), once alone and once with every
# later one. An allocation failure is an operational error, never damage: each run exits 8
# or as the uninjected run did with the same stdout (the same findings, word for word), and
# the image is not changed by one byte. The images (check_lib.sh, nomem_damaged_images): a
# shared block, a directory entry to a cleared inode with an unconnected directory, wrong
# counts. One of them with --json: each run's document is validated by the runner
# (tests/tools/json_validate.py: an exit of 8 or more says why, in "aborted").
. "$E4R_TESTS_SRCDIR/check_lib.sh"

nomem=$E4R_TOP_BUILDDIR/tests/unit/nomem_cmds
[ -x "$nomem" ] || fail "no $nomem: build with make check"
nomem_damaged_images

# ~250 to 300 allocations an image; every 2nd or 3rd index, both ways: 50 s in all on this
# shared machine (four tests at once)
for c in "dup.img" "dir.img --json" "cnt.img"; do
	set -- $c
	img=$1; shift
	cp "$img" orig.img
	run "$E4R" check -f -n "$@" "$img"
	expect_rc 4 "check -n finds $img damaged"
	run env E2FSPROGS_FAKE_TIME=1700000000 "$nomem" --max-runs 130 check -f -n "$@" "$img"
	[ "$RC" -eq 77 ] && skip "allocation failures not injected in this build (a sanitizer's allocator)"
	expect_rc 0 "$img: every allocation failure exits 8 or as uninjected, the image untouched"
	expect_out "$img: exit 4, [0-9]+ allocations, every [0-9]+-th failed \([0-9]+ runs\)" "$img: summary"
	cmp -s "$img" orig.img || fail "$img: the helper changed its input"
done
