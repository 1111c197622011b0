# A mounted filesystem is never written: replay (without --dry-run), check -y/-p and write
# refuse it, given as the image file behind a loop mount or as the loop device itself, with
# exit 8, one line naming the image and the mount point, and the image's bytes unchanged.
# Read-only commands (check -n, logdump, diagnose, replay --dry-run) warn as e2fsck -n does
# and go on. The case is a kernel crash image (mkcrash.py) mounted read-only without its
# journal (noload): it still needs recovery, so a replay that got through would write, and
# the kernel itself writes nothing while the test runs. Also: on a loop device that is not
# mounted, replay (which opens the device exclusively) works and e2fsck agrees with it.
. "$E4R_TESTS_SRCDIR/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root for loop mounts"
with_sync_lock -x python3 "$E4R_TESTS_TOOLS/mkcrash.py" crash.img 31 v3 > crash.log 2>&1 ||
	skip "mkcrash.py could not make a crash image: $(tail -n 1 crash.log)"
grep -q '"needs_recovery": true' crash.log || fail "the crash image needs no recovery"
cp crash.img m.img
mkdir mnt
mount -o loop,ro,noload m.img mnt 2>/dev/null || skip "the kernel refuses a read-only loop mount"
loop=$(losetup -j "$PWD/m.img" | cut -d: -f1)
[ -n "$loop" ] || { umount mnt; fail "no loop device behind the mount"; }
before=$(sha m.img)

refused() { # DESCRIPTION COMMAND...
	local what=$1; shift
	run "$@"
	[ "$RC" -eq 8 ] || { umount mnt; fail "$what: expected exit 8, got $RC"; }
	printf '%s\n' "$OUT" | grep -q "mounted on $PWD/mnt" ||
		{ umount mnt; fail "$what: the error does not name the mount point"; }
	# said once: "mounted on X: the filesystem is mounted" said it twice
	[ "$(printf '%s\n' "$OUT" | grep '^e4recover: ' | sed "s|$PWD||g" | grep -o 'mounted' | wc -l)" -eq 1 ] ||
		{ umount mnt; fail "$what: the error says it is mounted more than once: $OUT"; }
}
warned() { # DESCRIPTION COMMAND...
	local what=$1; shift
	run "$@"
	[ "$RC" -le 1 ] || { umount mnt; fail "$what: expected to go on, exit $RC"; }
	printf '%s\n' "$OUT" | grep -q "Warning! .* is mounted on $PWD/mnt" ||
		{ umount mnt; fail "$what: no warning that it is mounted"; }
}
for dev in m.img "$loop"; do
	refused "replay $dev" "$E4R" replay "$dev"
	printf '%s\n' "$OUT" | grep -q "^e4recover: $dev: mounted on" ||
		{ umount mnt; fail "replay $dev: the error does not name the image"; }
	refused "replay --policy=all $dev" "$E4R" replay --policy=all "$dev"
	refused "check -y $dev" "$E4R" check -y "$dev"
	refused "check -p $dev" "$E4R" check -p "$dev"
	refused "check -y -f --json $dev" "$E4R" check -y -f --json "$dev"
	refused "write $dev" "$E4R" write --ops=5 --seed=1 "$dev"
	warned "check -n $dev" "$E4R" check -n "$dev"
	warned "logdump $dev" "$E4R" logdump "$dev"
	warned "diagnose $dev" "$E4R" diagnose "$dev"
	warned "replay --dry-run $dev" "$E4R" replay --dry-run "$dev"
done
# The oracle refuses too: e2fsck -y on the mounted image.
run e2fsck -y m.img
ref=$RC
umount mnt || fail "umount"
[ "$ref" -eq 8 ] || fail "oracle: e2fsck -y on the mounted image exits $ref, not 8"
[ "$(sha m.img)" = "$before" ] || fail "the mounted image was written"
cmp -s m.img crash.img || fail "the image differs from the crash image"

# Not mounted: a loop device is an ordinary target (opened exclusively while written).
loop=$(losetup -f --show m.img) || skip "no free loop device"
run "$E4R" replay --policy=stop "$loop"
rc=$RC
losetup -d "$loop"
[ "$rc" -le 1 ] || fail "replay on an unmounted loop device: exit $rc"
cp crash.img ref.img
e2fsck -E journal_only -y ref.img >/dev/null 2>&1
run python3 "$E4R_TESTS_TOOLS/imgdiff.py" ref.img m.img
expect_rc 0 "the replay through the loop device is e2fsck's"
exit 0
