# logdump --block lists every logged version of a block, which are revoked, and which
# one ends on disk; e2fsck's replay is the oracle (the home block's bytes afterwards).
# Also --transaction filtering.
. "$E4R_TESTS_SRCDIR/lib.sh"

for n in A B C; do seeded_bytes data$n 8192 > data$n; done
# T1 logs 100 101 102, T2 logs 101 200, T3 logs 300 and revokes 100 (which T1 logged).
mkimg j.img 16M -O metadata_csum
jwrite j.img "jo -c" "jw -b 100,101,102 $PWD/dataA" "jw -b 101,200 $PWD/dataB" "jw -b 300 -r 100 $PWD/dataC" "jc"
cp j.img replayed.img
e2fsck -E journal_only -y replayed.img >/dev/null 2>&1
[ $? -le 1 ] || fail "e2fsck could not replay the journal"

block_at() { # IMAGE BYTE-OFFSET
	dd if="$1" bs=1024 skip=$(( $2 / 1024 )) count=1 2>/dev/null | sha256sum | cut -d' ' -f1
}
bs=1024
for b in 100 101 102 200 300 400; do
	run "$E4R" logdump --json --block=$b j.img
	expect_rc 0 "--block=$b"
	printf '%s\n' "$OUT" > b$b.json
	final=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
v=[x["journal_block"] for x in d["block"]["versions"] if x["final"]]
print(v[0] if v else "none")' b$b.json)
	home=$(block_at replayed.img $((b * bs)))
	if [ "$final" = none ]; then
		[ "$home" = "$(block_at j.img $((b * bs)))" ] || fail "block $b: no version ends on disk, but e2fsck changed it"
	else
		[ "$home" = "$(block_at j.img "$(jblock_offset j.img "$final")")" ] ||
			fail "block $b: we say journal block $final ends on disk, e2fsck wrote something else"
	fi
done

count() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
[ "$(count b100.json 'len(d["block"]["versions"])')" = 1 ] || fail "block 100 is logged once"
[ "$(count b100.json 'd["block"]["versions"][0]["revoked_by"]')" = 3 ] || fail "block 100 is revoked by T3"
[ "$(count b101.json '[v["sequence"] for v in d["block"]["versions"]]')" = "[1, 2]" ] || fail "block 101 is logged in T1 and T2"
[ "$(count b400.json 'd["block"]["versions"]')" = "[]" ] || fail "block 400 is not logged"
[ "$(count b101.json '[t["sequence"] for t in d["transactions"]]')" = "[1, 2]" ] || fail "--block shows only the transactions with the block"

run "$E4R" logdump --block=100 j.img
expect_rc 0 "--block text"
expect_out "transaction 1, journal block [0-9]+: not replayed: revoked by transaction 3" "text: revoked"
run "$E4R" logdump --block=101 j.img
expect_out "transaction 2, journal block [0-9]+: replayed \(this version ends on disk\)" "text: final version"
run "$E4R" logdump --block=400 j.img
expect_out "not logged in the journal" "text: a block not logged"

# --transaction shows one transaction, or none.
run "$E4R" logdump --json --transaction=2 j.img
expect_rc 0 "--transaction=2"
printf '%s\n' "$OUT" > t2.json
[ "$(count t2.json '[t["sequence"] for t in d["transactions"]]')" = "[2]" ] || fail "--transaction=2 shows transaction 2 only"
[ "$(count t2.json '[b["fs_block"] for b in d["transactions"][0]["blocks"]]')" = "[101, 200]" ] || fail "T2's blocks"
run "$E4R" logdump --json --transaction=0x3 j.img
printf '%s\n' "$OUT" > t3.json
[ "$(count t3.json '[t["revoked"] for t in d["transactions"]]')" = "[[100]]" ] || fail "T3 revokes 100"
run "$E4R" logdump --transaction=99 j.img
expect_rc 0 "--transaction=99"
expect_out "Transaction 99 is not in the journal" "a transaction not in the log"
exit 0
