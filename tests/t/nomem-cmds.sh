# Out of memory in replay, logdump and diagnose: tests/unit/nomem_cmds fails each allocation
# of the whole process in turn (libext2fs's and the C library's too), once alone and once
# with every later one, as nomem-clean does for check. An allocation failure is an
# operational error (exit 8), never a finding about the journal: each run exits 8 or as the
# uninjected run did, with the same stdout. logdump, diagnose and replay --dry-run never
# change the image; replay leaves the uninjected replay's image, or with exit 8 the image
# unchanged or one a second replay ends as the uninjected replay does.
# The journal (v3 checksums) holds three committed transactions, the second with a flipped
# bit in a data block: logdump and diagnose report it, and auto's diagnosis runs.
. "$E4R_TESTS_SRCDIR/lib.sh"

nomem=$E4R_TOP_BUILDDIR/tests/unit/nomem_cmds
[ -x "$nomem" ] || fail "no $nomem: build with make check"
seeded_bytes data 65536 > data
# Journal layout (1 KiB blocks): T1 = descriptor 1, data 2-4, commit 5;
# T2 = descriptor 6, data 7-8, commit 9; T3 = descriptor 10, data 11, commit 12.
mkimg j.img 4M -b 1024 -O metadata_csum
jwrite j.img "jo -c" "jw -b 3000,3001,3002 $PWD/data" "jc" "jo -c" "jw -b 3500,3501 $PWD/data" "jc" \
	"jo -c" "jw -b 3900 $PWD/data" "jc"
debugfs -R "logdump" j.img 2>&1 | grep -q "type 2 (commit block) at block 12" ||
	fail "unexpected journal layout from debugfs"
flip j.img $(( $(jblock_offset j.img 7) + 100 )) 3

# the uninjected verdicts, as e2fsck sees the journal too: a damaged transaction
cp j.img oracle.img
run e2fsck -fy oracle.img
[ "$RC" -ne 0 ] || fail "oracle: e2fsck finds nothing in a journal with a flipped bit"
run "$E4R" logdump j.img
expect_rc 1 "logdump reports the flipped bit"
run "$E4R" diagnose j.img
expect_rc 1 "diagnose reports the flipped bit"
cp j.img orig.img

# 100 to 230 allocations per command on this image, two runs each, 25 to 40 seconds in
# all: every index is tried. Should the counts grow, the helper strides deterministically
# (every S-th index and the last, S in its summary) to keep each command to 250 indices.
# logdump --transaction=2: an option's value lost to popt shows as another listing.
for cmd in "logdump" "logdump --transaction=2" "diagnose" "replay --dry-run" "replay"; do
	run env E2FSPROGS_FAKE_TIME=1700000000 "$nomem" --max-runs 250 $cmd j.img
	[ "$RC" -eq 77 ] && skip "allocation failures not injected in this build (a sanitizer's allocator)"
	expect_rc 0 "$cmd: every allocation failure exits 8 or as uninjected, the image as the rules say"
	expect_out "j.img: exit [0-9]+, [0-9]+ allocations, every [0-9]+-th failed \([0-9]+ runs\)" "$cmd: summary"
	cmp -s j.img orig.img || fail "$cmd: the helper changed its input"
done
