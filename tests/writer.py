#!/usr/bin/env python3
"""Oracle helpers for the writer tests.

kernel IMAGE SCRIPT   perform SCRIPT (e4recover write's format) on IMAGE with the kernel
                      (loop mount; `commit` is sync(2); contents from DESIGN.md's rule)
tree DIR [--no-ino] [--no-links]
                      one line per entry under DIR: path, type, inode, links, size, sha256/target
"""
import hashlib, os, subprocess, sys, tempfile


def content(path, offset, length):
    """Byte o of a file written as PATH: FNV-1a of the path, mixed with the offset."""
    h = 2166136261
    for c in path.encode():
        h = ((h ^ c) * 16777619) & 0xFFFFFFFF
    return bytes((((h >> (8 * (o & 3))) ^ (o >> 2) ^ (o >> 10)) & 0xFF)
                 for o in range(offset, offset + length))


def run_script(root, lines):
    for raw in lines:
        words = raw.split('#', 1)[0].split()
        if not words:
            continue
        op, args = words[0], words[1:]
        p = lambda a: os.path.join(root, a.lstrip('/'))
        if op == 'mkdir':
            os.mkdir(p(args[0]))
        elif op == 'create':
            with open(p(args[0]), 'xb') as f:
                f.write(content(args[0], 0, int(args[1])))
        elif op == 'append':
            with open(p(args[0]), 'ab') as f:
                off = f.seek(0, 2)
                f.write(content(args[0], off, int(args[1])))
        elif op == 'truncate':
            os.truncate(p(args[0]), int(args[1]))
        elif op == 'unlink':
            os.unlink(p(args[0]))
        elif op == 'rmdir':
            os.rmdir(p(args[0]))
        elif op == 'rename':
            os.rename(p(args[0]), p(args[1]))
        elif op == 'link':
            os.link(p(args[0]), p(args[1]))
        elif op == 'symlink':
            os.symlink(args[0], p(args[1]))
        elif op == 'commit':
            os.sync()
        elif op == 'crash':
            break
        else:
            raise SystemExit('unknown op ' + op)


def kernel(image, script):
    mnt = tempfile.mkdtemp(prefix='e4r-k-')
    subprocess.run(['mount', '-o', 'loop', image, mnt], check=True)
    try:
        with open(script) as f:
            run_script(mnt, f.readlines())
        os.sync()
    finally:
        subprocess.run(['umount', mnt], check=True)
        os.rmdir(mnt)


def tree(top, with_ino, with_links=True):
    out = []
    for d, dirs, files in os.walk(top):
        dirs.sort()
        for name in sorted(dirs + files):
            full = os.path.join(d, name)
            rel = os.path.relpath(full, top)
            if rel == 'lost+found':
                continue
            st = os.lstat(full)
            if os.path.islink(full):
                kind, what = 'l', os.readlink(full)
            elif os.path.isdir(full):
                kind, what = 'd', '-'
            else:
                with open(full, 'rb') as f:
                    kind, what = 'f', hashlib.sha256(f.read()).hexdigest()[:16]
            ino = st.st_ino if with_ino else 0
            size = st.st_size if kind != 'd' else 0
            out.append('%s %s ino=%d links=%d size=%d %s' % (rel, kind, ino, st.st_nlink if with_links else 0, size, what))
    print('\n'.join(out))


if __name__ == '__main__':
    if sys.argv[1] == 'kernel':
        kernel(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == 'tree':
        tree(sys.argv[2], '--no-ino' not in sys.argv, '--no-links' not in sys.argv)
    else:
        raise SystemExit(__doc__)
