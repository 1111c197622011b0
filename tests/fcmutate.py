#!/usr/bin/env python3
"""Hostile but committed fast commits, for robustness tests.

fcmutate.py E4RECOVER IMAGE OUT SEED [P]

Copies IMAGE to OUT and, in OUT's fast-commit area, changes values of the
committed tags with probability P each (default 0.5): inode numbers (0,
reserved, past the end), logical blocks and lengths (0, huge), physical
blocks (0, metadata, past the end), name bytes ('/', '.', NUL), raw inode
bytes. Every TAIL's crc32c (raw, from 0 after the previous TAIL, as ext4
writes it) is recomputed, so the tags stay committed and reach the replay.
The area's place comes from E4RECOVER's logdump --json and debugfs's bmap.
"""
import json, random, shutil, struct, subprocess, sys

def crc32c(crc, data, _t=[]):
    if not _t:
        for i in range(256):
            c = i
            for _ in range(8):
                c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
            _t.append(c)
    for b in data:
        crc = _t[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc

e4r, img, out, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
P = float(sys.argv[5]) if len(sys.argv) > 5 else 0.5
TAG_ADD_RANGE, TAG_DEL_RANGE, TAG_CREAT, TAG_LINK, TAG_UNLINK, TAG_INODE, TAG_TAIL = 1, 2, 3, 4, 5, 6, 8
rng = random.Random(seed)
shutil.copy(img, out)
d = json.loads(subprocess.run([e4r, "logdump", "--json", img], capture_output=True, text=True).stdout)
j = d["journal"]; bs = j["blocksize"]; fce = d["fast_commit_end"]
first, n = fce["first_block"], fce["blocks"]
fsbs = int(subprocess.run("dumpe2fs -h %s 2>/dev/null | sed -n 's/^Block size: *//p'" % img, shell=True, capture_output=True, text=True).stdout)
phys = [int(subprocess.run(["debugfs", "-c", "-R", "bmap <8> %d" % (first + i), img], capture_output=True, text=True).stdout.split()[0]) for i in range(n)]
f = open(out, "r+b")
area = bytearray()
for p in phys:
    f.seek(p * fsbs); area += f.read(bs)
ncommit = fce["committed_tags"]
inodes = int(subprocess.run("dumpe2fs -h %s 2>/dev/null | sed -n 's/^Inode count: *//p'" % img, shell=True, capture_output=True, text=True).stdout)
blocks = int(subprocess.run("dumpe2fs -h %s 2>/dev/null | sed -n 's/^Block count: *//p'" % img, shell=True, capture_output=True, text=True).stdout)
def rnd_ino():
    return rng.choice([0, 1, 2, 7, 8, 11, 12, rng.randrange(1, inodes + 1), inodes, inodes + 1, 0xFFFFFFFF])
def rnd_blk():
    return rng.choice([0, 1, 2, rng.randrange(blocks), blocks - 1, blocks, 1 << 40])
off, crc, seen = 0, 0, 0
while off + 4 <= len(area) and seen < ncommit:
    seen += 1
    tag, ln = struct.unpack_from("<HH", area, off)
    v = off + 4
    if tag == TAG_TAIL:
        struct.pack_into("<I", area, v + 4, crc32c(crc, bytes(area[off:v + 4])))
        crc = 0
        off = v + ln
        continue
    if rng.random() < P:
        if tag in (TAG_ADD_RANGE, TAG_DEL_RANGE):
            k = rng.randrange(4)
            if k == 0: struct.pack_into("<I", area, v, rnd_ino())
            elif k == 1: struct.pack_into("<I", area, v + 4, rng.choice([0, 1, 0xFFFFFFFF, rng.randrange(1 << 32)]))
            elif k == 2 and tag == TAG_ADD_RANGE: struct.pack_into("<H", area, v + 8, rng.choice([0, 1, 32768, 32769, 65535, rng.randrange(65536)]))
            elif k == 2: struct.pack_into("<I", area, v + 8, rng.choice([0, 1, 0xFFFFFFFF, rng.randrange(1 << 32)]))
            elif tag == TAG_ADD_RANGE:
                b = rnd_blk(); struct.pack_into("<HI", area, v + 10, (b >> 32) & 0xFFFF, b & 0xFFFFFFFF)
        elif tag in (TAG_CREAT, TAG_LINK, TAG_UNLINK):
            k = rng.randrange(3)
            if k == 0: struct.pack_into("<I", area, v, rnd_ino())
            elif k == 1: struct.pack_into("<I", area, v + 4, rnd_ino())
            elif ln > 8: area[v + 8 + rng.randrange(ln - 8)] = rng.choice([0, ord('/'), ord('.'), rng.randrange(256)])
        elif tag == TAG_INODE:
            if rng.random() < 0.3: struct.pack_into("<I", area, v, rnd_ino())
            else:
                for _ in range(rng.randrange(1, 6)):
                    area[v + 4 + rng.randrange(ln - 4)] = rng.randrange(256)
    crc = crc32c(crc, bytes(area[off:v + ln]))
    off = v + ln
for i, p in enumerate(phys):
    f.seek(p * fsbs); f.write(area[i * bs:(i + 1) * bs])
f.close()
