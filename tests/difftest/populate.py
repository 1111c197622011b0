"""Fill a mounted filesystem with every kind of object ext4 has, from a seed.

The differential tester damages these objects one at a time, so each kind the
checker must know has to be present: deep and wide directories (a directory
of thousands of names becomes a two-level htree), small files kept inline,
fragmented files with extent trees of depth two, block-mapped files with
double indirect blocks (on ext2/ext3), sparse and huge files, fast and slow
symlinks, devices, FIFOs, sockets, hard links, extended attributes in the
inode, in a block, shared between inodes and (ea_inode) in an inode of their
own, POSIX ACLs, owners for quota, and an encrypted directory.

populate(mnt, seed, caps) returns {path: inode number} for every object, which
the tester keeps so that a damage can name its target by path.
"""
import errno
import fcntl
import os
import random
import socket
import struct


def _ioc(direction, kind, nr, size):
    return (direction << 30) | (size << 16) | (ord(kind) << 8) | nr


# fscrypt's user interface (linux/fscrypt.h): add a raw key, set a v2 policy.
FS_IOC_ADD_ENCRYPTION_KEY = _ioc(3, "f", 23, 80)
FS_IOC_SET_ENCRYPTION_POLICY = _ioc(2, "f", 19, 12)


def _write(path, data, mode=0o644):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def _posix_acl(uid, gid):
    """A system.posix_acl_access value: user::rw-, user:UID:r--, group::r--, mask, other."""
    entries = [(0x01, 6, 0xFFFFFFFF), (0x02, 4, uid), (0x04, 4, 0xFFFFFFFF),
               (0x08, 4, gid), (0x10, 4, 0xFFFFFFFF), (0x20, 4, 0xFFFFFFFF)]
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", t, p, i) for t, p, i in entries)


def _encrypt_dir(mnt, path, key):
    """Give PATH (empty) a v2 encryption policy under KEY; False when the kernel cannot."""
    arg = bytearray(80)
    struct.pack_into("<II", arg, 0, 2, 0)          # key_spec.type = IDENTIFIER
    struct.pack_into("<I", arg, 40, len(key))       # raw_size
    fd = os.open(mnt, os.O_RDONLY)
    try:
        out = bytearray(fcntl.ioctl(fd, FS_IOC_ADD_ENCRYPTION_KEY, bytes(arg) + key))
    except OSError:
        return False
    finally:
        os.close(fd)
    identifier = bytes(out[8:24])
    # version 2, AES-256-XTS contents, AES-256-CTS names, names padded to 32.
    policy = struct.pack("<BBBB4s16s", 2, 1, 4, 3, bytes(4), identifier)
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.ioctl(fd, FS_IOC_SET_ENCRYPTION_POLICY, policy)
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


