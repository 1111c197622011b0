# replay --policy=ask on a terminal (a pseudo-terminal from python3's pty module) over a v3
# journal with three failing blocks: two with one flipped bit each (proven corrections) and one
# overwritten with seeded bytes (nothing proven). One key per question: answering c where it is
# offered and n elsewhere writes what --policy=auto writes, y everywhere what --policy=all
# writes, n everywhere what --policy=skip-block writes, and a (all) what --policy=all writes,
# block for block (cmp; one fake clock for every run). The oracles: the damage this test made
# (its flips are what the question offers to undo; the overwritten block is offered no
# correction), e2fsck, which sees the damage and gives the ask results the verdicts of the
# matching policies' results, and the policies themselves. The --json answers of a run, given
# back through --answers, replay to the same image; the terminal is raw while a question waits
# and is given back after every run, SIGINT and SIGQUIT included (exit 32, nothing written);
# ^D is no.
# A transaction proven wholly superseded is offered [s]kip, which writes what auto writes.
. "$E4R_TESTS_SRCDIR/lib.sh"

export E2FSPROGS_FAKE_TIME=1700000000

ask_images
# and bit 2 of byte 300 of journal block 8: a second proven correction
flip dmg.img $(( $(jblock_offset dmg.img 8) + 300 )) 2
cmp -s v3.img dmg.img && fail "the damage did not change the image"
# e2fsck sees the three bad tags (it leaves each failing block out).
cp dmg.img oracle.img
e2fsck -E journal_only -y oracle.img > oracle.txt 2>&1
grep -q "checksum error" oracle.txt || fail "e2fsck does not see the damage: $(cat oracle.txt)"

# ask KEYS OUT ARGS...: replay ARGS on a pseudo-terminal, KEYS typed one per question
# (tests/tools/pty_keys.py: OUT.txt, OUT.json, OUT.rc, OUT.tty).
ask() { # KEYS OUT ARGS...
	local keys=$1 out=$2; shift 2
	cp dmg.img "$out.img"
	python3 "$E4R_TESTS_TOOLS/pty_keys.py" "anyway? " "$keys" "$out" "$E4R" replay "$@" "$out.img" ||
		fail "$out: the pty driver failed"
	note "$out: exit $(cat "$out.rc"), terminal: $(cat "$out.tty")"
}
policy() { # POLICY
	cp dmg.img "p-$1.img"
	"$E4R" replay --policy="$1" --json "p-$1.img" > "p-$1.json" 2>/dev/null
	echo $? > "p-$1.rc"
}
verdict() { # IMAGE: e2fsck -fn's exit code and its report, the image's name left out
	e2fsck -fn "$1" > "$1.fsck" 2>&1
	echo "exit $?"
	sed "s|$1|IMAGE|g" "$1.fsck"
}
same() { # ASK-RUN POLICY-IMAGE WHAT
	cmp "$1.img" "$2" || fail "$3: $1.img differs from $2"
	[ "$(verdict "$1.img")" = "$(verdict "$2")" ] || fail "$3: e2fsck -fn's verdicts differ"
}
for p in auto all skip-block; do policy $p; done

# c where offered (journal blocks 3 and 8), n for the block nothing explains: auto.
ask cnc auto-keys --policy=ask
[ "$(cat auto-keys.rc)" = "$(cat p-auto.rc)" ] || fail "c/n/c: exit $(cat auto-keys.rc), auto's $(cat p-auto.rc)"
[ "$(cat auto-keys.tty)" = "raw raw raw restored" ] || fail "c/n/c: terminal $(cat auto-keys.tty)"
same auto-keys p-auto.img "c where offered = auto"
# The questions offer to undo exactly the flips this test made, and nothing for the block it
# overwrote; each answer is echoed as its word.
grep -q "^Replay this block anyway? \[c\]orrect (flip back journal block 3, byte 517, bit 6 (content): proven), .*: correct$" auto-keys.txt ||
	fail "the first question does not offer the flip made: $(cat auto-keys.txt)"
grep -q "^Replay this block anyway? \[c\]orrect (flip back journal block 8, byte 300, bit 2 (content): proven), .*: correct$" auto-keys.txt ||
	fail "the third question does not offer the flip made"
grep -A6 "journal block 7)\.$" auto-keys.txt | grep "anyway?" > q7.txt
grep -q "\[c\]orrect" q7.txt && fail "a correction is offered for the overwritten block: $(cat q7.txt)"
grep -q "\[y\]es as it is logged, \[n\]o (leave the block out), \[a\]ll.*: no$" q7.txt ||
	fail "the overwritten block's question: $(cat q7.txt)"
grep -A1 "journal block 7)\.$" auto-keys.txt | grep -q "cause: unexplained" ||
	fail "the overwritten block's cause is not given as diagnose gives it"

ask yyy yes-keys --policy=ask
same yes-keys p-all.img "y everywhere = all"
ask nnn no-keys --policy=ask
same no-keys p-skip-block.img "n everywhere = skip-block"
ask a all-key --policy=ask
same all-key p-all.img "a = all"
grep -c "anyway? " all-key.txt | grep -qx 3 || fail "a: not every failure was shown"
[ "$(cat all-key.tty)" = "raw restored" ] || fail "a: one question waits, then the terminal is given back: $(cat all-key.tty)"
cmp -s p-auto.img p-all.img && fail "auto and all write the same: the test tells nothing"
cmp -s p-all.img p-skip-block.img && fail "all and skip-block write the same: the test tells nothing"

