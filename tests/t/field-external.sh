# An external journal is found by the UUID the superblock names (libblkid, as e2fsck finds
# it), by every subcommand, and --journal=PATH is accepted by every one (check too). The
# journal device is a loop device; the filesystem an image file. check -y without --journal
# replays it: the filesystem and the journal device end as e2fsck -y leaves them (imgdiff.py,
# cmp), the logged blocks as e2fsck -fy writes them (dd), and e2fsck -fn is clean. Without
# the device, check -y does not call the filesystem clean: it names the missing journal,
# writes nothing and exits 12, as e2fsck -y does then ("Cannot proceed"); check -n checks
# what it can, and exits 12 as e2fsck -n does.
. "$E4R_TESTS_SRCDIR/lib.sh"

# A UUID of this test's own: blkid must not find another test's journal device.
JUUID=99999999-1919-3333-4444-555555555555
mk_external_journal_fs "$JUUID"
seeded_bytes d 8192 > d
jwrite fs.img "jo -c -f $PWD/jnl.img" "jw -b 5000,5001 $PWD/d" "jw -b 5002 -r 5000 $PWD/d" "jc"
dumpe2fs -h fs.img 2>/dev/null | grep -q "^Journal UUID: *$JUUID" || fail "oracle: the superblock names no journal UUID"

# The oracles, on copies, with the journal given as a file.
cp fs.img ref-y.img; cp jnl.img refj-y.img
e2fsck -y -j refj-y.img ref-y.img >/dev/null 2>&1
cp fs.img ref-f.img; cp jnl.img refj-f.img
e2fsck -fy -j refj-f.img ref-f.img >/dev/null 2>&1
blk() { dd if="$1" bs=1024 skip="$2" count=1 2>/dev/null | sha256sum; }

# --journal=PATH everywhere (a file is a journal device too).
for cmd in "logdump" "diagnose" "replay --dry-run" "check -n"; do
	run "$E4R" $cmd --journal=jnl.img fs.img
	[ "$RC" -le 1 ] || fail "$cmd --journal=jnl.img: exit $RC"
done
cp fs.img g.img; cp jnl.img gj.img
run "$E4R" check -y --journal=gj.img g.img
expect_rc 0 "check -y --journal=FILE replays"
expect_out "g.img: recovering journal" "check -y --journal=FILE says it replays"
run python3 "$E4R_TESTS_TOOLS/imgdiff.py" ref-y.img g.img
expect_rc 0 "check -y --journal=FILE leaves the filesystem as e2fsck -y"
cmp -s refj-y.img gj.img || fail "check -y --journal=FILE: the journal differs from e2fsck's"

# Without --journal and without the device: no replay, no "clean", nothing written, 12.
cp fs.img n.img
run "$E4R" check -y n.img
expect_rc 12 "check -y without the journal device"
expect_no_out "clean" "check -y does not call it clean without its journal"
expect_out "n.img: .*journal's UUID.*--journal=PATH" "names the missing journal and the way out"
cmp -s n.img fs.img || fail "check -y without the journal device wrote to the image"
run "$E4R" replay n.img
expect_rc 8 "replay without the journal device"
run "$E4R" check -n n.img
expect_out "no device carries the external journal's UUID" "check -n says the journal is not read"
expect_rc 12 "check -n without the journal device (e2fsck -n: 12)"
expect_no_out "clean" "check -n does not call it clean without its journal"
cp fs.img en.img
run e2fsck -n en.img
expect_rc 12 "oracle: e2fsck -n without the journal device cannot proceed"
run "$E4R" check -n --journal=jnl.img n.img
expect_no_out "no device carries" "check -n --journal=PATH reads the journal given"
cp fs.img e.img
run e2fsck -y e.img
expect_rc 12 "oracle: e2fsck -y without the journal device cannot proceed"

# The device attached: found by its UUID, by every subcommand.
cp jnl.img jdev.img
loop=$(losetup -f --show jdev.img) || fail "losetup"
trap 'losetup -d "$loop" 2>/dev/null' EXIT
blkid -U "$JUUID" >/dev/null 2>&1 || note "blkid -U does not find $JUUID itself"
for cmd in "logdump" "diagnose" "replay --dry-run" "check -n"; do
	run "$E4R" $cmd fs.img
	[ "$RC" -le 1 ] || fail "$cmd without --journal, the device attached: exit $RC"
done
run "$E4R" logdump --json fs.img
printf '%s\n' "$OUT" | python3 -c 'import json,sys
d = json.load(sys.stdin)
assert [t["sequence"] for t in d["transactions"]] == [1, 2], d["transactions"]
assert d["journal"]["device_found_by_uuid"] == sys.argv[1], d["journal"]' "$loop" ||
	fail "logdump by UUID does not read the journal's transactions"
cp fs.img ours.img
run "$E4R" check -y ours.img
expect_rc 0 "check -y finds the journal by its UUID"
expect_out "ours.img: recovering journal" "check -y replays the journal found by UUID"
expect_out "found by its UUID on $loop" "check -y names the device it found"
losetup -d "$loop"
trap - EXIT
run python3 "$E4R_TESTS_TOOLS/imgdiff.py" ref-y.img ours.img
expect_rc 0 "the filesystem is e2fsck -y's"
cmp -s refj-y.img jdev.img || fail "the journal device differs from e2fsck's"
for b in 5000 5001 5002; do
	[ "$(blk ours.img $b)" = "$(blk ref-f.img $b)" ] || fail "block $b is not as e2fsck -fy writes it"
done
[ "$(blk ours.img 5001)" = "$(blk d 1)" ] || fail "block 5001 is not the logged data"
run e2fsck -fn -j jdev.img ours.img
expect_rc 0 "oracle: e2fsck -fn after check -y"
exit 0
