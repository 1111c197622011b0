# logdump reports each kind of checksum failure on the object whose bytes were flipped
# (commit, data tag, descriptor tail, revoke tail, journal superblock), exits 1, and
# e2fsck confirms the journal is damaged in that way.
. "$E4R_TESTS_SRCDIR/lib.sh"

seeded_bytes data 65536 > data
# Journal layout (1 KiB blocks): T1 = descriptor 1, data 2-4, commit 5;
# T2 = descriptor 6, data 7, revoke 8, commit 9.
build() { # IMAGE MKE2FS-OPTS JO-COMMAND
	mkimg "$1" 16M $2
	jwrite "$1" "$3" "jw -b 100,101,102 $PWD/data" "jw -b 200 -r 100 $PWD/data" "jc"
}
build v3.img "-O metadata_csum" "jo -c"
build v2.img "" "jo -c -v 2"
build none.img "" "jo"
debugfs -R "logdump" v3.img 2>&1 | grep -q "type 2 (commit block) at block 9" ||
	fail "unexpected journal layout from debugfs"

# Field of our JSON: a python expression over the document d.
json_field() { # JSON-FILE EXPR
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# flipped CASE BASE-IMAGE JBLK OFFSET: copy, flip a bit, run logdump --json (must exit 1, must parse).
flipped() {
	cp "$2" "$1.img"
	flip "$1.img" $(( $(jblock_offset "$1.img" "$3") + $4 )) 3
	run "$E4R" logdump --json "$1.img"
	printf '%s\n' "$OUT" > "$1.json"
	python3 -m json.tool "$1.json" >/dev/null || fail "$1: JSON does not parse"
	expect_rc 1 "$1: a bad checksum means exit 1"
}

# e2fsck's journal replay output on a copy.
e2fsck_says() { # IMAGE
	cp "$1" oracle.img
	e2fsck -E journal_only -y oracle.img 2>&1
}

expect_json() { # CASE EXPR EXPECTED
	local got
	got=$(json_field "$1.json" "$2")
	[ "$got" = "$3" ] || fail "$1: $2 is $got, expected $3"
}

# Intact: every checksum good, exit 0.
run "$E4R" logdump --json v3.img
expect_rc 0 "intact v3 journal"

# 1. Commit block (its unused tail): T1's commit checksum is bad.
flipped commit v3.img 5 700
expect_json commit 'd["transactions"][0]["commit_csum_ok"]' False
expect_json commit 'd["transactions"][1]["commit_csum_ok"]' True
expect_json commit 'd["replay"]["failed_commit"]' 1
e2fsck_says commit.img | grep -q "transaction 1 was corrupt" || fail "e2fsck does not see a corrupt commit"
run "$E4R" logdump commit.img
expect_rc 1 "text: commit"
expect_out "commit block 5, .*checksum BAD" "text names the bad commit block"

# 2. A data block (journal block 3 = fs block 101): only its tag checksum is bad.
flipped data v3.img 3 10
expect_json data '[b["csum_ok"] for b in d["transactions"][0]["blocks"]]' "[True, False, True]"
expect_json data 'd["transactions"][0]["blocks"][1]["fate"]' checksum_bad
expect_json data 'd["transactions"][0]["commit_csum_ok"]' True
e2fsck_says data.img | grep -q "checksum error" || fail "e2fsck does not see a data checksum error"
run "$E4R" logdump --block=101 data.img
expect_rc 1 "text: --block on a bad block"
expect_out "transaction 1, journal block 3: not replayed: its checksum is bad" "--block says why"

# 2b. The same with csum v2 (16-bit tag checksums).
flipped data2 v2.img 3 10
expect_json data2 '[b["csum_ok"] for b in d["transactions"][0]["blocks"]]' "[True, False, True]"

# 3. The descriptor block's unused space: its tail checksum is bad.
flipped desc v3.img 1 900
expect_json desc 'd["transactions"][0]["descriptors"][0]["tail_csum_ok"]' False
expect_json desc '[b["csum_ok"] for b in d["transactions"][0]["blocks"]]' "[True, True, True]"
e2fsck_says desc.img | grep -q "checksum error" || fail "e2fsck does not see a descriptor checksum error"

# 4. The revoke block's unused space: its tail checksum is bad.
flipped revoke v3.img 8 900
expect_json revoke 'd["transactions"][1]["revoke_blocks"][0]["tail_csum_ok"]' False
expect_json revoke 'd["transactions"][1]["revoked"]' "[100]"
e2fsck_says revoke.img | grep -q "checksum error" || fail "e2fsck does not see a revoke checksum error"

# 5. The journal superblock (its s_users area): the superblock checksum is bad.
flipped jsb v3.img 0 512
expect_json jsb 'd["journal"]["superblock_csum_ok"]' False
e2fsck_says jsb.img | grep -q "Journal superblock is corrupt" || fail "e2fsck does not see a bad journal superblock"

# 6. A revoke count larger than the block: reported, and e2fsck refuses the journal too.
cp v3.img rcount.img
python3 -c 'import sys; f=open(sys.argv[1],"r+b"); f.seek(int(sys.argv[2])+12); f.write((60000).to_bytes(4,"big"))' \
	rcount.img "$(jblock_offset rcount.img 8)"
run "$E4R" logdump --json rcount.img
printf '%s\n' "$OUT" > rcount.json
python3 -m json.tool rcount.json >/dev/null || fail "rcount: JSON does not parse"
expect_rc 1 "a bad revoke count means exit 1"
e2fsck_says rcount.img | grep -Eq "Invalid argument|Journal checksum error" || fail "e2fsck does not refuse the journal with the bad revoke block"
expect_json rcount 'd["replay"]["error"] is not None' True
# The flip breaks the tail too. e2fsck checks the tail while scanning and the count only
# when it reads the records, so it names the checksum: the replay's first question is the tail.
e2fsck_says rcount.img | grep -q "Journal checksum error" || fail "e2fsck does not fail on the revoke tail first"
run "$E4R" replay --dry-run --json --policy=auto rcount.img
printf '%s\n' "$OUT" > rcount-replay.json
expect_json rcount-replay '[x["failure"] for x in d["decisions"]]' "['revoke_checksum']"
# Without checksums the count is the only failure, and e2fsck refuses the records.
cp none.img rcount-none.img
python3 -c 'import sys; f=open(sys.argv[1],"r+b"); f.seek(int(sys.argv[2])+12); f.write((60000).to_bytes(4,"big"))' \
	rcount-none.img "$(jblock_offset rcount-none.img 8)"
e2fsck_says rcount-none.img | grep -q "Invalid argument" || fail "e2fsck does not refuse the revoke count"
run "$E4R" replay --dry-run --json --policy=auto rcount-none.img
printf '%s\n' "$OUT" > rcount-none-replay.json
expect_json rcount-none-replay '[x["failure"] for x in d["decisions"]]' "['revoke_count']"

# 7. Without checksums the same flip goes unnoticed: exit 0, csum fields null.
flipped_none() {
	cp none.img n.img
	flip n.img $(( $(jblock_offset n.img 3) + 10 )) 3
	run "$E4R" logdump --json n.img
	printf '%s\n' "$OUT" > n.json
	expect_rc 0 "no checksums: nothing to report"
}
flipped_none
expect_json n '[b["csum_ok"] for b in d["transactions"][0]["blocks"]]' "[None, None, None]"
expect_json n 'd["transactions"][0]["commit_csum_ok"]' None
exit 0
