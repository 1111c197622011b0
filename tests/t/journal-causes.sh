# Every journal fault is named by its true cause, the same by diagnose, logdump --diagnose,
# replay --dry-run and check -n: a revoke count past the block, a descriptor whose tags run
# past the block, a malformed commit header, a stored checksum all ones, one all zeros, a
# logged block holding another logged block's content, a block torn at a sector boundary,
# and flipped bits. Each journal is written by debugfs and damaged here; the oracle is the
# damage we made (read back), and debugfs or e2fsck seeing it where they can.
. "$E4R_TESTS_SRCDIR/lib.sh"

seeded_bytes data 65536 > data
seeded_bytes junk 4096 > junk

# poke IMAGE JBLK BYTE HEX: write the bytes HEX at BYTE of journal block JBLK.
poke() {
	python3 -c '
import sys
p, off, val = sys.argv[1], int(sys.argv[2]), bytes.fromhex(sys.argv[3])
with open(p, "r+b") as f:
    f.seek(off); f.write(val)' "$1" $(( $(jblock_offset "$1" "$2") + $3 )) "$4"
}
# peek IMAGE JBLK BYTE COUNT: those bytes, in hex.
peek() {
	python3 -c '
import sys
with open(sys.argv[1], "rb") as f:
    f.seek(int(sys.argv[2])); print(f.read(int(sys.argv[3])).hex())' "$1" $(( $(jblock_offset "$1" "$2") + $3 )) "$4"
}

# The causes a document names, one a line: KIND is the subcommand that made it.
causes() { # JSON-FILE KIND
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
fs = {"diagnose": lambda: d["findings"], "logdump": lambda: d["diagnosis"],
      "replay": lambda: d["causes"], "check": lambda: d["journal"]["checksum_failures"]}[sys.argv[2]]()
for f in fs:
    print(f["cause"])' "$1" "$2"
}

# named CASE IMAGE CAUSE TEXT: each of the four names CAUSE (JSON) and TEXT (the words);
# diagnose exits 1 and check -n 4; none of them changes the image.
named() {
	local c=$1 img=$2 cause=$3 text=$4 before rc k
	before=$(sha "$img")
	"$E4R" diagnose --json "$img" > $c.diagnose.json 2>/dev/null; rc=$?
	[ $rc -eq 1 ] || fail "$c: diagnose --json exits $rc, expected 1"
	"$E4R" logdump --diagnose --json "$img" > $c.logdump.json 2>/dev/null; rc=$?
	[ $rc -le 1 ] || fail "$c: logdump --diagnose --json exits $rc"
	"$E4R" replay --dry-run --json "$img" > $c.replay.json 2>/dev/null
	"$E4R" check -n --json "$img" > $c.check.json 2>/dev/null; rc=$?
	[ $rc -eq 4 ] || fail "$c: check -n --json exits $rc, expected 4"
	for k in diagnose logdump replay check; do
		causes $c.$k.json $k > $c.$k.causes || fail "$c: $k's document"
		grep -qx "$cause" $c.$k.causes || fail "$c: $k names $(tr '\n' ' ' < $c.$k.causes), not $cause"
	done
	run "$E4R" diagnose "$img"
	expect_rc 1 "$c: diagnose"
	expect_out "cause: $text" "$c: diagnose says it in words"
	run "$E4R" logdump --diagnose "$img"
	expect_out "cause: $text" "$c: logdump --diagnose says it in words"
	run "$E4R" replay --dry-run "$img"
	expect_out "journal fault: transaction .*cause: $text" "$c: replay --dry-run says it in words"
	run "$E4R" check -n "$img"
	expect_rc 4 "$c: check -n leaves the journal's fault"
	expect_out "^Journal transaction .*cause: $text" "$c: check -n says it in words"
	[ "$(sha "$img")" = "$before" ] || fail "$c: a read-only command changed the image"
}

# What auto does with the case's finding of CAUSE (diagnose's document).
action_of() { # CASE CAUSE
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1] + ".diagnose.json"))
print(" ".join(f["action"] for f in d["findings"] if f["cause"] == sys.argv[2]))' "$1" "$2"
}

# A journal of two transactions (1 KiB blocks): T1 = descriptor 1, data 2-4 (fs blocks
# 100-102), commit 5; T2 = descriptor 6, data 7-8 (fs blocks 200-201), commit 9.
build() { # IMAGE MKE2FS-OPTS JO-COMMAND
	mkimg "$1" 16M $2
	jwrite "$1" "$3" "jw -b 100,101,102 $PWD/data" "jc" "$3" "jw -b 200,201 $PWD/data" "jc"
	debugfs -R "logdump" "$1" 2>&1 | grep -q "type 2 (commit block) at block 9" ||
		fail "$1: unexpected journal layout from debugfs"
}
build v3.img "-O metadata_csum" "jo -c"
build v1.img "-O ^metadata_csum" "jo -c -v 1"
build none.img "-O ^metadata_csum" "jo"

