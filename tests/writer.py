#!/usr/bin/env python3
"""Oracle helpers for the writer tests.

kernel IMAGE SCRIPT [OPTIONS]
                      perform SCRIPT (e4recover write's format) on IMAGE with the kernel
                      (mounted with OPTIONS, loop by default, on one CPU; `commit` writes the
                      files dirtied since the last one back in order (sync_file_range), then
                      syncfs(2); contents from DESIGN.md's rule)
tree DIR [--no-ino] [--no-links]
                      one line per entry under DIR: path, type, inode, links, size, sha256/target
blocks DIR            one line per entry under DIR that has blocks: path and its physical
                      blocks in logical order (FIEMAP, as the kernel reports them)
agree OURS KERNEL     compare two `blocks` outputs: print "SAME TOTAL" (blocks at the same
                      logical position of the same path that have the same physical number);
                      the first entries that differ go to stderr
script NAME           print the allocation script NAME (see SCRIPTS)
"""
import ctypes, fcntl, hashlib, os, struct, subprocess, sys, tempfile


def syncfs(root):
    """sync(2) for ROOT's filesystem only: a global sync would also commit the journals of
    the filesystems that tests running at the same time have mounted."""
    fd = os.open(root, os.O_RDONLY)
    try:
        if ctypes.CDLL(None, use_errno=True).syncfs(fd) != 0:
            raise OSError(ctypes.get_errno(), 'syncfs ' + root)
    finally:
        os.close(fd)


LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.sync_file_range.argtypes = [ctypes.c_int, ctypes.c_longlong, ctypes.c_longlong, ctypes.c_uint]
# SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER
SYNC_RANGE_ALL = 1 | 2 | 4


