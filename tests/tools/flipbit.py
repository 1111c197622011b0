#!/usr/bin/env python3
"""flipbit.py IMAGE SEED [KIND]: flip one bit of one journal block, in place.

KIND is what the block is, as debugfs's `logdump -a` lists the journal (the
oracle for where things are; our own logdump is what the tests check):
  data     a block logged by a transaction (default); any byte
  desc     a descriptor block     } a byte in the tags or commit fields
  commit   a commit block         } after the 12-byte block header, so the
  revoke   a revoke block         } block is still recognised as what it is
SEED picks the block, the byte and the bit, so a run replays exactly.
Prints a JSON object: kind, sequence, journal_block, fs_block (data only),
phys (the block's number in the image), byte, bit. When the journal holds no
block of that kind (or debugfs cannot read it), prints {"error": ...} and
exits 1.
"""
import json
import random
import re
import struct
import subprocess
import sys

TYPE_OF_KIND = {"desc": 1, "commit": 2, "revoke": 5}
HEADER = 12        # magic, block type, sequence
FIELDS_END = 64    # tags and commit fields start right after the header


def debugfs(img, request):
    # -c: catastrophic mode, no bitmaps read, so an image whose bitmaps only
    # the journal can make consistent again still opens.
    p = subprocess.run(["debugfs", "-c", "-R", request, img],
                       capture_output=True, text=True)
    return p.stdout


def candidates(img, kind):
    """(sequence, journal block, fs block or None) of every block of KIND."""
    found, seq = [], None
    for line in debugfs(img, "logdump -a").splitlines():
        m = re.search(r"Found expected sequence (\d+), type (\d+) .*at block (\d+)", line)
        if m:
            seq = int(m.group(1))
            if TYPE_OF_KIND.get(kind) == int(m.group(2)):
                found.append((seq, int(m.group(3)), None))
            continue
        m = re.search(r"FS block (\d+) logged at journal block (\d+)", line)
        if m and kind == "data":
            found.append((seq, int(m.group(2)), int(m.group(1))))
    return found


def fail(why):
    print(json.dumps({"error": why}))
    sys.exit(1)


def main(argv):
    if len(argv) not in (3, 4):
        sys.stderr.write("usage: flipbit.py IMAGE SEED [data|desc|commit|revoke]\n")
        return 2
    img, rng = argv[1], random.Random(int(argv[2]))
    kind = argv[3] if len(argv) == 4 else "data"
    if kind != "data" and kind not in TYPE_OF_KIND:
        sys.stderr.write("flipbit.py: unknown kind %r\n" % kind)
        return 2
    with open(img, "rb") as f:
        f.seek(1024 + 0x18)
        bs = 1024 << struct.unpack("<I", f.read(4))[0]

    blocks = candidates(img, kind)
    if not blocks:
        fail("no %s block in the journal" % kind)
    seq, jblk, fsblk = rng.choice(blocks)
    where = debugfs(img, "bmap <8> %d" % jblk).strip()
    if not where.isdigit():
        fail("debugfs cannot map journal block %d" % jblk)
    phys = int(where)
    byte = rng.randrange(bs) if kind == "data" else rng.randrange(HEADER, FIELDS_END)
    bit = rng.randrange(8)

    with open(img, "r+b") as f:
        f.seek(phys * bs + byte)
        old = f.read(1)[0]
        f.seek(phys * bs + byte)
        f.write(bytes([old ^ (1 << bit)]))
    print(json.dumps({"kind": kind, "sequence": seq, "journal_block": jblk, "fs_block": fsblk,
                      "phys": phys, "byte": byte, "bit": bit}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