# The control: a sound journal that needs recovery is no fault. check -n agrees with
# e2fsck -fn (0); on a damaged one e2fsck -n skips the journal and says nothing of it
# (still 0), where check -n names the fault and exits 4 (below).
for i in v3 v1 none; do
	run "$E4R" check -n -f $i.img
	expect_rc 0 "$i: check -n on a sound journal"
	expect_no_out "cause:" "$i: check -n names no fault in a sound journal"
	run e2fsck -fn $i.img
	expect_rc 0 "oracle: e2fsck -fn on $i"
	run "$E4R" diagnose $i.img
	expect_rc 0 "$i: diagnose on a sound journal"
done

e2fsck_says() { # IMAGE: e2fsck's replay of a copy
	cp "$1" oracle.img
	e2fsck -E journal_only -y oracle.img 2>&1
}

# ---- revoke record count too large (no checksums: nothing else can fail) ----
mkimg rv.img 8M -O ^metadata_csum
jwrite rv.img "jo" "jw -b 5000,5001 $PWD/data" "jc" "jo" "jw -b 5010 -r 5000 $PWD/data" "jc"
run "$E4R" logdump --json rv.img
rjblk=$(printf '%s\n' "$OUT" | python3 -c 'import json, sys
print([t for t in json.load(sys.stdin)["transactions"] if t["revoke_blocks"]][0]["revoke_blocks"][0]["journal_block"])') ||
	fail "no revoke block in the log"
poke rv.img "$rjblk" 12 0000ffff
[ "$(peek rv.img "$rjblk" 12 4)" = 0000ffff ] || fail "revoke count: the damage did not land"
cp rv.img rv.oracle.img
run e2fsck -fy rv.oracle.img
expect_out "while recovering journal" "oracle: e2fsck refuses to recover the log"
named revoke rv.img revoke_count "revoke block's record count is larger than the block"

# ---- a descriptor whose tags run past the block (its last tag lost its LAST_TAG flag) ----
cp none.img dt.img
python3 - dt.img $(jblock_offset dt.img 1) <<'PY' || fail "descriptor tags: no last tag to clear"
import sys
# 1 KiB blocks, no checksums, 64bit: 12-byte tags; the first is followed by the 16-byte UUID
p, off = sys.argv[1], int(sys.argv[2])
with open(p, "r+b") as f:
    f.seek(off); b = bytearray(f.read(1024))
    o = 12
    while o + 12 <= 1024:
        flags = int.from_bytes(b[o + 6:o + 8], "big")
        if flags & 8:
            b[o + 7] &= ~8
            break
        o += 12 + (0 if flags & 2 else 16)
    else:
        sys.exit(1)
    f.seek(off); f.write(b)
PY
debugfs -R "logdump" dt.img 2>&1 | grep -q "commit block) at block 5" &&
	fail "oracle: debugfs still finds transaction 1's commit"
named desctags dt.img descriptor_tags "descriptor's tags run past the block"
[ "$(python3 -c 'import json; d = json.load(open("desctags.diagnose.json"))
print([f["evidence"]["descriptor_tags"]["claimed_journal_block"] for f in d["findings"]
       if f["cause"] == "descriptor_tags"][0])')" = 5 ] ||
	fail "descriptor tags: the tag that claims the commit block (journal block 5) is not named"
run "$E4R" logdump dt.img
expect_out "descriptor block 1: [0-9]+ tags, NONE MARKED THE LAST" "descriptor tags: logdump marks the descriptor"
# e2fsck replays none of it either: the home blocks keep what they held.
e2fsck_says dt.img >/dev/null
for b in 100 101 102; do
	dd if=oracle.img bs=1024 skip=$b count=1 2>/dev/null | cmp -s - <(dd if=data bs=1024 skip=$((b - 100)) count=1 2>/dev/null) &&
		fail "oracle: e2fsck replayed fs block $b of a transaction without a commit"
done

# ---- a malformed commit header: v1, checksum type 0x55 (three bits from crc32's 1) ----
cp v1.img ch.img
poke ch.img 9 12 55
[ "$(peek ch.img 9 12 2)" = 5504 ] || fail "commit header: the damage did not land"
e2fsck_says ch.img | grep -q "transaction 2 was corrupt" || fail "oracle: e2fsck does not see the bad commit"
named header ch.img commit_header "malformed commit header"
python3 -c 'import json; d = json.load(open("header.diagnose.json"))
f = [f for f in d["findings"] if f["cause"] == "commit_header"][0]
assert f["evidence"]["commit_header"] == {"checksum_type": 0x55, "checksum_size": 4}, f
assert not f["search"]["candidates"], f' || fail "commit header: evidence or flips offered"
run "$E4R" logdump ch.img
expect_out "HEADER MALFORMED \(type 85 size 4\)" "commit header: logdump marks the commit block"

# ---- a stored checksum all ones: the v3 commit block's ----
cp v3.img ones.img
poke ones.img 9 16 ffffffff
e2fsck_says ones.img | grep -q "transaction 2 was corrupt" || fail "oracle: e2fsck does not see the bad commit"
named ones ones.img filled "overwritten with all ones or all zeros, not flipped"
python3 -c 'import json; d = json.load(open("ones.diagnose.json"))
f = [f for f in d["findings"] if f["cause"] == "filled"][0]
assert f["evidence"]["filled"] == {"field": "stored_checksum", "with": "ones"}, f
assert f["csum_stored"] == 0xffffffff and not f["search"]["candidates"], f' ||
	fail "all ones: evidence, or flips offered for an overwritten field"
run "$E4R" diagnose ones.img
expect_no_out "candidate" "all ones: no flip candidate is offered"
python3 -c 'import json; d = json.load(open("ones.replay.json"))
assert [(x["failure"], x["decision"], x["cause"]) for x in d["decisions"]] == \
       [("commit_checksum", "refused", "filled")], d["decisions"]' ||
	fail "all ones: replay does not refuse the commit for its cause"

# ---- a stored checksum all zeros: T1's descriptor tail (v3) ----
cp v3.img zeros.img
poke zeros.img 1 1020 00000000
e2fsck_says zeros.img | grep -q "checksum error" || fail "oracle: e2fsck does not see the bad descriptor"
named zeros zeros.img filled "overwritten with all ones or all zeros, not flipped"
python3 -c 'import json; d = json.load(open("zeros.diagnose.json"))
f = [f for f in d["findings"] if f["cause"] == "filled"][0]
assert f["object"] == "descriptor" and f["evidence"]["filled"]["with"] == "zeros", f' ||
	fail "all zeros: the descriptor's tail is not named"

# ---- a whole block all zeros: T2's copy of fs block 200 (journal block 7) ----
cp v3.img zblk.img
dd if=/dev/zero of=zblk.img bs=1024 count=1 seek=$(( $(jblock_offset zblk.img 7) / 1024 )) conv=notrunc 2>/dev/null
e2fsck_says zblk.img | grep -q "checksum error" || fail "oracle: e2fsck does not see the zeroed block"
named zblock zblk.img filled "overwritten with all ones or all zeros, not flipped"
python3 -c 'import json; d = json.load(open("zblock.diagnose.json"))
f = [f for f in d["findings"] if f["cause"] == "filled"][0]
assert f["journal_block"] == 7 and f["evidence"]["filled"] == {"field": "block", "with": "zeros"}, f' ||
	fail "zeroed block: not named"

# ---- a misdirected write: T1's copy of fs block 101 (journal block 3) holds block 100's ----
cp v3.img mis.img
dd if=mis.img of=copy bs=1 skip=$(jblock_offset mis.img 2) count=1024 2>/dev/null
dd if=copy of=mis.img bs=1 seek=$(jblock_offset mis.img 3) conv=notrunc 2>/dev/null
e2fsck_says mis.img | grep -q "checksum error" || fail "oracle: e2fsck does not see the bad block"
named misdirected mis.img misdirected_write "misdirected or stale write"
python3 -c 'import json; d = json.load(open("misdirected.diagnose.json"))
f = [f for f in d["findings"] if f["cause"] == "misdirected_write"][0]
m = f["evidence"]["matches"]
assert f["journal_block"] == 3 and f["fs_block"] == 101, f
assert m == {"kind": "logged_copy", "journal_block": 2, "sequence": 1, "fs_block": 100}, m' ||
	fail "misdirected: not matched with the block we copied"
[ "$(action_of misdirected misdirected_write)" = stop ] || fail "misdirected: auto must not replay it"
# ... and one that holds the home block of another tag: fs block 102 (a reserved GDT block
# with a few entries) written where T1's copy of fs block 101 belongs
cp v3.img mishome.img
dd if=mishome.img bs=1024 skip=102 count=1 2>/dev/null | od -An -tx1 | sort -u | [ "$(wc -l)" -gt 1 ] ||
	fail "misdirected home: fs block 102 is one byte repeated"
dd if=mishome.img of=home102 bs=1024 skip=102 count=1 2>/dev/null
dd if=home102 of=mishome.img bs=1 seek=$(jblock_offset mishome.img 3) conv=notrunc 2>/dev/null
e2fsck_says mishome.img | grep -q "checksum error" || fail "oracle: e2fsck does not see the bad block"
named mishome mishome.img misdirected_write "misdirected or stale write"
python3 -c 'import json; d = json.load(open("mishome.diagnose.json"))
m = [f for f in d["findings"] if f["cause"] == "misdirected_write"][0]["evidence"]["matches"]
assert m == {"kind": "home_block", "journal_block": None, "sequence": 1, "fs_block": 102}, m' ||
	fail "misdirected home: not matched with fs block 102"

# ---- a torn write (4 KiB blocks, 8 sectors): T2's copy of fs block 100 is T1's (the same
# content) up to sector 5, other bytes after it ----
mkimg torn.img 32M -b 4096 -O metadata_csum
jwrite torn.img "jo -c" "jw -b 100 $PWD/data" "jc" "jo -c" "jw -b 100 $PWD/data" "jc"
debugfs -R "logdump" torn.img 2>&1 | grep -q "type 2 (commit block) at block 6" ||
	fail "torn: unexpected journal layout from debugfs"
cmp -s <(dd if=torn.img bs=4096 skip=$(( $(jblock_offset torn.img 2) / 4096 )) count=1 2>/dev/null) \
	<(dd if=torn.img bs=4096 skip=$(( $(jblock_offset torn.img 5) / 4096 )) count=1 2>/dev/null) ||
	fail "torn: the two copies of fs block 100 differ"
dd if=junk of=torn.img bs=1 count=1536 seek=$(( $(jblock_offset torn.img 5) + 5 * 512 )) conv=notrunc 2>/dev/null
e2fsck_says torn.img | grep -q "checksum error" || fail "oracle: e2fsck does not see the torn block"
named torn torn.img torn_write "torn write"
python3 -c 'import json; d = json.load(open("torn.diagnose.json"))
f = [f for f in d["findings"] if f["cause"] == "torn_write"][0]
t = f["evidence"]["torn"]
assert f["journal_block"] == 5 and t["sector"] == 5 and t["sectors"] == 8 and t["intended_first"], t
assert t["intended"]["journal_block"] == 2 and t["intended"]["sequence"] == 1, t' ||
	fail "torn: not torn at sector 5 against T1's copy"
run "$E4R" diagnose torn.img
expect_out "torn at sector 5 of 8" "torn: the sector is named"
run e2fsck -fn torn.img
expect_rc 0 "oracle: e2fsck -fn skips the journal and finds the filesystem clean"
# The other way round: sectors 0-2 other bytes, the intended content from sector 3 on.
cp torn.img torn2.img
dd if=torn.img of=torn2.img bs=4096 count=1 skip=$(( $(jblock_offset torn.img 2) / 4096 )) \
	seek=$(( $(jblock_offset torn.img 5) / 4096 )) conv=notrunc 2>/dev/null
dd if=junk of=torn2.img bs=1 count=1536 seek=$(jblock_offset torn2.img 5) conv=notrunc 2>/dev/null
named torn2 torn2.img torn_write "torn write"
python3 -c 'import json; d = json.load(open("torn2.diagnose.json"))
t = [f for f in d["findings"] if f["cause"] == "torn_write"][0]["evidence"]["torn"]
assert t["sector"] == 3 and not t["intended_first"], t' || fail "torn the other way: not at sector 3"

# ---- one cause, not two: two bits in T2's commit block past its header. Only the header
# checks out (a torn commit block), and a pair of bits fits too: the torn commit is the
# cause, the fit is not offered, and check does not call it proven ----
cp v3.img tc.img
flip tc.img $(( $(jblock_offset tc.img 9) + 300 )) 3
flip tc.img $(( $(jblock_offset tc.img 9) + 700 )) 5
e2fsck_says tc.img | grep -q "transaction 2 was corrupt" || fail "oracle: e2fsck does not see the bad commit"
named torncommit tc.img torn_commit "torn commit"
python3 -c 'import json; d = json.load(open("torncommit.diagnose.json"))
f = [f for f in d["findings"] if f["cause"] == "torn_commit"][0]
assert f["evidence"]["partial_commit"] and not f["search"]["candidates"] and not f["search"]["proven"], f
assert f["action"] == "stop", f' || fail "torn commit: the fit is still offered, or auto replays it"
cp tc.img tc-y.img
run "$E4R" check -y -f tc-y.img
expect_out "cause: torn commit.*; policy auto" "torn commit: check tells the cause"
expect_no_out "\(proven\)" "torn commit: check calls nothing proven"

# ---- flipped bits: one bit of T1's copy of fs block 101, proven ----
cp v3.img flip.img
flip flip.img $(( $(jblock_offset flip.img 3) + 517 )) 6
e2fsck_says flip.img | grep -q "checksum error" || fail "oracle: e2fsck does not see the flipped bit"
named flip flip.img bit_flip "flipped bits"
[ "$(action_of flip bit_flip)" = replay_corrected ] || fail "flip: a proven flip is corrected"
exit 0
