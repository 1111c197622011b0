#!/usr/bin/env python3
"""mkcrash.py OUT.img SEED [VARIANT [orphans]]: an ext4 image the kernel left mid-journal.

The kernel writes the journal (the oracle for what a real journal looks like):
a fresh image is loop-mounted with a one-second commit interval, a seeded
workload runs, and the filesystem is shut down without a log flush
($E4R_SHUTDOWN, tests/tools/shutdown.c) while committed transactions still sit
in the journal ahead of their home blocks. The image then needs recovery.

VARIANT is the journal flavour (mke2fs features, mount options):
  v3        metadata_csum, journal_checksum (checksum v3)   (default)
  v1        no metadata_csum, journal_checksum (checksum v1)
  v1async   v1 with journal_async_commit, data=writeback
  v3async   v3 with journal_async_commit, data=writeback
  nocsum    no journal checksum
  djournal  data=journal, metadata_csum, journal_checksum
  fc        fast_commit, metadata_csum
  ext3      ext3 features (no extents, no checksums), 4 KiB blocks
With "orphans", files are left deleted while open at the crash: a few of the
workload's files and one written for the purpose are opened, unlinked and held
open across a commit and the shutdown, so the journal holds the orphan list.
SEED picks the image and journal sizes and every step of the workload, so the
files written are the same each run; the kernel's timing decides where the
commits fall, so the journals are alike but not byte-identical.
Needs root and loop mounts. Prints one JSON line; exits 1 when a step fails.
"""
import json
import os
import random
import subprocess
import sys
import tempfile
import time

VARIANTS = {
    "v3": (["-t", "ext4", "-O", "metadata_csum"], "journal_checksum"),
    "v1": (["-t", "ext4", "-O", "^metadata_csum"], "journal_checksum"),
    "v1async": (["-t", "ext4", "-O", "^metadata_csum"], "journal_async_commit,data=writeback"),
    "v3async": (["-t", "ext4", "-O", "metadata_csum"], "journal_async_commit,data=writeback"),
    "nocsum": (["-t", "ext4", "-O", "^metadata_csum"], ""),
    "djournal": (["-t", "ext4", "-O", "metadata_csum"], "data=journal,journal_checksum"),
    "fc": (["-t", "ext4", "-O", "metadata_csum,fast_commit"], ""),
    "ext3": (["-t", "ext3", "-b", "4096"], ""),
}
SIZES = [0, 1, 200, 4096, 6000, 65536, 250000]


