# A journal that needs recovery: check -n does not replay it (replay is not the
# checker's job); like e2fsck -n it says so and checks the unreplayed filesystem.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

base_image
head -c 4096 /dev/zero | tr '\0' 'j' > data
cp base.img j.img
jwrite j.img "jo -c" "jw -b 10000,10001 $PWD/data" "jc"
dumpe2fs -h j.img 2>/dev/null | grep -q needs_recovery || fail "the image does not need recovery"
sum=$(sha j.img)

for f in -f ""; do
	run e2fsck -n $f j.img
	ref=$RC
	expect_out "skipping journal recovery because doing a read-only filesystem check" "oracle: e2fsck -n $f"
	run "$E4R" check -n $f j.img
	expect_rc "$ref" "check -n $f exits like e2fsck -n $f"
	expect_out "skipping journal recovery because doing a read-only filesystem check" "check -n $f says it"
done
[ "$(sha j.img)" = "$sum" ] || fail "check -n wrote to an image that needs recovery"

# An invalid journal superblock is an error even for a read-only check: e2fsck -n
# cannot proceed past the journal it leaves (12), and check exits the same.
jsb=$(jblock_offset base.img 0)
cp base.img badj.img
flip badj.img "$jsb" 0
run e2fsck -fn badj.img
expect_rc 12 "oracle: e2fsck -fn cannot proceed with a journal superblock without magic"
expect_out "Superblock has an invalid journal \(inode 8\)" "oracle names the journal"
run "$E4R" check -n -f badj.img
expect_rc 12 "check -n -f with a broken journal superblock"
expect_out "the journal \(inode 8\) is invalid: journal superblock has no JBD2 magic" "check names the journal"

# A journal superblock without magic: the journal goes, and comes back new once the
# filesystem is clean, as e2fsck -fy makes it again ("journal has been regenerated").
cp badj.img be.img
e2fsck -fy be.img >/dev/null 2>&1
dumpe2fs -h be.img 2>/dev/null | grep -q 'has_journal' || fail "oracle: e2fsck -fy left no journal"
repaired_image badj.img "a journal superblock without magic" 12
echo "$YOUT" | grep -q "the journal, removed by the repairs, has been made anew" ||
	fail "check -y -f does not say that it made the journal anew"
dumpe2fs -h badj.img 2>/dev/null | grep -q 'has_journal' || fail "check -y -f left no journal"

# The same with needs_recovery set: the replay cannot load the journal, and a repairing
# check is not a read-only one (e2fsck -fy does not say it skips the replay).
cp base.img badjr.img
flip badjr.img "$jsb" 0
debugfs -w -R "feature needs_recovery" badjr.img >/dev/null 2>&1
dumpe2fs -h badjr.img 2>/dev/null | grep -q needs_recovery || fail "the image does not need recovery"
cp badjr.img badjr-ref.img
run e2fsck -fy badjr-ref.img
expect_out "Superblock has an invalid journal \(inode 8\)" "oracle: e2fsck -fy names the journal"
expect_no_out "skipping journal recovery" "oracle: e2fsck -fy does not skip a replay"
run e2fsck -fn badjr.img
[ "$RC" -ne 0 ] || fail "oracle: e2fsck -fn accepts a journal superblock without magic"
run "$E4R" check -y -f badjr.img
expect_rc 1 "check -y -f with a broken journal superblock and needs_recovery"
expect_out "the journal \(inode 8\) is invalid" "check -y -f names the journal"
expect_no_out "skipping journal recovery" "check -y -f does not say it skips the replay"
both_clean badjr.img "a broken journal superblock with needs_recovery, after check -y -f"

# jsb_set IMAGE FIELD-OFFSET HEX: write big-endian bytes into the journal superblock and
# seal it again (crc32c over the 1024 bytes, the checksum field zeroed, as JBD2 v3 does).
jsb_set() {
	python3 - "$1" "$(jblock_offset "$1" 0)" "$2" "$3" <<'PY'
import sys
img, base, off, val = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), bytes.fromhex(sys.argv[4])
def crc32c(data, crc=0xffffffff):
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82f63b78 if crc & 1 else 0)
    return crc
with open(img, "r+b") as f:
    f.seek(base)
    sb = bytearray(f.read(1024))
    sb[off:off + len(val)] = val
    if int.from_bytes(sb[0x28:0x2c], "big") & 0x18:
        sb[0xfc:0x100] = bytes(4)
        sb[0xfc:0x100] = crc32c(bytes(sb)).to_bytes(4, "big")
    f.seek(base)
    f.write(sb)
