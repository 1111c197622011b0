# Fast-commit replay (lib/replay/fc.c through the tests/unit/fc_replay_tool helper:
# full commits with the stop policy, then the committed fast-commit tags) against
# the kernel's own recovery of the same image (a loop mount): same files, sizes,
# link counts and contents; e2fsck -fn finds nothing to fix in ours.
. "$E4R_TESTS_SRCDIR/lib.sh"
. "$E4R_TESTS_SRCDIR/mkfc.sh"

TOOL="$E4R_TOP_BUILDDIR/tests/unit/fc_replay_tool"
[ -x "$TOOL" ] || fail "no $TOOL"
# The kernel may commit fully before the fast commits land (timing, on a loaded
# machine): then the image has nothing to test here, and is made again.
for attempt in 1 2 3; do
	mkfc crash.img
	"$E4R" logdump --json crash.img > crash.json 2>&1 || fail "logdump: $(tail -n 3 crash.json)"
	ncommitted=$(python3 -c 'import json; print(json.load(open("crash.json"))["fast_commit_end"]["committed_tags"])')
	[ "$ncommitted" -gt 0 ] && break
	note "attempt $attempt: the kernel left no committed fast commit; making the image again"
done
[ "$ncommitted" -gt 0 ] || fail "the kernel left no committed fast commit (3 attempts)"
note "$ncommitted committed fast-commit tags"

# What the files look like: path, size, links, md5 (mounted read-only).
listing() { # IMAGE OUT
	mount -o loop,ro "$1" mnt 2>mount.err || fail "mount $1: $(cat mount.err)"
	(cd mnt && find . -path ./lost+found -prune -o -type f -printf '%p %s %n\n' | sort |
		while read -r p s n; do echo "$p $s $n $(md5sum < "$p" | cut -c1-32)"; done) > "$2"
	umount mnt || fail "umount $1"
}

# The oracle: the kernel replays full and fast commits at mount.
cp crash.img kernel.img
mount -o loop kernel.img mnt 2>mount.err || fail "the kernel cannot recover the image: $(cat mount.err)"
umount mnt || fail "umount"
listing kernel.img kernel.list

cp crash.img ours.img
run "$TOOL" ours.img
expect_rc 0 "every committed fast-commit tag applies"
expect_out "committed $ncommitted applied $ncommitted failed 0" "all $ncommitted tags applied"
run e2fsck -fn ours.img
expect_rc 0 "e2fsck -fn finds ours clean"
listing ours.img ours.list
run diff kernel.list ours.list
expect_rc 0 "the files after our replay are the kernel's"
[ "$(wc -l < ours.list)" -ge 10 ] || fail "too few files compared: $(cat ours.list)"

# The same through the command: replay --policy=stop applies the fast commits too.
cp crash.img cmd.img
run "$E4R" replay --policy=stop cmd.img
expect_rc 0 "replay with fast commits"
expect_out "fast commits: $ncommitted committed tags; $ncommitted applied, 0 refused" "replay applied every tag"
run e2fsck -fn cmd.img
expect_rc 0 "e2fsck -fn finds replay's result clean"
listing cmd.img cmd.list
run diff kernel.list cmd.list
expect_rc 0 "the files after replay are the kernel's"

# The comparison has teeth: the full commits alone give other files.
# (full commits only: the first fast-commit block zeroed, so no fast commit is complete)
cp crash.img full-only.img
fcj=$(python3 -c 'import json; print(json.load(open("crash.json"))["fast_commit"][0]["journal_block"])')
fcphys=$(debugfs -c -R "bmap <8> $fcj" full-only.img 2>/dev/null)
dd if=/dev/zero of=full-only.img bs=$(dumpe2fs -h full-only.img 2>/dev/null | sed -n 's/^Block size: *//p') \
	seek="$fcphys" count=1 conv=notrunc 2>/dev/null
run "$E4R" replay --policy=stop full-only.img
[ "$RC" -le 1 ] || fail "replay --policy=stop: exit $RC"
expect_out "fast commits: 0 committed tags" "no fast commit survives the zeroed block"
listing full-only.img full-only.list
cmp -s kernel.list full-only.list && fail "the fast commits change nothing: the test proves nothing"
note "without the fast commits: $(diff kernel.list full-only.list | grep -c '^[<>]') lines differ"
exit 0
