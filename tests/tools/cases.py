"""Run one comparison per image and tally, for the tools/*_vs_*.py scripts.

Each comparison returns (ok, message). Prints "ok   IMAGE: message" or
"FAIL IMAGE: message" per image, then "N passed, N failed"; the exit code is 1
when anything failed.
"""
import os
import subprocess
import sys
import tempfile

TIMEOUT = 300


def run(cmd):
    """(exit code, stdout + stderr); the exit code is "timeout" when it hung,
    negative when a signal killed it."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return "timeout", ""
    return p.returncode, p.stdout + p.stderr


def died(rc):
    return rc == "timeout" or rc < 0


def main(argv, compare, usage):
    if len(argv) < 3:
        sys.stderr.write("usage: %s\n" % usage)
        return 2
    program, images = os.path.abspath(argv[1]), argv[2:]
    passed = failed = 0
    for img in images:
        with tempfile.TemporaryDirectory(prefix="e4r-cases.") as tmp:
            ok, msg = compare(program, img, tmp)
        passed += ok
        failed += not ok
        print("%s %s: %s" % ("ok  " if ok else "FAIL", img, msg))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0
