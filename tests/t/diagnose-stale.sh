# A transaction whose commit time goes backwards and whose checksum fails is stale (an
# earlier lap of the log): diagnose says so with the times as evidence, counts it as the
# normal end of the log (exit 0), and e2fsck agrees: it replays the one before, silently.
. "$E4R_TESTS_SRCDIR/lib.sh"

seeded_bytes data 65536 > data
mkimg st.img 16M -O metadata_csum
jwrite st.img "jo -c" "jw -b 100,101,102 $PWD/data" "jc" "jo -c" "jw -b 200,201 $PWD/data" "jc"
debugfs -R "logdump" st.img 2>&1 | grep -q "type 2 (commit block) at block 9" ||
	fail "unexpected journal layout from debugfs"
# T2's commit (journal block 9): commit time 1000 s, earlier than T1's.
python3 -c 'import sys; f=open(sys.argv[1],"r+b"); f.seek(int(sys.argv[2])+0x30); f.write((1000).to_bytes(8,"big"))' \
	st.img "$(jblock_offset st.img 9)"

cp st.img oracle.img
run e2fsck -E journal_only -y oracle.img
expect_rc 0 "e2fsck replays without complaint"
expect_no_out "corrupt|checksum error" "e2fsck takes the stale commit as the end of the log"

run "$E4R" diagnose --json st.img
expect_rc 0 "a stale end of log is not a problem"
printf '%s\n' "$OUT" > st.json
python3 - st.json <<'PYEOF' || fail "the finding names the stale commit with its evidence"
import json, sys
d = json.load(open(sys.argv[1]))
f = d["findings"]
assert len(f) == 1, f
f = f[0]
assert (f["sequence"], f["object"], f["journal_block"]) == (2, "commit", 9), f
assert f["cause"] == "stale" and f["problem"] is False and f["action"] == "stop", f
e = f["evidence"]
assert e["time_backwards"] and e["commit_time"] == 1000 and e["previous_commit_time"] > 1000, e
PYEOF
run "$E4R" diagnose st.img
expect_out "cause: stale" "text names the cause"
expect_out "commit time 1000 is earlier" "text gives the evidence"
exit 0
