# The unjournaled-modification signature (the 2012 ext4 inode-bitmap bug), built by hand:
# transaction 1 logs the inode bitmap with inodes 12-13 newly set, its checksum over that;
# then inodes 14 (and 16) leak into the logged copy from transaction 2, which logs the
# bitmap with 14-16 set. diagnose must name exactly the leaked bits and transaction 2, prove
# it (clearing them makes the checksum match), and call the leak benign; e2fsck sees a
# checksum error (v3) or a corrupt transaction (v1).
. "$E4R_TESTS_SRCDIR/lib.sh"

# leak IMAGE MKE2FS-OPTS JO-COMMAND LEAKED-BITS: build the journal, then write the leak;
# sets IB to the inode bitmap's block.
leak() {
	local img=$1 ib
	mkimg "$img" 16M $2
	ib=$(dumpe2fs "$img" 2>/dev/null | sed -n 's/.*Inode bitmap at \([0-9]*\).*/\1/p' | head -n 1)
	[ -n "$ib" ] || fail "$img: no inode bitmap in dumpe2fs"
	dd if="$img" of=home.bin bs=1024 skip="$ib" count=1 2>/dev/null
	python3 - "$4" <<'PYEOF'
import sys
home = bytearray(open("home.bin", "rb").read())
def with_bits(b, bits):
    b = bytearray(b)
    for i in bits:
        b[i // 8] |= 1 << (i % 8)
    return b
leaked = [int(x) for x in sys.argv[1].split(",")]
assert all(not home[i // 8] >> (i % 8) & 1 for i in [11, 12, 13, 14, 15]), "inodes 12-16 already used"
t1 = with_bits(home, [11, 12])
open("t1.bin", "wb").write(t1)
open("t1leak.bin", "wb").write(with_bits(t1, leaked))
open("t2.bin", "wb").write(with_bits(t1, [13, 14, 15]))
PYEOF
	jwrite "$img" "$3" "jw -b $ib $PWD/t1.bin" "jc" "$3" "jw -b $ib $PWD/t2.bin" "jc"
	debugfs -R "logdump -a" "$img" 2>&1 | grep -q "FS block $ib logged at journal block 2 " ||
		fail "$img: unexpected journal layout from debugfs"
	dd if=t1leak.bin of="$img" bs=1 seek="$(jblock_offset "$img" 2)" conv=notrunc 2>/dev/null
	IB=$ib
}

check_leak() { # IMAGE BITMAP-BLOCK EXPECTED-INODES
	run "$E4R" diagnose --json "$1"
	expect_rc 1 "$1: a leak is a problem found"
	printf '%s\n' "$OUT" > "$1.json"
	python3 - "$1.json" "$2" "$3" <<'PYEOF' || fail "$1: the leak is named exactly"
import json, sys
d = json.load(open(sys.argv[1]))
ib, want = int(sys.argv[2]), [int(x) for x in sys.argv[3].split(",")]
f = [x for x in d["findings"] if x["sequence"] == 1]
assert len(f) == 1, d["findings"]
f = f[0]
assert f["cause"] == "unjournaled_modification", f["cause"]
assert f["fs_block"] == ib and f["kind"] == "inode_bitmap", (f["fs_block"], f["kind"])
got = [(b["inode"], b["set_by"]) for b in f["evidence"]["leak"]["bits"]]
assert got == [(i, 2) for i in want], got
assert f["action"] == "replay_as_is_benign_leak", f["action"]
assert f["evidence"]["leak"]["before_from_home"] is True
PYEOF
}

leak v3.img "-O metadata_csum" "jo -c" 13
check_leak v3.img "$IB" 14
cp v3.img oracle.img
e2fsck -E journal_only -y oracle.img 2>&1 | grep -q "checksum error" || fail "e2fsck does not see the v3 leak"

# logdump --diagnose shows the same findings as diagnose.
run "$E4R" logdump --json --diagnose v3.img
expect_rc 1 "logdump: a bad checksum"
printf '%s\n' "$OUT" > v3-logdump.json
python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["diagnosis"]; b=json.load(open(sys.argv[2]))["findings"]; sys.exit(0 if a == b else 1)' \
	v3-logdump.json v3.img.json || fail "logdump --diagnose differs from diagnose"

# Two leaked inodes (14 and 16): no single flip explains it, the leak does.
leak v3b.img "-O metadata_csum" "jo -c" 13,15
check_leak v3b.img "$IB" 14,16

leak v1.img "-O ^metadata_csum" "jo -c -v 1" 13,15
check_leak v1.img "$IB" 14,16
cp v1.img oracle.img
e2fsck -E journal_only -y oracle.img 2>&1 | grep -q "transaction 1 was corrupt" || fail "e2fsck does not see the v1 leak"

# A flip in the same bitmap at a bit no later transaction sets is a flip, not a leak.
cp v3.img flip.img
dd if=t1.bin of=flip.img bs=1 seek="$(jblock_offset flip.img 2)" conv=notrunc 2>/dev/null
flip flip.img $(( $(jblock_offset flip.img 2) + 100 )) 2
run "$E4R" diagnose --json flip.img
printf '%s\n' "$OUT" > flip.json
python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["findings"][0]; sys.exit(0 if f["cause"] == "bit_flip" and f["action"] == "replay_corrected" else 1)' flip.json ||
	fail "a flip in a bitmap that no later transaction explains is a bit flip"
exit 0
