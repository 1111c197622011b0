# The manual page's EXAMPLES (the 2012 inode-bitmap leak under version 1 checksums) run as
# printed, in order, and what the page says of them holds: e2fsck aborts the replay at
# transaction 2; diagnose finds an unjournaled modification there; stop replays nothing from
# transaction 2 on and auto replays it; replay exits 1 and leaves what e2fsck finds clean;
# e2undo gives back the image; check -y leaves it clean; the JSON names the cause.
. "$E4R_TESTS_SRCDIR/lib.sh"

page=$E4R_TOP_BUILDDIR/doc/e4recover.8
[ -f "$page" ] || fail "no $page"
# The command lines of the EXAMPLES section: its .nf/.fi blocks, roff escapes and
# comments taken out.
awk '/^\.SH/ { on = ($0 ~ /^\.SH EXAMPLES/); next }
     on && /^\.nf/ { nf = 1; next } on && /^\.fi/ { nf = 0; next }
     on && nf { gsub(/\\-/, "-"); sub(/ *#.*/, ""); print }' "$page" > examples.txt
cat examples.txt
[ "$(wc -l < examples.txt)" -ge 8 ] || fail "the page has only $(wc -l < examples.txt) example lines"

# Each line runs with e4recover being ours, and mke2fs given the fixed UUID and hash seed
# of every test image (lib.sh); its output and exit code are kept by number.
n=0
while IFS= read -r line; do
	n=$((n + 1))
	case $line in
	"e4recover replay --undo="*) cp disk.img before-replay.img ;;
	"e2undo "*) cp disk.img after-replay.img ;;
	"e4recover check -y"*) cp disk.img after-undo.img ;;
	esac
	(e4recover() { "$E4R" "$@"; }
	 mke2fs() { command mke2fs -U "$FIXED_UUID" -E "hash_seed=$FIXED_HASH_SEED" "$@"; }
	 eval "$line") > "out.$n" 2>&1
	echo $? > "rc.$n"
	printf '$ %s\n%s\n[exit %s]\n' "$line" "$(cat "out.$n")" "$(cat "rc.$n")"
	[ $n = 2 ] && cp disk.img crashed.img
done < examples.txt

# line LINE-PREFIX: the number of the example line that starts so.
line() { grep -n -F -- "$1" examples.txt | head -n 1 | cut -d: -f1; }
out() { cat "out.$(line "$1")"; }
rc() { cat "rc.$(line "$1")"; }

[ -f crashed.img ] || fail "the first two lines did not make disk.img"
out "e4recover write" | grep -q "leaked into a committing transaction" || fail "write did not leak"
cp crashed.img e2fsck.img
run e2fsck -fy e2fsck.img
expect_out "Journal transaction 2 was corrupt, replay was aborted" "e2fsck aborts at transaction 2, as the page says"

[ "$(rc "e4recover diagnose disk.img")" = 1 ] || fail "diagnose exits $(rc "e4recover diagnose disk.img")"
out "e4recover diagnose disk.img" | grep -A2 '^transaction 2,' | grep -q "unjournaled modification" ||
	fail "diagnose does not call transaction 2's failure an unjournaled modification"
out "e4recover diagnose disk.img" | grep -A6 '^transaction 2,' | grep -q "auto: replay as is" ||
	fail "diagnose does not announce replaying the block as it is"
out "e4recover logdump --decode --transaction=2" | grep -q "inode bitmap" || fail "logdump --decode names no inode bitmap"
out "e4recover replay --dry-run --policy=stop" | grep -q "^transaction 2: not replayed" ||
	fail "stop replays transaction 2"
out "e4recover replay --dry-run disk.img" | grep -q "^transaction 2: replayed" || fail "auto does not replay transaction 2"

[ "$(rc "e4recover replay --undo=")" = 1 ] || fail "replay exits $(rc "e4recover replay --undo="), the page says 1"
run e2fsck -fn after-replay.img; expect_rc 0 "e2fsck finds the replayed image clean"
[ "$(rc "e4recover check -n -f")" = 0 ] || fail "check -n -f after the replay exits $(rc "e4recover check -n -f")"
cmp -s before-replay.img crashed.img || fail "the dry runs changed the image"
[ "$(rc "e2undo ")" = 0 ] || fail "e2undo failed"
cmp -s after-undo.img before-replay.img || fail "e2undo with replay's undo file does not give back the image"
[ "$(rc "e4recover check -y")" -le 1 ] || fail "check -y exits $(rc "e4recover check -y")"
run e2fsck -fn disk.img; expect_rc 0 "e2fsck finds the image clean after check -y"

python3 - <<'PYEOF' || fail "findings.json does not name the leak in transaction 2"
import json
d = json.load(open("findings.json"))
assert any(f["sequence"] == 2 and f["cause"] == "unjournaled_modification" for f in d["findings"]), d
PYEOF
exit 0
