#!/usr/bin/env python3
"""Content listing of a filesystem, to compare two recoveries of one image.

fslisting.py [--loose-dirs] MOUNTPOINT IMAGE

MOUNTPOINT is IMAGE mounted read-only. One line per path (lost+found left
out), sorted: path, inode number, mode, size, link count, data blocks (from
debugfs's "blocks", one batch run on IMAGE) and an md5 of the content (a
file's data, a symlink's target, a directory's sorted names). Two images
that list the same hold the same tree, inode for inode and block for block.
--loose-dirs leaves out a directory's link count and blocks: the kernel's
fast-commit replay gives a directory it creates a link count of 1 and its
parent none more, and a new block of its allocator's choosing (fast commits
never log directory blocks), so those are judged by e2fsck, not compared.
"""
import hashlib
import os
import stat
import subprocess
import sys


def content_md5(path, st):
    h = hashlib.md5()
    if stat.S_ISREG(st.st_mode):
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 16), b""):
                h.update(chunk)
    elif stat.S_ISLNK(st.st_mode):
        h.update(os.readlink(path).encode())
    elif stat.S_ISDIR(st.st_mode):
        h.update("/".join(sorted(os.listdir(path))).encode())
    return h.hexdigest()


def block_maps(image, inos):
    """{ino: 'b1,b2,...'} from debugfs 'blocks <ino>' in one run."""
    inos = sorted(inos)
    cmds = "".join("blocks <%d>\n" % i for i in inos)
    out = subprocess.run(["debugfs", "-f", "-", image], input=cmds, capture_output=True, text=True).stdout
    maps, cur = {}, None
    for line in out.splitlines():
        if line.startswith("debugfs: blocks <"):
            cur = int(line[len("debugfs: blocks <"):].rstrip(">"))
            maps[cur] = ""
        elif cur is not None:
            maps[cur] += ",".join(line.split())
    return maps


def main():
    loose = sys.argv[1] == "--loose-dirs"
    mnt, image = sys.argv[1 + loose], sys.argv[2 + loose]
    rows = []
    for dirpath, dirnames, filenames in os.walk(mnt):
        if dirpath == mnt and "lost+found" in dirnames:
            dirnames.remove("lost+found")
        for name in [""] + dirnames + filenames:
            p = os.path.join(dirpath, name) if name else dirpath
            if name == "" and dirpath != mnt:
                continue        # each directory is listed by its parent
            st = os.lstat(p)
            rows.append((os.path.relpath(p, mnt), st))
    maps = block_maps(image, {st.st_ino for _, st in rows})
    for rel, st in sorted(rows, key=lambda r: r[0]):
        links, blocks = st.st_nlink, maps.get(st.st_ino, "?")
        if loose and stat.S_ISDIR(st.st_mode):
            links, blocks = "-", "-"
        print("%s ino=%d mode=%o size=%d links=%s blocks=%s md5=%s" % (
            rel, st.st_ino, st.st_mode, st.st_size, links, blocks,
            content_md5(os.path.join(mnt, rel), st)))


if __name__ == "__main__":
    main()
