# Torn commits, built by hand on a v3 journal: (a) a commit block whose first sector
# reached the disk and whose second did not (old bytes there): only the 60-byte header
# checks out, the kernel's "partial commit" test; (b) with async commit, the last
# transaction's data block never written (old bytes in its place). diagnose names a torn
# commit with that evidence and stops there; e2fsck confirms the journal is damaged.
. "$E4R_TESTS_SRCDIR/lib.sh"

seeded_bytes data 65536 > data
# T1 = descriptor 1, data 2-4, commit 5; T2 = descriptor 6, data 7-8, commit 9.
mkimg v3.img 16M -O metadata_csum
jwrite v3.img "jo -c" "jw -b 100,101,102 $PWD/data" "jc" "jo -c" "jw -b 200,201 $PWD/data" "jc"
debugfs -R "logdump" v3.img 2>&1 | grep -q "type 2 (commit block) at block 9" ||
	fail "unexpected journal layout from debugfs"

# overwrite IMAGE JBLK OFFSET COUNT: COUNT bytes of old-looking garbage at OFFSET of a journal block.
overwrite() {
	seeded_bytes "overwrite-$2-$3-$4" "$4" | dd of="$1" bs=1 seek=$(( $(jblock_offset "$1" "$2") + $3 )) conv=notrunc 2>/dev/null
}
finding() { # JSON EXPR over f = the finding for transaction 2
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); f=[x for x in d["findings"] if x["sequence"] == 2]
f=f[0] if len(f) == 1 else None
print(eval(sys.argv[2]))' "$1" "$2"
}

# (a) the commit block's second 512-byte sector is old data.
cp v3.img partial.img
overwrite partial.img 9 512 512
run "$E4R" diagnose --json partial.img
expect_rc 1 "a torn commit is a problem"
printf '%s\n' "$OUT" > partial.json
[ "$(finding partial.json '(f["object"], f["cause"], f["evidence"]["partial_commit"], f["action"])')" = \
  "('commit', 'torn_commit', True, 'stop')" ] || fail "partial commit: not named a torn commit with its evidence"
cp partial.img oracle.img
e2fsck -E journal_only -y oracle.img 2>&1 | grep -q "transaction 2 was corrupt" ||
	fail "e2fsck does not see the torn commit block"

# (b) async commit: set the journal's ASYNC_COMMIT flag (and its superblock checksum),
# then make T2's data block 8 old bytes.
cp v3.img async.img
python3 - async.img "$(jblock_offset async.img 0)" <<'PYEOF'
import sys
def crc32c(crc, data):      # Linux semantics: reflected Castagnoli, no final inversion
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc
path, off = sys.argv[1], int(sys.argv[2])
with open(path, "r+b") as f:
    f.seek(off); sb = bytearray(f.read(1024))
    incompat = int.from_bytes(sb[0x28:0x2C], "big") | 0x4
    sb[0x28:0x2C] = incompat.to_bytes(4, "big")
    sb[0xFC:0x100] = bytes(4)
    sb[0xFC:0x100] = crc32c(0xFFFFFFFF, sb).to_bytes(4, "big")
    f.seek(off); f.write(sb)
PYEOF
dumpe2fs -h async.img 2>/dev/null | grep -q "journal_async_commit" || fail "dumpe2fs does not see the async commit flag"
overwrite async.img 8 0 1024
run "$E4R" diagnose --json async.img
expect_rc 1 "an unfinished async commit is a problem"
printf '%s\n' "$OUT" > async.json
[ "$(finding async.json '(f["object"], f["journal_block"], f["cause"], f["action"])')" = \
  "('data', 8, 'torn_commit', 'stop')" ] || fail "async: not named a torn commit"
[ "$(finding async.json '(f["evidence"]["async_commit"], f["evidence"]["last_commit"], f["evidence"]["bad_tags"])')" = \
  "(True, True, 1)" ] || fail "async: the evidence is missing"
cp async.img oracle.img
e2fsck -E journal_only -y oracle.img 2>&1 | grep -q "checksum error" || fail "e2fsck does not see the unwritten block"
exit 0
