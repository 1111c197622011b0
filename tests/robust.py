#!/usr/bin/env python3
"""Random damage to the journals and metadata of images, then every subcommand.

Usage: robust.py E4RECOVER SEED TRIALS IMAGE...

Each trial takes one of the images, damages one to four of its journal or
metadata blocks (bit flips, random bytes, a zeroed block, a huge value at a
field-aligned offset) and appends 64 KiB of random "sentinel" bytes after
the filesystem's last block, as a partition bigger than its filesystem has.
Then it runs:

  read-only:  logdump --json --all, logdump --decode --diagnose, diagnose
              --json, replay --dry-run, check -n -f (--json): not one byte
              of the file may change;
  modifying:  replay --policy=P --undo=U (P cycles through the policies),
              check -y -f and check -p -f, each on a fresh copy: the
              sentinel must be intact, and e2undo U must give back the
              damaged input byte for byte.

Every run must end by itself within the hang limit, not by a signal, with
an exit code from the documented set (logdump, diagnose, replay: 0 1 8;
check: 0 1 4 8 12), and an exit 8 must name the image. Prints one line per
failure and 'N trials, N runs, N failures'; exits 1 on any failure. A failing
trial's damaged image is kept as fail-<trial>.img in the current directory.
"""
import os
import random
import re
import shutil
import subprocess
import sys

HANG_SECONDS = 300      # a hang limit, not a speed test: real runs take well under a second
SENTINEL = 64 * 1024
EXITS = {"logdump": {0, 1, 8}, "diagnose": {0, 1, 8}, "replay": {0, 1, 8},
         "check": {0, 1, 4, 8, 12}}
POLICIES = ["stop", "skip-block", "skip-transaction", "all", "auto"]
ENV = dict(os.environ, E2FSCK_CONFIG="/dev/null", LC_ALL="C", TZ="GMT0")


def tool(args):
    return subprocess.run(args, capture_output=True, text=True, env=ENV, errors="replace").stdout


def layout(img):
    """Block size, filesystem bytes, non-empty journal blocks, metadata blocks."""
    head = tool(["dumpe2fs", "-h", img])
    bs = int(re.search(r"^Block size:\s+(\d+)", head, re.M).group(1))
    count = int(re.search(r"^Block count:\s+(\d+)", head, re.M).group(1))
    journal = [int(b) for b in tool(["debugfs", "-R", "blocks <8>", img]).split()]
    with open(img, "rb") as f:
        def used(b):
            f.seek(b * bs)
            return any(f.read(bs))
        journal = [b for b in journal if used(b)]
    meta = set()
    for line in tool(["dumpe2fs", img]).splitlines():
        for m in re.finditer(r"(?:superblock at|Group descriptors at|bitmap at|Inode table at)"
                             r" (\d+)(?:-(\d+))?", line):
            lo = int(m.group(1))
            hi = int(m.group(2) or lo)
            meta.update(range(lo, min(hi, lo + 3) + 1))     # the first inode table blocks
    for ino in ("<2>", "<11>"):                             # root and lost+found
        meta.update(int(b) for b in tool(["debugfs", "-R", f"blocks {ino}", img]).split())
    return bs, count * bs, journal, sorted(meta)