def sync_file(path):
    """Write PATH's dirty pages back from this process and wait (sync_file_range(2),
    through libc: Python's os module does not have it everywhere)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        if LIBC.sync_file_range(fd, 0, 0, SYNC_RANGE_ALL) != 0:
            raise OSError(ctypes.get_errno(), 'sync_file_range ' + path)
    finally:
        os.close(fd)


def content(path, offset, length):
    """Byte o of a file written as PATH: FNV-1a of the path, mixed with the offset."""
    h = 2166136261
    for c in path.encode():
        h = ((h ^ c) * 16777619) & 0xFFFFFFFF
    return bytes((((h >> (8 * (o & 3))) ^ (o >> 2) ^ (o >> 10)) & 0xFF)
                 for o in range(offset, offset + length))


def written_back_early(full, start, end):
    """Whether a block of bytes [START, END) of FULL already has its place (not delalloc).
    The block START falls in may have had its place before the write (an append to a
    partial last block): only the blocks from the next boundary on are looked at."""
    bs = os.statvfs(full).f_bsize
    start = (start + bs - 1) // bs * bs
    for lo, ph, ln, flags in fiemap(full, sync=False):
        if lo < end and start < lo + ln and not flags & FIEMAP_EXTENT_DELALLOC:
            return True
    return False


def write_back(root, dirty):
    """Write the dirtied files back from this process, oldest first, before syncfs(2).

    sync would leave it to the flusher threads, on whatever CPU they run: ext4 packs
    small files into a per-CPU preallocation, so the block numbers would depend on
    the scheduler. sync_file_range runs the same writeback here, on our one CPU.
    DIRTY maps inode numbers (first dirtied first) to [start, end, names]: every name
    of the inode must be followed, since one left behind (a link whose first name was
    unlinked) would be written back by the flusher.
    Returns whether the flusher had already written some of them back (on a busy
    machine it starts background writeback on its own)."""
    early = False
    for ino, (start, end, names) in dirty.items():
        full = os.path.join(root, sorted(names)[0].lstrip('/'))
        if not os.path.isfile(full) or os.path.islink(full):
            continue
        early = early or written_back_early(full, start, min(end, os.path.getsize(full)))
        sync_file(full)
    dirty.clear()
    syncfs(root)
    return early


def run_script(root, lines):
    """Perform the script under ROOT; returns whether any writeback came early."""
    dirty = {}          # inode -> [first byte, end, its names] of the files written since the last commit
    names = {}          # inode -> the names of every regular file (a dirty one is reached by any)
    early = False

    def dirtied(path, start, end):
        ino = os.lstat(p(path)).st_ino
        names.setdefault(ino, set()).add(path)
        was = dirty.setdefault(ino, [start, end, names[ino]])
        was[0], was[1] = min(start, was[0]), max(end, was[1])

    def renamed(old, new):
        for ns in names.values():
            moved = {new + d[len(old):] if d == old or d.startswith(old + '/') else d for d in ns}
            ns.clear()
            ns.update(moved)

    def unlinked(path):
        ino = os.lstat(p(path)).st_ino
        names.get(ino, set()).discard(path)
        if not names.get(ino):
            names.pop(ino, None)
            dirty.pop(ino, None)

    p = lambda a: os.path.join(root, a.lstrip('/'))
    for raw in lines:
        words = raw.split('#', 1)[0].split()
        if not words:
            continue
        op, args = words[0], words[1:]
        if op == 'mkdir':
            os.mkdir(p(args[0]))
        elif op == 'create':
            with open(p(args[0]), 'xb') as f:
                f.write(content(args[0], 0, int(args[1])))
            dirtied(args[0], 0, int(args[1]))
        elif op == 'append':
            with open(p(args[0]), 'ab') as f:
                off = f.seek(0, 2)
                f.write(content(args[0], off, int(args[1])))
            dirtied(args[0], off, off + int(args[1]))
        elif op == 'truncate':
            os.truncate(p(args[0]), int(args[1]))
        elif op == 'unlink':
            unlinked(args[0])
            os.unlink(p(args[0]))
        elif op == 'rmdir':
            os.rmdir(p(args[0]))
        elif op == 'rename':
            os.rename(p(args[0]), p(args[1]))
            renamed(args[0], args[1])
        elif op == 'link':
            os.link(p(args[0]), p(args[1]))
            names.setdefault(os.lstat(p(args[1])).st_ino, set()).update(args)
        elif op == 'symlink':
            os.symlink(args[0], p(args[1]))
        elif op == 'commit':
            early = write_back(root, dirty) or early
        elif op == 'crash':
            break
        else:
            raise SystemExit('unknown op ' + op)
    return write_back(root, dirty) or early     # what the unmount would write


def kernel(image, script, tries=5, options='loop'):
    """Run SCRIPT on IMAGE through the kernel (mounted with OPTIONS); again from the same
    image (up to TRIES times) when the flusher wrote files back before the script's
    commit did."""
    with open(script) as f:
        lines = f.readlines()
    fd, saved = tempfile.mkstemp(prefix='e4r-k-', suffix='.img', dir=os.path.dirname(os.path.abspath(image)))
    os.close(fd)
    subprocess.run(['cp', '--sparse=always', image, saved], check=True)
    mnt = tempfile.mkdtemp(prefix='e4r-k-')
    try:
        for attempt in range(tries):
            if attempt:
                subprocess.run(['cp', '--sparse=always', saved, image], check=True)
            subprocess.run(['mount', '-o', options, image, mnt], check=True)
            try:
                # One CPU: the kernel's per-CPU counters (which Orlov reads) and its
                # locality group preallocation then behave as the writer models them.
                if hasattr(os, 'sched_setaffinity'):
                    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
                early = run_script(mnt, lines)
            finally:
                subprocess.run(['umount', mnt], check=True)
            if not early:
                return
        sys.stderr.write('writer.py: %s: the flusher wrote files back early in %d runs\n' % (image, tries))
    finally:
        os.rmdir(mnt)
        os.unlink(saved)


def entries(top):
    """(path relative to TOP, full path) of every entry under TOP but lost+found, sorted."""
    for d, dirs, files in os.walk(top):
        dirs.sort()
        for name in sorted(dirs + files):
            full = os.path.join(d, name)
            rel = os.path.relpath(full, top)
            if rel != 'lost+found':
                yield rel, full


def tree(top, with_ino, with_links=True):
    out = []
    for rel, full in entries(top):
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


FS_IOC_FIEMAP = 0xC020660B
FIEMAP_FLAG_SYNC = 1
FIEMAP_EXTENT_LAST = 1
FIEMAP_EXTENT_DELALLOC = 4


def fiemap(path, sync=True):
    """The byte extents of PATH: [(logical, physical, length, flags)]; SYNC writes it back first."""
    out, start = [], 0
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        while True:
            count = 64
            req = bytearray(struct.pack('=QQLLLL', start, 2**64 - 1 - start,
                                        FIEMAP_FLAG_SYNC if sync else 0, 0, count, 0))
            req += bytes(56 * count)
            fcntl.ioctl(fd, FS_IOC_FIEMAP, req)
            mapped = struct.unpack_from('=L', req, 20)[0]
            last = False
            for i in range(mapped):
                lo, ph, ln, _, _, fl = struct.unpack_from('=QQQQQL', req, 32 + 56 * i)
                out.append((lo, ph, ln, fl))
                start = lo + ln
                last = last or fl & FIEMAP_EXTENT_LAST
            if not mapped or last or mapped < count:
                return out
    finally:
        os.close(fd)


def blocks(top):
    bs = os.statvfs(top).f_bsize
    lines = []
    for rel, full in entries(top):
        if os.path.islink(full):
            continue
        blks = []
        for lo, ph, ln, flags in fiemap(full):
            blks += ['%d:%d' % (lo // bs + i, ph // bs + i) for i in range(ln // bs)]
        if blks:
            lines.append(rel + ' ' + ' '.join(blks))
    print('\n'.join(lines))


def agree(ours, theirs):
    def load(p):
        with open(p) as f:
            return {w[0]: dict(x.split(':') for x in w[1:]) for w in (l.split() for l in f) if w}
    a, b = load(ours), load(theirs)
    same = total = shown = 0
    for path, m in b.items():
        for lblk, pblk in m.items():
            total += 1
            same += a.get(path, {}).get(lblk) == pblk
        if a.get(path) != m and shown < 5:
            shown += 1
            first = lambda d: ' '.join('%s:%s' % kv for kv in list(d.items())[:3])
            sys.stderr.write('# %s: ours %s, kernel %s\n' % (path, first(a.get(path, {})), first(m)))
    print(same, total)


# Scripts whose inode (and block) numbers are compared with the kernel's.
def script(name):
    out = []
    op = lambda *w: out.append(' '.join(str(x) for x in w))
    if name == 'nested':            # a chain of directories, files at every level
        path = ''
        for i in range(6):
            path += '/n%d' % i
            op('mkdir', path)
            for j in range(3):
                op('create', '%s/f%d' % (path, j), 1000 * (j + 1))
        op('commit')
    elif name == 'topdirs':         # top-level directories spread by the hash of their names
        for i in range(12):
            op('mkdir', '/top%d' % i)
            op('create', '/top%d/a' % i, 3000)
        op('commit')
    elif name == 'topdirs-then-sub':  # top-level and second-level directories, files inside
        for i in range(4):
            op('mkdir', '/p%d' % i)
            for j in range(4):
                op('mkdir', '/p%d/s%d' % (i, j))
                op('create', '/p%d/s%d/f' % (i, j), 2000)
            op('commit')
    elif name == 'many-files':      # more files than one group holds
        for i in range(600):
            op('create', '/f%03d' % i, 100 + i)
        op('commit')
    elif name == 'many-files-dirs':  # files of several directories spill over the groups
        for d in range(6):
            op('mkdir', '/d%d' % d)
        for i in range(150):
            for d in range(6):
                op('create', '/d%d/f%03d' % (d, i), 500)
        op('commit')
    elif name == 'unlink-recreate':  # freed inodes are taken again, lowest first
        for i in range(40):
            op('create', '/f%d' % i, 2000)
        op('commit')
        for i in range(0, 40, 3):
            op('unlink', '/f%d' % i)
        op('commit')
        for i in range(20):
            op('create', '/g%d' % i, 1500)
        op('commit')
    elif name == 'rmdir-recreate':  # directories removed and made again
        for i in range(8):
            op('mkdir', '/r%d' % i)
            op('mkdir', '/r%d/in' % i)
        op('commit')
        for i in range(0, 8, 2):
            op('rmdir', '/r%d/in' % i)
            op('rmdir', '/r%d' % i)
        op('commit')
        for i in range(6):
            op('mkdir', '/again%d' % i)
            op('mkdir', '/r1/sub%d' % i)
            op('create', '/r1/sub%d/x' % i, 700)
        op('commit')
    elif name == 'mixed':           # links, symlinks, renames among new files
        op('mkdir', '/m')
        for i in range(20):
            op('create', '/m/f%d' % i, 4000)
            if i % 4 == 0:
                op('symlink', '/m/f%d' % i, '/m/s%d' % i)
            if i % 5 == 0:
                op('link', '/m/f%d' % i, '/h%d' % i)
        op('commit')
        op('mkdir', '/m2')
        for i in range(0, 20, 2):
            op('rename', '/m/f%d' % i, '/m2/f%d' % i)
        op('symlink', '/' + 'long' * 30, '/m2/slow')
        op('mkdir', '/m2/deeper')
        op('create', '/m2/deeper/z', 9000)
        op('commit')
    elif name == 'big-files':       # files larger than a group, then small ones after them
        op('mkdir', '/b')
        for i in range(3):
            op('create', '/b/big%d' % i, 3 * 1024 * 1024)
            op('commit')
        for i in range(10):
            op('create', '/b/small%d' % i, 3000)
        op('mkdir', '/after')
        op('create', '/after/x', 5000)
        op('commit')
    else:
        raise SystemExit('unknown script ' + name)
    print('\n'.join(out))


if __name__ == '__main__':
    if sys.argv[1] == 'kernel':
        kernel(sys.argv[2], sys.argv[3], options=sys.argv[4] if len(sys.argv) > 4 else 'loop')
    elif sys.argv[1] == 'tree':
        tree(sys.argv[2], '--no-ino' not in sys.argv, '--no-links' not in sys.argv)
    elif sys.argv[1] == 'blocks':
        blocks(sys.argv[2])
    elif sys.argv[1] == 'agree':
        agree(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == 'script':
        script(sys.argv[2])
    else:
        raise SystemExit(__doc__)
