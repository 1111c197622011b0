# diagnose's labels say what is known, on kernel crash images (mkcrash.py v1 and v3):
# - a zeroed logged block: no candidate is called "(verified)" (nothing is proven), and the
#   stop says why;
# - a proven flip in a descriptor's tags (the high bit of a home block number): "(verified)",
#   and the stop gives the reason the code has (the tags were parsed damaged); the tag's home,
#   outside the filesystem by debugfs's reading of the same tag and dumpe2fs's block count, is
#   flagged by logdump (text and JSON) and diagnose (text and JSON);
# - any flip in a descriptor (flipbit.py, three seeds): every stop names its reason;
# - a torn commit block whose logged blocks are intact: said so, not "not all of its blocks
#   reached the disk"; e2fsck confirms the transaction is corrupt.
. "$E4R_TESTS_SRCDIR/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root for loop mounts"

for v in v3 v1; do
	with_sync_lock -x python3 "$E4R_TESTS_TOOLS/mkcrash.py" $v.img 21 $v > $v.log 2>&1 || {
		[ $v = v3 ] && skip "mkcrash.py could not loop-mount an image: $(tail -n 1 $v.log)"
		fail "mkcrash.py $v: $(tail -n 3 $v.log)"
	}
	"$E4R" logdump --json $v.img > $v.json 2>/dev/null
done
bs=$(dumpe2fs -h v3.img 2>/dev/null | sed -n 's/^Block size: *//p')
nblocks=$(dumpe2fs -h v3.img 2>/dev/null | sed -n 's/^Block count: *//p')

# q JSON EXPR: evaluate EXPR over d, the document
q() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
# Committed live transactions by our logdump: "sequence commit_block first_descriptor first_data_jblk".
q v3.json '"\n".join("%d %d %d %d" % (t["sequence"], t["commit_block"], t["descriptor_blocks"][0], t["blocks"][0]["journal_block"]) for t in d["transactions"] if t["committed"] and not t["old"] and t["blocks"] and t["descriptor_blocks"])' > v3.txns
[ "$(wc -l < v3.txns)" -ge 3 ] || fail "too few committed transactions in the v3 crash: $(cat v3.txns)"
set -- $(sed -n 2p v3.txns); seq=$1 cjb=$2 djb=$3 data=$4

# ---- a zeroed logged block: unexplained, nothing verified, the stop says why ----
for v in v3 v1; do
	set -- $(q $v.json '[(t["sequence"], t["blocks"][0]["journal_block"]) for t in d["transactions"] if t["committed"] and not t["old"] and t["blocks"]][1]' | tr -d '(),')
	zs=$1 zjb=$2 vbs=$(dumpe2fs -h $v.img 2>/dev/null | sed -n 's/^Block size: *//p')
	cp $v.img zero-$v.img
	dd if=/dev/zero of=zero-$v.img bs=$vbs seek=$(( $(jblock_offset zero-$v.img $zjb) / vbs )) count=1 conv=notrunc 2>/dev/null
	run "$E4R" diagnose zero-$v.img
	expect_rc 1 "$v: a zeroed block is a problem"
	expect_out "^transaction $zs, " "$v: a finding for transaction $zs"
	expect_no_out "\(verified\)" "$v: nothing is proven for a zeroed block, so nothing is verified"
	expect_out "auto: stop here, as e2fsck does: [a-z]" "$v: the stop gives its reason"
	"$E4R" diagnose --json zero-$v.img > zero-$v.json
	[ "$(q zero-$v.json '[(f["action"], f["stop_reason"] is not None, any(c["proven_correction"] for c in f["search"]["candidates"])) for f in d["findings"] if f["sequence"] == '$zs']')" = \
	  "[('stop', True, False)]" ] || fail "$v: zeroed block: JSON $(q zero-$v.json '[(f["cause"], f["action"], f["stop_reason"]) for f in d["findings"]]')"
	cp zero-$v.img oracle.img
	e2fsck -E journal_only -y oracle.img > oracle.out 2>&1 </dev/null
	grep -Eqi "corrupt|checksum" oracle.out || fail "$v: e2fsck does not see the zeroed block: $(cat oracle.out)"
done

