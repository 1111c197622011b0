# Each replay policy writes what DESIGN.md says, checked block by block against the files the
# transactions were written from (the oracle: debugfs's journal writer logged exactly those bytes),
# and against e2fsck for the state it leaves (journal emptied, needs_recovery, error flags).
. "$E4R_TESTS_SRCDIR/lib.sh"

seeded_bytes d1 8192 > d1
seeded_bytes d2 8192 > d2
# T1 = descriptor 1, data 2-4 (fs 100, 101, 102 <- d1 blocks 0-2), commit 5;
# T2 = descriptor 6, data 7-8 (fs 200, 101 <- d2 blocks 0-1), revoke 9 (revokes fs 100), commit 10.
mkimg base.img 16M -O metadata_csum
jwrite base.img "jo -c" "jw -b 100,101,102 $PWD/d1" "jw -b 200,101 -r 100 $PWD/d2" "jc"
logdump=$("$E4R" logdump base.img)
printf '%s\n' "$logdump" | grep -q "commit block 10" || fail "unexpected journal layout: $logdump"

blk() { dd if="$1" bs=1024 skip="$2" count=1 2>/dev/null; }
src() { dd if="$1" bs=1024 skip="$2" count=1 2>/dev/null; }
# expect IMAGE FSBLOCK WHAT: WHAT is "orig" (as in base.img before replay) or FILE:BLOCK
expect_block() {
	local want
	case $3 in
	orig) want=$(blk base.img "$2" | sha256sum) ;;
	*) want=$(src "${3%:*}" "${3#*:}" | sha256sum) ;;
	esac
	[ "$(blk "$1" "$2" | sha256sum)" = "$want" ] || fail "$1: fs block $2 is not $3"
}
# The state every writing policy leaves: journal empty, needs_recovery clear, a second run idle.
expect_recovered() { # IMAGE
	dumpe2fs -h "$1" 2>/dev/null | grep -q "^Journal start: *0$" || fail "$1: journal not emptied"
	dumpe2fs -h "$1" 2>/dev/null | grep -q "needs_recovery" && fail "$1: needs_recovery still set"
	local before; before=$(sha "$1")
	run "$E4R" replay "$1"
	expect_rc 0 "$1: a second replay has nothing to do"
	expect_out "nothing to replay" "$1: second replay says so"
	[ "$(sha "$1")" = "$before" ] || fail "$1: a second replay changed the image"
	return 0
}
state() { dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Filesystem state: *//p'; }
policy() { # POLICY INPUT OUTPUT
	cp "$2" "$3"
	run "$E4R" replay --policy="$1" "$3" </dev/null
}

# ---- intact journal: every policy replays the same blocks ----
for p in stop skip-block skip-transaction all auto ask; do
	policy $p base.img ok-$p.img
	expect_rc 0 "$p on an intact journal"
	expect_block ok-$p.img 100 orig		# revoked by T2
	expect_block ok-$p.img 101 d2:1		# T2's version wins
	expect_block ok-$p.img 102 d1:2
	expect_block ok-$p.img 200 d2:0
	expect_recovered ok-$p.img
	[ "$(state ok-$p.img)" = clean ] || fail "$p: intact replay left state '$(state ok-$p.img)'"
done
policy none base.img ok-none.img
expect_rc 0 "none on an intact journal"
cmp -s ok-none.img base.img || fail "policy none wrote to the image"

# ---- T1's commit checksum is bad ----
cp base.img commit.img
flip commit.img $(( $(jblock_offset commit.img 5) + 700 )) 2
cp commit.img oracle.img; e2fsck -E journal_only -y oracle.img >/dev/null 2>&1
policy stop commit.img c-stop.img
expect_rc 1 "stop with a corrupt commit reports a problem"
expect_out "transaction 1 was corrupt" "stop names the corrupt transaction"
for b in 100 101 102 200; do expect_block c-stop.img $b orig; done
[ "$(state c-stop.img)" = "$(state oracle.img)" ] || fail "stop: state '$(state c-stop.img)', e2fsck '$(state oracle.img)'"
expect_recovered c-stop.img

policy skip-transaction commit.img c-skipt.img
expect_rc 1 "skip-transaction with a corrupt commit"
expect_block c-skipt.img 100 orig
expect_block c-skipt.img 101 d2:1
expect_block c-skipt.img 102 orig	# T1 left out
expect_block c-skipt.img 200 d2:0	# T2 replayed past the failure
expect_out "transaction 1: skipped" "skip-transaction says T1 was skipped"
expect_recovered c-skipt.img

for p in skip-block all; do
	policy $p commit.img c-$p.img
	expect_rc 1 "$p with a corrupt commit"
	expect_block c-$p.img 100 orig
	expect_block c-$p.img 101 d2:1
	expect_block c-$p.img 102 d1:2	# T1 replayed despite its commit checksum
	expect_block c-$p.img 200 d2:0
	state c-$p.img | grep -q "with errors" || fail "$p: the replayed corruption is not flagged"
	expect_recovered c-$p.img
done

# ask, without a terminal: every question is answered no, so nothing from T1 on is replayed.
policy ask commit.img c-ask.img
expect_rc 1 "ask with a corrupt commit"
expect_out "^Replay this transaction anyway\? .*: no \(standard input is not a terminal\)$" "ask asked and answered no"
for b in 100 101 102 200; do expect_block c-ask.img $b orig; done
# auto: the diagnosis locates the flipped bit in the commit block and proves it, so the
# transaction is replayed as logged, with no error left behind.
policy auto commit.img c-auto.img
expect_rc 1 "auto reports the failure it resolved"
expect_out "commit checksum does not match: replayed with the proven correction" "auto says what it decided"
for b in 101 102 200; do expect_block c-auto.img $b "$(case $b in 101) echo d2:1;; 102) echo d1:2;; 200) echo d2:0;; esac)"; done
[ "$(state c-auto.img)" = clean ] || fail "auto: a proven correction leaves the fs '$(state c-auto.img)'"
expect_recovered c-auto.img

# auto with nothing provable (64 random bytes in a logged block) is stop, byte for byte.
cp base.img garbage.img
seeded_bytes garbage 64 | dd of=garbage.img bs=1 seek=$(( $(jblock_offset garbage.img 4) + 200 )) conv=notrunc 2>/dev/null
policy stop garbage.img g-stop.img
policy auto garbage.img g-auto.img
expect_out "block_checksum|checksum does not match" "auto saw the failure"
run python3 "$E4R_TESTS_TOOLS/imgdiff.py" g-auto.img g-stop.img
expect_rc 0 "auto without a proof is stop"

# ---- a data block of T1 (fs 102, journal block 4) has a bad checksum ----
cp base.img data.img
flip data.img $(( $(jblock_offset data.img 4) + 100 )) 6
cp data.img oracle.img; e2fsck -E journal_only -y oracle.img >/dev/null 2>&1
policy stop data.img d-stop.img
expect_rc 1 "stop with a bad block"
expect_block d-stop.img 102 orig
expect_block d-stop.img 101 d2:1
expect_block d-stop.img 200 d2:0
[ "$(state d-stop.img)" = "$(state oracle.img)" ] || fail "stop: state '$(state d-stop.img)', e2fsck '$(state oracle.img)'"
policy skip-block data.img d-skipb.img
expect_block d-skipb.img 102 orig
expect_block d-skipb.img 200 d2:0
state d-skipb.img | grep -q "not clean" || fail "skip-block: a left-out block must force a check"
policy skip-transaction data.img d-skipt.img
expect_block d-skipt.img 102 orig
expect_block d-skipt.img 101 d2:1	# from T2
expect_block d-skipt.img 200 d2:0
policy all data.img d-all.img
expect_rc 1 "all with a bad block"
# The damaged copy went home: exactly one byte differs from what was logged.
[ "$(cmp -l <(blk d-all.img 102) <(src d1 2) | wc -l)" = 1 ] || fail "all: block 102 is not the logged copy with its flipped bit"
expect_recovered d-all.img

# ---- --dry-run lists what stop writes, and e2fsck changes exactly those blocks ----
cp data.img dry.img
"$E4R" replay --dry-run --json --policy=stop dry.img > dry.json || true
cmp -s dry.img data.img || fail "dry run modified the image"
python3 - dry.json data.img oracle.img <<'PY' || fail "dry-run write list does not match e2fsck's changes"
import json, sys
d = json.load(open(sys.argv[1]))
writes = {w["fs_block"] for w in d["writes"]}
left = {(b["fs_block"], b["reason"]) for b in d["left_out"]}
a, b = open(sys.argv[2], "rb").read(), open(sys.argv[3], "rb").read()
changed = {i for i in range(len(a) // 1024) if a[i*1024:(i+1)*1024] != b[i*1024:(i+1)*1024]}
jsb = {i for i in changed if b[i*1024:i*1024+4] == bytes.fromhex("c03b3998")}
changed -= {1} | jsb   # the superblock and the journal superblock change too
print("writes", sorted(writes), "left", sorted(left), "changed", sorted(changed))
assert writes == changed, (writes, changed)
assert (102, "checksum_bad") in left and (100, "revoked") in left
PY

# ---- usage ----
run "$E4R" replay --policy=bogus base.img
expect_rc 16 "an unknown policy is a usage error"
expect_out "unknown policy 'bogus'" "names the policy"
exit 0