PY
}
# The journal recorded an error (s_errno): e2fsck -y takes it into the superblock's
# state and zeroes it without a question, checks, and exits 0 (-n tries the same and
# fails to write: its exit then depends on what the failed write left in its cache, 0
# here, 9 on other images). check -n names it and stays clean (exit 0); check -y
# clears it and exits 0 too; both check without -f, as the error forces the check.
cp base.img t.img
jsb_set t.img 32 fffffffb
run e2fsck -fn t.img
jbs=$(dumpe2fs -h base.img 2>/dev/null | sed -n 's/^Block size: *//p')
expect_out "Error writing block $(( $(jblock_offset base.img 0) / jbs ))" "oracle: e2fsck -n tries to clear the error"
cp t.img e2.img
run e2fsck -fy e2.img
expect_rc 0 "oracle: e2fsck -fy clears the journal's error without counting it"
run "$E4R" check -n -f t.img
expect_rc 0 "check -n -f with an error recorded in the journal"
expect_out "the journal \(inode 8\) records error 4294967291" "check names the recorded error"
run "$E4R" check -n t.img
expect_out "check forced" "the recorded error forces the check"
run "$E4R" check -y t.img
expect_rc 0 "check -y clears the journal's error without counting it, as e2fsck -y"
expect_out "check forced" "the recorded error forces the check (-y)"
run e2fsck -fn t.img
expect_rc 0 "oracle: e2fsck -fn after check -y on the journal's error"
expect_no_out "Error writing" "oracle: nothing left for e2fsck -n to clear"
run "$E4R" check -n -f t.img
expect_rc 0 "check -n -f after check -y on the journal's error"
expect_no_out "records error" "the error is gone from the journal"
# More than one user of an internal journal: fields left from a v1 superblock, cleared.
cp base.img t.img
jsb_set t.img 64 00000002
run e2fsck -fn t.img
expect_out "Found invalid V2 journal superblock fields" "oracle: e2fsck sees the v2 fields"
run "$E4R" check -n -f t.img
expect_out "superblock says 2 users" "check names the users"
repaired_image t.img "two users of an internal journal" 12
# A journal superblock whose checksum fails (a feature bit flipped, not sealed again):
# e2fsck calls it corrupt and makes a new superblock; check -y -f must keep the journal
# too (clearing it left an orphan file without a journal, which e2fsck then rejects).
if dumpe2fs -h base.img 2>/dev/null | grep -q 'Journal checksum type'; then
	cp base.img t.img
	python3 - t.img "$jsb" <<'PY' || fail "flipping a journal feature bit"
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2]) + 0x2b)
    b = f.read(1)[0] ^ 0x1
    f.seek(int(sys.argv[2]) + 0x2b)
    f.write(bytes([b]))
PY
	run e2fsck -fn t.img
	expect_out "Journal superblock is corrupt" "oracle: e2fsck -fn on a journal superblock checksum"
	run "$E4R" check -n -f t.img
	expect_out "the journal superblock checksum does not match" "check names the checksum"
	repaired_image t.img "a journal superblock checksum"
	dumpe2fs -h t.img 2>/dev/null | grep -q 'has_journal' || fail "check -y -f removed the journal"
	debugfs -R "logdump" t.img 2>&1 | grep -q "Journal starts at block" ||
		fail "debugfs does not read the journal after check -y -f"
	# The same with a log to replay (s_start set): e2fsck -fy replays nothing from a
	# journal whose superblock fails its checksum; it makes the superblock anew and
	# checks. check -y -f under the stop policy must not stop there (it did, exit 8).
	cp t.img s.img
	python3 - s.img "$jsb" <<'PY' || fail "setting s_start"
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2]) + 0x1c)
    f.write((1).to_bytes(4, "big"))
    f.seek(int(sys.argv[2]) + 0x2b)
    b = f.read(1)[0] ^ 0x1
    f.seek(int(sys.argv[2]) + 0x2b)
    f.write(bytes([b]))
PY
	cp s.img s-e2.img
	run e2fsck -fy s-e2.img
	expect_rc 1 "oracle: e2fsck -fy makes a corrupt journal superblock with a log anew"
	repaired_image s.img "a journal superblock checksum, with a log to replay"
fi

# A journal inode number of 0 (no UUID): cleared and made anew, as e2fsck does. The
# journal made anew leaves nothing stale for the round that checks it (it once left the
# superblock's and the block bitmap's checksums to be fixed once more).
cp base.img t.img
debugfs -w -R "ssv journal_inum 0" t.img >/dev/null 2>&1 || fail "debugfs ssv journal_inum"
repaired_image t.img "a journal inode number of 0" 12
echo "$YOUT" | grep -q "the journal, removed by the repairs, has been made anew" ||
	fail "check -y -f does not make the journal anew"
cp base.img t.img
debugfs -w -R "ssv journal_inum 0" t.img >/dev/null 2>&1
"$E4R" check -y -f --json t.img > t.json 2>/dev/null
python3 - t.json <<'PY' || fail "a finding after the journal was made anew"
import json, sys
d = json.load(open(sys.argv[1]))
last = max(f.get("round", 0) for f in d["findings"] if f["problem"] == "journal_bad")
late = [f["problem"] for f in d["findings"] if f.get("round", 0) > last + 1]
sys.exit("found after the journal was made anew: %s" % late if late else 0)
PY
exit 0