def run(*cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    return p.stdout


class Workload:
    """Seeded file operations under one directory; failures (a full disk,
    a name taken) are part of the workload and only skip the step."""

    def __init__(self, root, rng):
        self.rng, self.dirs, self.files, self.n = rng, [root], [], 0

    def name(self, prefix):
        self.n += 1
        return os.path.join(self.rng.choice(self.dirs), "%s%d" % (prefix, self.n))

    def step(self):
        r, rng = self.rng.random(), self.rng
        if r < 0.12 or len(self.dirs) < 3:
            d = self.name("d")
            os.mkdir(d)
            self.dirs.append(d)
        elif r < 0.55 or not self.files:
            f = self.name("f")
            with open(f, "wb") as out:
                out.write(rng.randbytes(rng.choice(SIZES)))
            self.files.append(f)
        elif r < 0.67:
            with open(rng.choice(self.files), "ab") as out:
                out.write(rng.randbytes(rng.randrange(1, 16384)))
        elif r < 0.77:
            os.unlink(self.files.pop(rng.randrange(len(self.files))))
        elif r < 0.83:
            i = rng.randrange(len(self.files))
            new = self.name("r")
            os.rename(self.files[i], new)
            self.files[i] = new
        elif r < 0.88:
            new = self.name("h")
            os.link(rng.choice(self.files), new)
            self.files.append(new)
        elif r < 0.94:
            os.symlink("x" * rng.choice([8, 100, 300]), self.name("s"))
        else:
            os.truncate(rng.choice(self.files), rng.randrange(12000))

    def run(self, steps, sync_now_and_then):
        for _ in range(steps):
            try:
                self.step()
            except OSError:
                pass
            if sync_now_and_then and self.rng.random() < 0.05:
                os.sync()


def make_orphans(work, mnt, rng):
    """Open some files, unlink them, keep them open; returns the open files."""
    held = []
    victims = rng.sample(work.files, min(len(work.files), rng.randrange(2, 5)))
    path = os.path.join(mnt, "orphan-new")
    with open(path, "wb") as f:
        f.write(rng.randbytes(rng.choice([4096, 65536, 250000])))
    victims.append(path)
    for v in victims:
        try:
            held.append(open(v, "rb"))
            os.unlink(v)
        except OSError:
            pass
        if v in work.files:
            work.files.remove(v)
    return held


def main(argv):
    if (len(argv) not in (3, 4, 5) or (len(argv) >= 4 and argv[3] not in VARIANTS) or
            (len(argv) == 5 and argv[4] != "orphans")):
        sys.stderr.write("usage: mkcrash.py OUT.img SEED [%s [orphans]]\n" % "|".join(VARIANTS))
        return 2
    out, seed = argv[1], int(argv[2])
    variant = argv[3] if len(argv) >= 4 else "v3"
    orphans = len(argv) == 5
    shutdown = os.environ.get("E4R_SHUTDOWN", "")
    if not os.access(shutdown, os.X_OK):
        sys.stderr.write("mkcrash.py: E4R_SHUTDOWN (the shutdown helper) is not executable: %r\n" % shutdown)
        return 1
    mkfs, options = VARIANTS[variant]
    rng = random.Random(seed)
    size_mb = rng.choice([32, 64, 128])
    journal_mb = 4 if size_mb == 32 else rng.choice([4, 8, 16])

    if os.path.exists(out):
        os.unlink(out)
    with open(out, "wb") as f:
        f.truncate(size_mb << 20)
    run("mke2fs", "-q", "-F", *mkfs, "-J", "size=%d" % journal_mb,
        "-U", "11111111-2222-3333-4444-%012x" % seed,
        "-E", "lazy_itable_init=0,hash_seed=00000000-0000-0000-0000-%012x" % seed, out)

    mnt = tempfile.mkdtemp(prefix="mkcrash-mnt.", dir=os.path.dirname(os.path.abspath(out)))
    try:
        run("mount", "-o", ",".join(o for o in ("loop", "commit=1", options) if o), out, mnt)
        try:
            work = Workload(mnt, rng)
            work.run(rng.randrange(60, 300), True)
            os.sync()
            # From here no sync: the next transactions commit (every second) to the
            # journal while their home blocks wait for writeback (30 s away). The
            # last pause may be too short for a commit: then the log ends with a
            # transaction that never got its commit block.
            work.run(rng.randrange(30, 150), False)
            time.sleep(rng.choice([1.5, 2.2]))
            work.run(rng.randrange(10, 50), False)
            held = []
            if orphans:
                # The unlinks commit (1 s interval) while the files stay open.
                held = make_orphans(work, mnt, rng)
                time.sleep(2.2)
            time.sleep(rng.choice([0, 0.5, 1.5]))
            run(shutdown, mnt)
            for f in held:
                f.close()
        finally:
            subprocess.run(["umount", mnt], capture_output=True)
    except RuntimeError as e:
        sys.stderr.write("mkcrash.py: %s\n" % e)
        return 1
    finally:
        os.rmdir(mnt)

    header = subprocess.run(["dumpe2fs", "-h", out], capture_output=True, text=True).stdout
    print(json.dumps({"image": out, "seed": seed, "variant": variant, "size_mb": size_mb,
                      "journal_mb": journal_mb, "needs_recovery": "needs_recovery" in header,
                      "orphans": orphans}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
