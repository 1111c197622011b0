# diagnose locates flipped bits in journals written by debugfs (v3, v2, v1): one bit
# and two bits in a data block, the commit block, a descriptor tail, a stored tag
# checksum; the oracle is the flip we made, and e2fsck confirms each journal is damaged.
. "$E4R_TESTS_SRCDIR/lib.sh"

seeded_bytes data 65536 > data
# Journal layout (1 KiB blocks): T1 = descriptor 1, data 2-4, commit 5;
# T2 = descriptor 6, data 7-8, commit 9.
build() { # IMAGE MKE2FS-OPTS JO-COMMAND
	mkimg "$1" 16M $2
	jwrite "$1" "$3" "jw -b 100,101,102 $PWD/data" "jc" "$3" "jw -b 200,201 $PWD/data" "jc"
}
build v3.img "-O metadata_csum" "jo -c"
build v2.img "" "jo -c -v 2"
build v1.img "-O ^metadata_csum" "jo -c -v 1"
for i in v3 v2 v1; do
	debugfs -R "logdump" $i.img 2>&1 | grep -q "type 2 (commit block) at block 9" ||
		fail "$i: unexpected journal layout from debugfs"
done

# What the first finding says: a python expression over the document d and f = d["findings"][0].
field() { # JSON-FILE EXPR
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); f=d["findings"][0] if d["findings"] else None
print(eval(sys.argv[2]))' "$1" "$2"
}
expect_field() { # CASE EXPR EXPECTED
	local got
	got=$(field "$1.json" "$2")
	[ "$got" = "$3" ] || fail "$1: $2 is $got, expected $3"
}
# Every flip of every candidate, as "jblk:byte:bit:place" joined by spaces.
CANDS='" | ".join(" ".join("%d:%d:%d:%s" % (x["journal_block"], x["byte"], x["bit"], x["place"]) for x in c["flips"]) for c in f["search"]["candidates"])'

# damage CASE BASE-IMAGE "JBLK BYTE BIT" ...: copy, flip the bits, run diagnose --json (must exit 1).
damage() {
	local c=$1 base=$2; shift 2
	cp "$base" "$c.img"
	for spec in "$@"; do
		set -- $spec
		flip "$c.img" $(( $(jblock_offset "$c.img" "$1") + $2 )) "$3"
	done
	run "$E4R" diagnose --json "$c.img"
	printf '%s\n' "$OUT" > "$c.json"
	python3 -m json.tool "$c.json" >/dev/null || fail "$c: JSON does not parse"
	expect_rc 1 "$c: a damaged journal means exit 1"
}

e2fsck_says() { # IMAGE
	cp "$1" oracle.img
	e2fsck -E journal_only -y oracle.img 2>&1
}

# Intact journals: nothing to say.
for i in v3 v2 v1; do
	run "$E4R" diagnose $i.img
	expect_rc 0 "$i: intact journal"
	expect_out "every journal checksum matches" "$i: says so"
done

# v3, one bit in a data block (journal block 3 = fs block 101).
damage d1 v3.img "3 517 6"
expect_field d1 'len(d["findings"])' 1
expect_field d1 'f["object"], f["journal_block"], f["fs_block"], f["cause"]' "('data', 3, 101, 'bit_flip')"
expect_field d1 "$CANDS" "3:517:6:content"
expect_field d1 'f["search"]["proven"], f["action"]' "(True, 'replay_corrected')"
e2fsck_says d1.img | grep -q "checksum error" || fail "e2fsck does not see the data block's checksum error"

# v3, two bits in one data block: the pair is the only weight-2 fit (1 KiB blocks).
damage d2 v3.img "4 10 0" "4 900 7"
expect_field d2 "$CANDS" "4:10:0:content 4:900:7:content"
expect_field d2 'f["search"]["weight"], f["search"]["proven"]' "(2, True)"
e2fsck_says d2.img | grep -q "checksum error" || fail "e2fsck does not see the two-bit damage"

# v3, the commit block (its unused tail).
damage c1 v3.img "9 700 2"
expect_field c1 'f["object"], f["sequence"]' "('commit', 2)"
expect_field c1 "$CANDS" "9:700:2:content"
e2fsck_says c1.img | grep -q "transaction 2 was corrupt" || fail "e2fsck does not see a corrupt commit"

# v3, the descriptor's unused space: its tail checksum.
damage t1 v3.img "6 800 4"
expect_field t1 'f["object"]' descriptor
expect_field t1 "$CANDS" "6:800:4:content"
e2fsck_says t1.img | grep -q "checksum error" || fail "e2fsck does not see a descriptor checksum error"

# v3, the stored tag checksum itself (tag 0 of descriptor 1: bytes 12+12 .. 12+15). The
# descriptor's tail covers that byte too: two findings, one bit.
damage s1 v3.img "1 27 1"
expect_field s1 '[(x["object"], x["journal_block"]) for x in d["findings"]]' "[('descriptor', 1), ('data', 2)]"
expect_field s1 "$CANDS" "1:27:1:content"
expect_field s1 '[" ".join("%d:%d:%d:%s" % (x["journal_block"], x["byte"], x["bit"], x["place"]) for c in d["findings"][1]["search"]["candidates"] for x in c["flips"])]' "['1:27:1:stored_checksum']"
e2fsck_says s1.img | grep -q "checksum error" || fail "e2fsck does not see the tag checksum error"

# v2: 16-bit tag checksums; the true bit is among the fits, and the chance says how weak that is.
damage v2d v2.img "3 300 5"
expect_field v2d 'f["checksum_bits"]' 16
expect_field v2d '"3:300:5:content" in '"$CANDS" True
expect_field v2d 'f["search"]["chance"] > 0.1' True
e2fsck_says v2d.img | grep -q "checksum error" || fail "e2fsck does not see the v2 data block's checksum error"

# v1: one bit in a data block, found across the whole transaction.
damage v1d v1.img "8 1000 3"
expect_field v1d 'f["object"], f["sequence"], f["journal_block"]' "('transaction', 2, 9)"
expect_field v1d "$CANDS" "8:1000:3:content"
expect_field v1d 'f["action"]' replay_corrected
expect_field v1d 'f["fs_block"]' 201
e2fsck_says v1d.img | grep -q "transaction 2 was corrupt" || fail "e2fsck does not see the v1 transaction as corrupt"

# v1: two bits in one block.
damage v1p v1.img "2 5 1" "2 611 0"
expect_field v1p '"2:5:1:content 2:611:0:content" in '"$CANDS" True
expect_field v1p 'f["search"]["weight"]' 2
e2fsck_says v1p.img | grep -q "transaction 1 was corrupt" || fail "e2fsck does not see the v1 pair"

# v1: the stored checksum in the commit block.
damage v1s v1.img "5 17 4"
expect_field v1s "$CANDS" "5:17:4:stored_checksum"
e2fsck_says v1s.img | grep -q "transaction 1 was corrupt" || fail "e2fsck does not see the v1 stored checksum flip"

# Text output names the block, byte and bit.
run "$E4R" diagnose d1.img
expect_rc 1 "text: damaged"
expect_out "journal block 3, byte 517, bit 6" "text names the flip"
exit 0
