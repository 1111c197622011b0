# logdump's option and input errors: bad numbers are usage errors (16), a filesystem
# without a journal or with a broken journal superblock is an operational error (8,
# one line naming the image), a garbage log still gives parseable JSON.
. "$E4R_TESTS_SRCDIR/lib.sh"

mkimg j.img 16M -O metadata_csum
seeded_bytes data 8192 > data
jwrite j.img "jo -c" "jw -b 100,101 $PWD/data" "jc"

for bad in "--transaction=abc" "--transaction=-1" "--transaction=4294967296" "--transaction=" \
	   "--block=x" "--block=-5" "--block=1e3" "--block=18446744073709551616"; do
	run "$E4R" logdump "$bad" j.img
	expect_rc 16 "logdump $bad"
	expect_out "^e4recover logdump: " "$bad: names the subcommand"
done
run "$E4R" logdump --bogus j.img
expect_rc 16 "unknown option"
run "$E4R" logdump
expect_rc 16 "no image"
run "$E4R" logdump --help
expect_rc 0 "--help"
expect_out "--transaction=SEQ" "--help lists --transaction"

# An image name that JSON must escape: quote, backslash, tab, newline, a Latin-1 byte.
weird=$(printf 'we"ird\\\tna\nme\351.img')
cp j.img "$weird"
"$E4R" logdump --json "$weird" > weird.json || fail "logdump on an oddly named image"
python3 -c 'import json,sys,os
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["image"].encode("latin-1") == os.fsencode(sys.argv[2]) else 1)' weird.json "$weird" ||
	fail "the image name does not round-trip through the JSON"

# No journal at all.
expect_no_journal_report logdump transactions

# A journal superblock without its magic.
cp j.img nomagic.img
off=$(jblock_offset nomagic.img 0)
printf '\0\0\0\0' | dd of=nomagic.img bs=1 seek="$off" conv=notrunc 2>/dev/null
"$E4R" logdump --json nomagic.img > nomagic.json 2> nomagic.err; RC=$?
OUT=$(cat nomagic.err)
expect_rc 8 "journal superblock without magic"
# One line on stderr; stdout is the JSON error document (e4recover-json(5)), with the same reason.
[ "$(wc -l < nomagic.err)" -eq 1 ] || fail "bad journal superblock: one line expected on stderr"
expect_out "^e4recover: nomagic.img: .*magic" "bad journal superblock: names the image and the reason"
python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))["error"]
line = open(sys.argv[2]).read().strip()
sys.exit(0 if e["code"] == 8 and e["image"] == "nomagic.img" and line.endswith(e["message"]) else 1)' \
	nomagic.json nomagic.err || fail "bad journal superblock: the JSON error document says what stderr says"
debugfs -R "logdump" nomagic.img 2>&1 | grep -qi "magic" || fail "debugfs agrees the journal magic is gone"

# Random bytes over the log (superblock kept): whatever is found, the JSON parses and
# logdump exits 0 or 1, with and without --all and --decode.
for seed in 1 2 3; do
	cp j.img garbage$seed.img
	python3 -c '
import random, sys
rng = random.Random(int(sys.argv[3]))
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2]))
    for blk in range(60):
        body = bytearray(rng.randrange(256) for _ in range(1024))
        if rng.random() < 0.7:   # a plausible header over garbage: descriptor, commit or revoke
            body[0:12] = (0xC03B3998).to_bytes(4, "big") + rng.choice([1, 1, 2, 5, 9]).to_bytes(4, "big") \
                + (1 + blk // 8).to_bytes(4, "big")
        f.write(body)' garbage$seed.img "$(jblock_offset j.img 1)" $seed
	for opts in "--json" "--json --all --decode"; do
		"$E4R" logdump $opts garbage$seed.img > out.json 2>err.txt
		rc=$?
		[ $rc -le 1 ] || fail "garbage$seed $opts: exit $rc: $(cat err.txt)"
		python3 -m json.tool out.json >/dev/null || fail "garbage$seed $opts: JSON does not parse"
	done
done
exit 0