def populate(mnt, seed, caps):
    """caps: the set of features the filesystem has (names as mke2fs -O spells them)."""
    rng = random.Random(seed)
    made = {}

    def rel(p):
        return "/" + os.path.relpath(p, mnt)

    def keep(p):
        made[rel(p)] = os.lstat(p).st_ino

    def sub(*parts):
        return os.path.join(mnt, *parts)

    bs = os.statvfs(mnt).f_bsize

    # Directories: a nested chain, and wide directories.
    p = mnt
    for depth in range(4):
        p = os.path.join(p, "deep%d" % depth)
        os.mkdir(p)
        keep(p)
    for d in ("small", "medium", "big"):
        os.mkdir(sub(d))
        keep(sub(d))

    # Regular files of every shape.
    _write(sub("small", "empty"), b"")
    _write(sub("small", "tiny"), rng.randbytes(40))          # inline when inline_data
    _write(sub("small", "inline-xattr"), rng.randbytes(120))  # inline, spills into system.data
    _write(sub("small", "one-block"), rng.randbytes(bs))
    _write(sub("small", "few-blocks"), rng.randbytes(5 * bs + 17))
    for name in ("empty", "tiny", "inline-xattr", "one-block", "few-blocks"):
        keep(sub("small", name))
    # Fragmented: blocks written with holes between them give one extent each; enough
    # of them push the tree to depth two (an index in the inode, index and leaf blocks).
    # Long: contiguous in the file (indirect and double-indirect blocks on block-mapped
    # filesystems). Its blocks are written turn about with the fragmented file's, so
    # that its first ones interleave with those on disk: more extents than the inode
    # holds give it a leaf block below the inode (depth one), a shape no other file has.
    extents = 4 * ((bs - 12) // 12) + 40
    chunk = rng.randbytes(bs)
    long_data = rng.randbytes((12 + bs // 4 + 40) * bs)
    frag = os.open(sub("medium", "fragmented"), os.O_WRONLY | os.O_CREAT, 0o644)
    long_ = os.open(sub("medium", "long"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        for i in range(max(extents, len(long_data) // bs)):
            if i < extents:
                os.pwrite(frag, chunk, 2 * i * bs)
            if i * bs < len(long_data):
                os.pwrite(long_, long_data[i * bs:(i + 1) * bs], i * bs)
    finally:
        os.close(frag)
        os.close(long_)
    keep(sub("medium", "fragmented"))
    keep(sub("medium", "long"))
    # Sparse and huge: a hole then data; a file whose size is far past its blocks.
    fd = os.open(sub("medium", "sparse"), os.O_WRONLY | os.O_CREAT, 0o644)
    os.pwrite(fd, rng.randbytes(300), 1000 * bs)
    os.close(fd)
    keep(sub("medium", "sparse"))
    fd = os.open(sub("medium", "huge"), os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        os.pwrite(fd, b"end", (1 << 34) if "extent" in caps else (1 << 30))
    except OSError:
        pass
    os.close(fd)
    keep(sub("medium", "huge"))

    # Symlinks: fast (in the inode), slow (a block), and at the block-size limit.
    os.symlink("tiny", sub("small", "fast-link"))
    os.symlink("../" * 20 + "x" * 60, sub("small", "slow-link"))
    os.symlink("y" * (bs - 1), sub("small", "long-link"))
    for name in ("fast-link", "slow-link", "long-link"):
        keep(sub("small", name))

    # Special files.
    os.mknod(sub("small", "char"), 0o620 | 0o020000, os.makedev(4, 1))
    os.mknod(sub("small", "block"), 0o660 | 0o060000, os.makedev(7, 0))
    os.mkfifo(sub("small", "fifo"))
    s = socket.socket(socket.AF_UNIX)
    s.bind(sub("small", "socket"))
    s.close()
    for name in ("char", "block", "fifo", "socket"):
        keep(sub("small", name))

    # Hard links, across directories.
    os.link(sub("small", "one-block"), sub("deep0", "hardlink"))
    keep(sub("deep0", "hardlink"))

    # Extended attributes.
    if "ext_attr" in caps:
        f = sub("small", "xattr-inline")
        _write(f, b"x")
        os.setxattr(f, "user.a", b"short")
        keep(f)
        f = sub("small", "xattr-block")
        _write(f, b"y")
        for i in range(3):
            os.setxattr(f, "user.big%d" % i, rng.randbytes(bs // 5))
        keep(f)
        # The same attributes on two inodes share one block (refcount 2).
        shared = rng.randbytes(bs // 3)
        for name in ("shared-a", "shared-b"):
            f = sub("small", name)
            _write(f, b"z")
            os.setxattr(f, "user.shared", shared)
            keep(f)
        f = sub("small", "acl")
        _write(f, b"acl")
        try:
            os.setxattr(f, "system.posix_acl_access", _posix_acl(1000, 100))
        except OSError:
            pass
        keep(f)
        if "ea_inode" in caps:
            f = sub("small", "xattr-ea-inode")
            _write(f, b"w")
            os.setxattr(f, "user.huge", rng.randbytes(bs + 500))
            keep(f)
        os.setxattr(sub("deep0"), "user.dir", b"on a directory")

    # Owners (quota usage per user and group) and project ids.
    for i in range(6):
        f = sub("medium", "owned%d" % i)
        _write(f, rng.randbytes(rng.randrange(1, 3 * bs)))
        os.chown(f, 1000 + i % 3, 100 + i % 2)
        keep(f)
    # Project ids need the project feature, which this kernel may not mount without
    # quota support: flavours.py sets them afterwards on these files.
    os.mkdir(sub("projects"))
    keep(sub("projects"))
    for i in range(3):
        f = sub("projects", "p%d" % i)
        _write(f, rng.randbytes(bs))
        keep(f)

    # A wide directory: enough names (hard links, so no inodes are spent) for an
    # htree of two levels under dir_index; linear on ext2.
    target = sub("big", "target")
    _write(target, b"t")
    keep(target)
    per_leaf = bs // 24
    per_root = (bs - 40) // 8
    names = per_leaf * (per_root + 8) if bs <= 2048 else per_leaf * 40
    names = min(names, 20000)
    for i in range(names):
        os.link(target, sub("big", "name-%06d-%x" % (i, rng.getrandbits(24))))
    # A medium directory of real inodes: an htree of one level.
    for i in range(150):
        f = sub("medium", "entry-%04d" % i)
        _write(f, b"")
        if i % 10 == 0:
            keep(f)
    # Small directories, some inline.
    for i in range(3):
        d = sub("small", "dir%d" % i)
        os.mkdir(d)
        keep(d)
        for j in range(i):
            _write(os.path.join(d, "f%d" % j), b"d")

    # An encrypted directory with files and a subdirectory in it.
    if "encrypt" in caps:
        d = sub("secret")
        os.mkdir(d)
        if _encrypt_dir(mnt, d, rng.randbytes(64)):
            keep(d)
            for i in range(4):
                f = os.path.join(d, "hidden-name-%d" % i)
                _write(f, rng.randbytes(rng.randrange(1, 2 * bs)))
                keep(f)
            os.mkdir(os.path.join(d, "inner"))
            keep(os.path.join(d, "inner"))
            os.symlink("target-of-an-encrypted-link", os.path.join(d, "link"))
            keep(os.path.join(d, "link"))

    made["/"] = os.stat(mnt).st_ino
    return made