def damage(buf, bs, blocks, rng):
    """Damage 1-4 of BLOCKS in BUF; returns what was done, for the report."""
    done = []
    for _ in range(rng.choice([1, 1, 2, 4])):
        blk = rng.choice(blocks)
        base = blk * bs
        kind = rng.choice(["flip", "flip", "bytes", "zero", "huge"])
        if kind == "flip":
            for _ in range(rng.choice([1, 1, 3, 8])):
                off = base + rng.randrange(bs)
                buf[off] ^= 1 << rng.randrange(8)
        elif kind == "bytes":
            n = rng.choice([1, 4, 16, 64])
            off = base + rng.randrange(bs - n)
            buf[off:off + n] = bytes(rng.randrange(256) for _ in range(n))
        elif kind == "zero":
            buf[base:base + bs] = bytes(bs)
        else:
            off = base + 4 * rng.randrange(bs // 4)
            buf[off:off + 4] = rng.choice([b"\xff\xff\xff\xff", b"\xff\xff\xff\x7f",
                                           b"\x00\x00\x01\x00", b"\x00\x00\x00\x80"])
        done.append(f"{kind}@{blk}")
    return done


def run(args):
    try:
        p = subprocess.run(args, capture_output=True, text=True, env=ENV, errors="replace",
                           timeout=HANG_SECONDS)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return "hang", ""


def main():
    e4r, seed, trials, images = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
    rng = random.Random(seed)
    bases = []
    for img in images:
        bs, fsbytes, journal, meta = layout(img)
        with open(img, "rb") as f:
            bases.append((img, bs, f.read(fsbytes), journal, meta))
    runs = failures = 0

    for t in range(trials):
        name, bs, data, journal, meta = bases[t % len(bases)]
        buf = bytearray(data)
        region = journal if journal and rng.random() < 0.6 else meta
        what = damage(buf, bs, region, rng)
        buf += bytes(rng.randrange(256) for _ in range(SENTINEL))
        original = bytes(buf)
        label = f"trial {t} ({os.path.basename(name)}: {', '.join(what)})"
        trial_failed = False

        def bad(msg):
            nonlocal failures, trial_failed
            failures += 1
            print(f"FAIL {label}: {msg}")
            if not trial_failed:
                with open(f"fail-{t}.img", "wb") as f:
                    f.write(original)
            trial_failed = True

        def checked(sub, args, img):
            nonlocal runs
            runs += 1
            rc, out = run([e4r, sub] + args + [img])
            if rc == "hang":
                bad(f"{sub} {' '.join(args)}: no end after {HANG_SECONDS} s")
            elif rc < 0:
                bad(f"{sub} {' '.join(args)}: killed by signal {-rc}")
            elif rc not in EXITS[sub]:
                bad(f"{sub} {' '.join(args)}: exit {rc}, not documented")
            elif rc == 8 and img not in out:
                bad(f"{sub} {' '.join(args)}: exit 8 without naming the image: {out.strip()[:200]}")
            elif "Sanitizer" in out or "runtime error" in out:
                bad(f"{sub} {' '.join(args)}: sanitizer report")
            return rc

        img = "damaged.img"
        with open(img, "wb") as f:
            f.write(original)
        policy = POLICIES[t % len(POLICIES)]
        for sub, args in (("logdump", ["--json", "--all"]),
                          ("logdump", ["--decode", "--diagnose"]),
                          ("diagnose", ["--json"]),
                          ("replay", ["--dry-run", f"--policy={policy}"]),
                          ("check", ["-n", "-f"] + (["--json"] if t % 2 else []))):
            checked(sub, args, img)
            with open(img, "rb") as f:
                if f.read() != original:
                    bad(f"{sub} {' '.join(args)} changed the image")
                    with open(img, "wb") as g:
                        g.write(original)

        for sub, args in (("replay", [f"--policy={policy}", "--undo=replay.undo"]),
                          ("check", ["-y", "-f"]), ("check", ["-p", "-f"])):
            with open(img, "wb") as f:
                f.write(original)
            for u in ("replay.undo",):
                if os.path.exists(u):
                    os.unlink(u)
            rc = checked(sub, args, img)
            with open(img, "rb") as f:
                after = f.read()
            if len(after) != len(original) or after[-SENTINEL:] != original[-SENTINEL:]:
                bad(f"{sub} {' '.join(args)} wrote outside the filesystem")
            if sub == "replay" and os.path.exists("replay.undo") and after != original:
                p = subprocess.run(["e2undo", "replay.undo", img], capture_output=True, env=ENV)
                with open(img, "rb") as f:
                    if p.returncode or f.read() != original:
                        bad(f"replay --undo (exit {rc}): e2undo did not restore the input "
                            f"(e2undo exit {p.returncode})")
    print(f"{trials} trials, {runs} runs, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
