#!/usr/bin/env python3
"""pty_keys.py [--stdout] PROMPT KEYS OUT COMMAND...: answer COMMAND's terminal questions one key at a time.

COMMAND runs on a pseudo-terminal (python3's pty module), its stdout sent to OUT.json
(a --json document stays apart from the questions; with --stdout it stays on the terminal,
for a program that asks only when stdout is one too), its stderr to the terminal. Each
time the terminal has shown PROMPT once more and is in raw mode (no ICANON, no ECHO: the
program waits for a key), the next key of KEYS is typed; I sends SIGINT instead, Q
SIGQUIT, and D types ^D. Writes OUT.txt (what the terminal showed, carriage returns removed), OUT.rc
(the exit code; -N for a signal) and OUT.tty: "raw" for each question met in raw mode,
then "restored" when the terminal is canonical with echo once the run has ended, or
"timeout" when the run took more than 60 seconds (it is killed).
"""
import os
import pty
import select
import signal
import sys
import termios
import time


def raw(fd):
    lflag = termios.tcgetattr(fd)[3]
    return not (lflag & termios.ICANON) and not (lflag & termios.ECHO)


def main(argv):
    stdout_on_tty = len(argv) > 1 and argv[1] == "--stdout"
    if stdout_on_tty:
        argv = argv[1:]
    if len(argv) < 5:
        sys.stderr.write(__doc__)
        return 2
    prompt, keys, out, cmd = argv[1].encode(), argv[2], argv[3], argv[4:]
    pid, fd = pty.fork()
    if pid == 0:
        if not stdout_on_tty:
            o = os.open(out + ".json", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(o, 1)
        os.execvp(cmd[0], cmd)
    text, typed, tty, deadline = b"", 0, [], time.time() + 60
    while time.time() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            text += data
        if typed < len(keys) and text.count(prompt) > typed and raw(fd):
            tty.append("raw")
            k = keys[typed]
            if k in "IQ":
                os.kill(pid, signal.SIGINT if k == "I" else signal.SIGQUIT)
            else:
                os.write(fd, b"\x04" if k == "D" else k.encode())
            typed += 1
    else:
        os.kill(pid, signal.SIGKILL)
        tty.append("timeout")
    lflag = termios.tcgetattr(fd)[3]
    if lflag & termios.ICANON and lflag & termios.ECHO:
        tty.append("restored")
    _, status = os.waitpid(pid, 0)
    with open(out + ".txt", "wb") as f:
        f.write(text.replace(b"\r", b""))
    with open(out + ".rc", "w") as f:
        f.write("%d\n" % os.waitstatus_to_exitcode(status))
    with open(out + ".tty", "w") as f:
        f.write(" ".join(tty) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