# A mixed run's --json answers replay to the same image, off a terminal; so do each policy's.
ask cyn mixed --policy=ask --json
python3 -m json.tool mixed.json > /dev/null || fail "mixed: stdout is not JSON"
cp dmg.img mixed-again.img
run "$E4R" replay --answers=mixed.json mixed-again.img < /dev/null
expect_rc 1 "replaying answers"
cmp mixed.img mixed-again.img || fail "the answers of a run replay to another image"
cmp -s mixed.img p-auto.img && fail "the mixed run equals auto: the test tells nothing"
for p in auto all skip-block; do
	cp dmg.img "again-$p.img"
	run "$E4R" replay --answers="p-$p.json" "again-$p.img" < /dev/null
	cmp "again-$p.img" "p-$p.img" || fail "$p's --json answers replay to another image"
done

# SIGINT at the second question: exit 32, the terminal given back, nothing written.
ask cI cancelled --policy=ask
[ "$(cat cancelled.rc)" = 32 ] || fail "SIGINT: exit $(cat cancelled.rc)"
[ "$(cat cancelled.tty)" = "raw raw restored" ] || fail "SIGINT: terminal $(cat cancelled.tty)"
cmp cancelled.img dmg.img || fail "SIGINT: the image was written"
# SIGQUIT too (no core, no raw terminal left behind).
ask Q quit --policy=ask
[ "$(cat quit.rc)" = 32 ] || fail "SIGQUIT: exit $(cat quit.rc)"
[ "$(cat quit.tty)" = "raw restored" ] || fail "SIGQUIT: terminal $(cat quit.tty)"
cmp quit.img dmg.img || fail "SIGQUIT: the image was written"
# Under --json the run ends with the error document, code 32 (the runner validates it).
ask I cancelled-json --policy=ask --json
[ "$(cat cancelled-json.rc)" = 32 ] || fail "SIGINT, --json: exit $(cat cancelled-json.rc)"
grep -q '"code": 32' cancelled-json.json || fail "SIGINT, --json: no error document with code 32"
cmp cancelled-json.img dmg.img || fail "SIGINT, --json: the image was written"
# ^D is no, to that question and every later one (the input has ended).
ask D eof --policy=ask
same eof p-skip-block.img "^D = no"
[ "$(cat eof.tty)" = "raw restored" ] || fail "^D: asked again after the end of input: $(cat eof.tty)"
# Through --answers, an unanswered failure is still asked on a terminal.
python3 -c 'import json; json.dump({"answers": [{"sequence": 1, "journal_block": 3, "decision": "replayed_corrected"}]}, open("one.json", "w"))'
ask nc partial --answers=one.json
same partial p-auto.img "answers file + keys"
[ "$(cat partial.tty)" = "raw raw restored" ] || fail "answers file + keys: asked $(cat partial.tty)"

# A transaction-level failure: T1 of sup.img (fs 100-101) is logged again whole by T2 (fs
# 100-102), and T1's commit block is torn (second half seeded bytes; debugfs's logdump is the
# oracle for where it is). Auto proves T1 superseded and leaves it out; ask offers [s]kip, no
# correction (nothing proves the torn bytes), and s writes what auto writes.
mkimg sup.img 16M -O metadata_csum
jwrite sup.img "jo -c" "jw -b 100,101 $PWD/data" "jc" "jo -c" "jw -b 100,101,102 $PWD/data" "jc"
debugfs -R "logdump" sup.img 2>&1 | grep -q "sequence 1, type 2 (commit block) at block 4" ||
	fail "unexpected journal layout from debugfs (sup.img)"
seeded_bytes tear 512 | dd of=sup.img bs=1 seek=$(( $(jblock_offset sup.img 4) + 512 )) conv=notrunc 2>/dev/null
cp sup.img p-sup-auto.img
"$E4R" replay --policy=auto --json p-sup-auto.img > p-sup-auto.json 2>/dev/null
cp sup.img p-sup-stop.img
"$E4R" replay --policy=stop p-sup-stop.img > /dev/null 2>&1
cmp -s p-sup-auto.img p-sup-stop.img && fail "sup.img: auto writes what stop writes: the test tells nothing"
cp sup.img sup-keys.img
python3 "$E4R_TESTS_TOOLS/pty_keys.py" "anyway? " s sup-keys "$E4R" replay --policy=ask sup-keys.img ||
	fail "sup-keys: the pty driver failed"
grep -q "^Replay this transaction anyway? \[s\]kip (.*proven), \[y\]es.*: skip$" sup-keys.txt ||
	fail "sup.img: skip is not offered for the superseded transaction: $(cat sup-keys.txt)"
grep "anyway?" sup-keys.txt | grep -q "\[c\]orrect" && fail "sup.img: a correction is offered for a torn commit"
cmp sup-keys.img p-sup-auto.img || fail "s on the superseded transaction: not auto's image"
cp sup.img sup-again.img
run "$E4R" replay --answers=p-sup-auto.json sup-again.img < /dev/null
cmp sup-again.img p-sup-auto.img || fail "auto's answers with skipped_superseded replay to another image"
exit 0
