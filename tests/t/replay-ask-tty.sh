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
# and is given back after every run, SIGINT included (exit 32, nothing written); ^D is no.
. "$E4R_TESTS_SRCDIR/lib.sh"

export E2FSPROGS_FAKE_TIME=1700000000

seeded_bytes data 65536 > data
# Journal layout (1 KiB blocks): T1 = descriptor 1, data 2-4 (fs 100-102), commit 5;
# T2 = descriptor 6, data 7-8 (fs 200-201), commit 9.
mkimg v3.img 16M -O metadata_csum
jwrite v3.img "jo -c" "jw -b 100,101,102 $PWD/data" "jc" "jo -c" "jw -b 200,201 $PWD/data" "jc"
debugfs -R "logdump" v3.img 2>&1 | grep -q "type 2 (commit block) at block 9" ||
	fail "unexpected journal layout from debugfs"
cp v3.img dmg.img
flip dmg.img $(( $(jblock_offset dmg.img 3) + 517 )) 6
flip dmg.img $(( $(jblock_offset dmg.img 8) + 300 )) 2
seeded_bytes garbage 64 | dd of=dmg.img bs=1 seek=$(( $(jblock_offset dmg.img 7) + 100 )) conv=notrunc 2>/dev/null
cmp -s v3.img dmg.img && fail "the damage did not change the image"
# e2fsck sees the three bad tags (it leaves each failing block out).
cp dmg.img oracle.img
e2fsck -E journal_only -y oracle.img > oracle.txt 2>&1
grep -q "checksum error" oracle.txt || fail "e2fsck does not see the damage: $(cat oracle.txt)"

# ask KEYS OUT-PREFIX ARGS...: run replay with ARGS on a pseudo-terminal, typing KEYS one at a
# time, each once the question waits in raw mode (I sends SIGINT instead, D types ^D). Writes
# OUT.txt (the terminal), OUT.json (stdout), OUT.rc, and OUT.tty: "raw" for each question met
# in raw mode, then "restored" if the terminal is canonical with echo once the run has ended.
cat > drive.py <<'PY'
import os, pty, select, signal, sys, termios, time
keys, out, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
pid, fd = pty.fork()
if pid == 0:
    o = os.open(out + ".json", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(o, 1)
    os.execvp(cmd[0], cmd)
def raw():
    lflag = termios.tcgetattr(fd)[3]
    return not (lflag & termios.ICANON) and not (lflag & termios.ECHO)
text, typed, tty, deadline = b"", 0, [], time.time() + 60
while time.time() < deadline:
    r, _, _ = select.select([fd], [], [], 0.05)
    if r:
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        text += data
    if typed < len(keys) and text.count(b"anyway? ") > typed and raw():
        tty.append("raw")
        k = keys[typed]
        if k == "I":
            os.kill(pid, signal.SIGINT)
        else:
            os.write(fd, b"\x04" if k == "D" else k.encode())
        typed += 1
else:
    os.kill(pid, signal.SIGKILL)
    tty.append("timeout")
if not raw():
    lflag = termios.tcgetattr(fd)[3]
    if lflag & termios.ICANON and lflag & termios.ECHO:
        tty.append("restored")
_, st = os.waitpid(pid, 0)
open(out + ".txt", "wb").write(text)
open(out + ".rc", "w").write("%d\n" % os.waitstatus_to_exitcode(st))
open(out + ".tty", "w").write(" ".join(tty) + "\n")
PY
ask() { # KEYS OUT ARGS...
	local keys=$1 out=$2; shift 2
	cp dmg.img "$out.img"
	python3 drive.py "$keys" "$out" "$E4R" replay "$@" "$out.img" || fail "$out: the pty driver failed"
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
tr -d '\r' < auto-keys.txt > auto-keys.clean
grep -q "^Replay this block anyway? \[c\]orrect (flip back journal block 3, byte 517, bit 6 (content): proven), .*: correct$" auto-keys.clean ||
	fail "the first question does not offer the flip made: $(cat auto-keys.clean)"
grep -q "^Replay this block anyway? \[c\]orrect (flip back journal block 8, byte 300, bit 2 (content): proven), .*: correct$" auto-keys.clean ||
	fail "the third question does not offer the flip made"
grep -A6 "journal block 7)\.$" auto-keys.clean | grep "anyway?" > q7.txt
grep -q "\[c\]orrect" q7.txt && fail "a correction is offered for the overwritten block: $(cat q7.txt)"
grep -q "\[y\]es as it is logged, \[n\]o (leave the block out), \[a\]ll.*: no$" q7.txt ||
	fail "the overwritten block's question: $(cat q7.txt)"
grep -A1 "journal block 7)\.$" auto-keys.clean | grep -q "cause: unexplained" ||
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
# ^D is no, to that question and every later one (the input has ended).
ask D eof --policy=ask
same eof p-skip-block.img "^D = no"
[ "$(cat eof.tty)" = "raw restored" ] || fail "^D: asked again after the end of input: $(cat eof.tty)"
# Through --answers, an unanswered failure is still asked on a terminal.
python3 -c 'import json; json.dump({"answers": [{"sequence": 1, "journal_block": 3, "decision": "replayed_corrected"}]}, open("one.json", "w"))'
ask nc partial --answers=one.json
same partial p-auto.img "answers file + keys"
[ "$(cat partial.tty)" = "raw raw restored" ] || fail "answers file + keys: asked $(cat partial.tty)"
exit 0