# ---- a proven flip in a descriptor tag's home block number ----
cp v3.img tag.img
flip tag.img $(( $(jblock_offset tag.img $djb) + 12 )) 7	# first tag: the top bit of its block number
run "$E4R" diagnose tag.img
expect_out "^transaction $seq, journal block $djb: descriptor block checksum BAD" "the descriptor's tail fails"
expect_out "candidate 1 \(verified\): journal block $djb, byte 12, bit 7 \(content\)" "the flip is proven and located"
expect_out "auto: stop here, as e2fsck does: the flip is in the descriptor's tags" "the stop says why"
"$E4R" diagnose --json tag.img > tag.json
[ "$(q tag.json '[(f["cause"], f["search"]["proven"], f["stop_reason"]) for f in d["findings"] if f["sequence"] == '$seq']')" = \
  "[('bit_flip', True, 'flip_in_descriptor_tags')]" ] || fail "descriptor flip: JSON $(q tag.json 'd["findings"]')"
# debugfs reads the same tag: its home, and whether it lies past the end.
home=$(debugfs -R "logdump -a" tag.img 2>/dev/null | sed -n "s/^  FS block \([0-9]*\) logged at journal block $data .*/\1/p" | head -n 1)
[ -n "$home" ] || fail "debugfs does not list journal block $data"
[ "$home" -ge "$nblocks" ] || fail "the flip did not move the home ($home) outside the filesystem ($nblocks blocks)"
expect_out "transaction $seq, journal block $data: its tag names fs block $home, OUTSIDE THE FILESYSTEM \($nblocks blocks\)" \
	"diagnose flags the tag"
[ "$(q tag.json '[(x["sequence"], x["journal_block"], x["fs_block"]) for x in d["outside_filesystem"]]')" = "[($seq, $data, $home)]" ] ||
	fail "diagnose JSON outside_filesystem: $(q tag.json 'd["outside_filesystem"]')"
run "$E4R" replay --dry-run --policy=auto tag.img
expect_out "^  why: the flip is in the descriptor's tags" "replay says why auto refuses the transaction"
run "$E4R" logdump tag.img
expect_out "fs block $home -> journal block $data, .*HOME OUTSIDE THE FILESYSTEM \($nblocks blocks\)" "logdump flags the tag"
"$E4R" logdump --json tag.img > tagld.json
[ "$(q tagld.json '[(b["fs_block"], b["journal_block"]) for t in d["transactions"] for b in t["blocks"] if b["outside_filesystem"]]')" = "[($home, $data)]" ] ||
	fail "logdump JSON outside_filesystem"
[ "$(q v3.json '[b for t in d["transactions"] for b in t["blocks"] if b["outside_filesystem"]]')" = "[]" ] ||
	fail "logdump flags homes in the undamaged journal"

# ---- any flip in a descriptor: a stop always names its reason ----
stops=0
for s in 1 2 3; do
	cp v3.img desc.img
	python3 "$E4R_TESTS_TOOLS/flipbit.py" desc.img $s desc > desc.flip 2>/dev/null || continue
	"$E4R" diagnose desc.img > desc.out 2>&1
	"$E4R" diagnose --json desc.img > desc.json 2>/dev/null
	n=$(grep -c "auto: stop here, as e2fsck does" desc.out)
	r=$(grep -c "auto: stop here, as e2fsck does: [a-z]" desc.out)
	[ "$n" = "$r" ] || fail "seed $s ($(cat desc.flip)): a stop without its reason: $(cat desc.out)"
	[ "$(q desc.json 'all(f["stop_reason"] not in (None, "none") for f in d["findings"] if f["action"] == "stop")')" = True ] ||
		fail "seed $s: a JSON stop without its reason"
	stops=$((stops + n))
done
note "$stops stop(s) among the descriptor flips, each with its reason"

# ---- a torn commit block, logged blocks intact ----
cp v3.img torn.img
seeded_bytes torn $((bs / 2)) | dd of=torn.img bs=1 seek=$(( $(jblock_offset torn.img $cjb) + bs / 2 )) conv=notrunc 2>/dev/null
run "$E4R" diagnose torn.img
expect_out "^transaction $seq, journal block $cjb: commit block checksum BAD" "the commit fails"
expect_out "cause: torn commit block: only the commit block's header checks out; every logged block of the transaction matches its own checksum" \
	"what is known of the torn commit"
expect_no_out "not all of its blocks" "the blocks did reach the disk"
"$E4R" diagnose --json torn.img > torn.json
[ "$(q torn.json '[(f["cause"], f["logged_blocks_intact"], f["evidence"]["bad_tags"]) for f in d["findings"] if f["sequence"] == '$seq']')" = \
  "[('torn_commit', True, 0)]" ] || fail "torn commit JSON: $(q torn.json 'd["findings"]')"
cp torn.img oracle.img
e2fsck -E journal_only -y oracle.img 2>&1 </dev/null | grep -q "transaction $seq was corrupt" ||
	fail "e2fsck does not find transaction $seq corrupt"
exit 0
