#!/usr/bin/env python3
"""Seeded workload that leaves fast commits for the kernel to replay.

fcwork.py MOUNTPOINT SEED

Run on an ext4 mounted with fast_commit and commit=60 (so that no periodic
full commit overtakes the fast commits). Phase 1 builds a tree and syncs it
(home blocks written). Phase 2 makes creates, mkdirs (nested too), appends,
truncates, unlinks, hard links and symlinks, each followed by an fsync of a
regular file: every fsync is a fast commit when the changes since the last
full commit are fast-commit eligible (a rename or a symlink is not: the
kernel then makes a full commit). The caller then shuts
the filesystem down without flushing the log.
"""
import os
import random
import sys


def data(rng, n):
    return rng.randbytes(n)


def fsync_any(tree):
    """A fast commit carries every change since the last full commit: fsync
    some regular file (fsync of a directory would force a full commit)."""
    if tree.files:
        fsync_path(tree.rng.choice(tree.files))


def fsync_path(p):
    fd = os.open(p, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Tree:
    def __init__(self, root, rng):
        self.root, self.rng = root, rng
        self.dirs, self.files = [root], []

    def name(self, prefix):
        return os.path.join(self.rng.choice(self.dirs), "%s%d" % (prefix, self.rng.randrange(1 << 20)))

    def mkdir(self, sync):
        d = self.name("d")
        os.mkdir(d)
        self.dirs.append(d)
        # a file in the new directory most of the time: its CREAT names a new parent
        if self.rng.random() < 0.7:
            self.create(sync, os.path.join(d, "f%d" % self.rng.randrange(1 << 20)))
        elif sync:
            fsync_any(self)

    def create(self, sync, f=None):
        f = f or self.name("f")
        if os.path.lexists(f):
            return
        with open(f, "wb") as fh:
            fh.write(data(self.rng, self.rng.choice([0, 1, 100, 4096, 5000, 70000, 200000])))
            fh.flush()
            if sync:
                os.fsync(fh.fileno())
        self.files.append(f)

    def append(self, sync):
        f = self.rng.choice(self.files)
        with open(f, "ab") as fh:
            fh.write(data(self.rng, self.rng.randrange(1, 30000)))
            fh.flush()
            if sync:
                os.fsync(fh.fileno())

    def truncate(self, sync):
        f = self.rng.choice(self.files)
        with open(f, "r+b") as fh:
            fh.truncate(self.rng.randrange(0, 12000))
            if sync:
                os.fsync(fh.fileno())

    def unlink(self, sync):
        f = self.files.pop(self.rng.randrange(len(self.files)))
        os.unlink(f)
        if sync:
            fsync_any(self)

    def link(self, sync):
        f = self.rng.choice(self.files)
        g = self.name("h")
        if os.path.lexists(g):
            return
        os.link(f, g)
        self.files.append(g)
        if sync:
            fsync_path(f)

    def symlink(self, sync):
        s = self.name("s")
        if os.path.lexists(s):
            return
        os.symlink("t" * self.rng.choice([5, 80, 200]), s)
        if sync:
            fsync_any(self)

    def rename(self, sync):
        f = self.rng.choice(self.files)
        g = self.name("r")
        if os.path.lexists(g):
            return
        os.rename(f, g)
        self.files[self.files.index(f)] = g
        if sync:
            fsync_path(g)

    def step(self, sync):
        r = self.rng.random()
        if r < 0.15 or len(self.dirs) < 3:
            self.mkdir(sync)
        elif r < 0.50 or not self.files:
            self.create(sync)
        elif r < 0.62:
            self.append(sync)
        elif r < 0.70:
            self.truncate(sync)
        elif r < 0.80:
            self.unlink(sync)
        elif r < 0.88:
            self.link(sync)
        elif r < 0.93:
            self.symlink(sync)
        else:
            self.rename(sync)


def main():
    root, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    t = Tree(root, rng)
    for _ in range(rng.randrange(10, 60)):
        try:
            t.step(False)
        except OSError:
            pass        # ENOSPC is part of the workload
    os.sync()
    for _ in range(rng.randrange(5, 80)):
        try:
            t.step(True)
        except OSError:
            pass


if __name__ == "__main__":
    main()
