#!/usr/bin/env python3
"""Extended attribute entry hashes in every form e2fsck 1.47 accepts, and a
tool to rewrite one entry's hash in a chosen form.

An entry's hash (e_hash) covers its name and then its value. The name is
hashed a byte at a time; libext2fs and the kernel once took the bytes as
plain (signed, on x86) chars, so a name byte above 127 entered the hash
sign-extended. Both tools now compute with unsigned bytes and accept the
signed form as well (e2fsck: ext2fs_ext_attr_hash_entry_signed). The value
is hashed a little-endian word at a time; a value that lives in an EA inode
is hashed through the value's own hash (the EA inode's i_atime) as the
single word. In-inode entries may also keep a zero hash (older kernels),
except an EA-inode entry, whose hash e2fsck always checks.

    xattrhash.py IMAGE INODE ibody|block K FORM [FSMETA]

rewrites the hash of the K-th entry (from 0) of INODE's in-inode attributes
or of its attribute block in FORM (unsigned, signed, zero), and reseals the
checksum with tests/tools/fsmeta when FSMETA is given. It prints the old and
the new hash.
"""
import struct
import subprocess
import sys

NAME_SHIFT = 5
VALUE_SHIFT = 16
FORMS = ("unsigned", "signed", "zero")


def _rot(h, shift):
    return ((h << shift) & 0xffffffff) ^ (h >> (32 - shift))


def name_hash(name, signed):
    h = 0
    for c in name:
        if signed and c >= 0x80:
            c |= 0xffffff00
        h = _rot(h, NAME_SHIFT) ^ c
    return h


def entry_hash(name, value, value_inum, ea_inode_hash, form):
    """FORM's hash of an entry: NAME (bytes), VALUE (bytes, the value in
    place; ignored when VALUE_INUM), EA_INODE_HASH (the EA inode's i_atime)."""
    if form == "zero":
        return 0
    h = name_hash(name, form == "signed")
    if value_inum:
        return _rot(h, VALUE_SHIFT) ^ ea_inode_hash
    padded = value + bytes(-len(value) % 4)
    for (w,) in struct.iter_unpack("<I", padded):
        h = _rot(h, VALUE_SHIFT) ^ w
    return h


def entries(buf, first, end):
    """Offsets of the entries in BUF from FIRST, before END."""
    out, pos = [], first
    while pos + 16 <= end and buf[pos:pos + 4] != b"\0\0\0\0":
        out.append(pos)
        pos += (16 + buf[pos] + 3) & ~3
    return out


def _debugfs(img, cmd):
    return subprocess.run(["debugfs", "-R", cmd, img], capture_output=True,
                          text=True).stdout


def inode_offset(img, ino):
    out = _debugfs(img, "imap <%d>" % ino)
    blk = int(out.split("located at block ")[1].split(",")[0])
    off = int(out.split("offset ")[1].split()[0], 16)
    bs = int(_debugfs(img, "stats").split("Block size:")[1].split()[0])
    return blk * bs + off, bs


def ea_inode_hash(data, img, inum):
    off, _ = inode_offset(img, inum)
    return struct.unpack_from("<I", data, off + 8)[0]	# i_atime


def rehash(img, ino, where, k, form, fsmeta=None):
    with open(img, "rb") as f:
        data = bytearray(f.read())
    ioff, bs = inode_offset(img, ino)
    if where == "ibody":
        extra = struct.unpack_from("<H", data, ioff + 128)[0]
        base = ioff + 128 + extra + 4	# values are counted from the first entry
        isize = int(_debugfs(img, "stats").split("Inode size:")[1].split()[0])
        ents = entries(data, base, ioff + isize)
        obj = "inode:%d" % ino
    else:
        blk = struct.unpack_from("<I", data, ioff + 104)[0]
        base = blk * bs
        ents = [base + e for e in entries(data[base:base + bs], 32, bs)]
        obj = "xattr:%d" % blk
    e = ents[k]
    nlen = data[e]
    voffs, vinum, vsize, old = struct.unpack_from("<HIII", data, e + 2)
    name = bytes(data[e + 16:e + 16 + nlen])
    value = bytes(data[base + voffs:base + voffs + vsize]) if not vinum else b""
    eah = ea_inode_hash(data, img, vinum) if vinum else 0
    new = entry_hash(name, value, vinum, eah, form)
    with open(img, "r+b") as f:
        f.seek(e + 12)
        f.write(struct.pack("<I", new))
    if fsmeta:
        subprocess.run([fsmeta, "reseal", img, obj], check=True, capture_output=True)
    return old, new


if __name__ == "__main__":
    if len(sys.argv) < 6 or sys.argv[3] not in ("ibody", "block") or sys.argv[5] not in FORMS:
        sys.exit(__doc__)
    o, n = rehash(sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5],
                  sys.argv[6] if len(sys.argv) > 6 else None)
    print("%#x %#x" % (o, n))
