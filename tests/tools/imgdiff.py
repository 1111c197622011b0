#!/usr/bin/env python3
"""imgdiff.py A.img B.img: are two ext2/3/4 images the same, block by block?

Two correct journal replays of one image (e2fsck's and ours) write the same
blocks but stamp the primary superblock with their own clock: those fields,
and the superblock checksum that covers them, are left out of the comparison.
Everything else, backup superblocks included, must match byte for byte.

Prints "identical" (exit 0) or one line per differing block, "block N differs"
(exit 1; at most 50 lines). As a module: differences(a, b) returns the lines.
"""
import struct
import sys

SB_OFFSET = 1024
SB_SIZE = 1024
# (offset, length) in the superblock of what a replay stamps with its own clock.
STAMPED = (
    (0x2C, 4),   # s_mtime
    (0x30, 4),   # s_wtime
    (0x34, 2),   # s_mnt_count
    (0x178, 8),  # s_kbytes_written
    (0x274, 1),  # s_wtime_hi
    (0x275, 1),  # s_mtime_hi
    (0x3FC, 4),  # s_checksum
)
CHUNK = 1 << 20
MAX_LINES = 50


def block_size(sb):
    log = struct.unpack_from("<I", sb, 0x18)[0]
    if log > 6:  # no ext4 block is over 64 KiB: compare in 1 KiB units then
        log = 0
    return 1024 << log


def without_stamps(sb):
    sb = bytearray(sb)
    for off, n in STAMPED:
        sb[off:off + n] = bytes(n)
    return bytes(sb)


def differences(a_path, b_path):
    out = []
    with open(a_path, "rb") as fa, open(b_path, "rb") as fb:
        a_all_sb = fa.read(SB_OFFSET + SB_SIZE)
        b_all_sb = fb.read(SB_OFFSET + SB_SIZE)
        if len(a_all_sb) < SB_OFFSET + SB_SIZE or len(b_all_sb) < SB_OFFSET + SB_SIZE:
            return ["an image is shorter than its superblock"]
        bs = block_size(a_all_sb[SB_OFFSET:])
        if bs % CHUNK and CHUNK % bs:
            raise ValueError("block size %d" % bs)
        sb_block = SB_OFFSET // bs
        fa.seek(0)
        fb.seek(0)
        pos = 0
        while len(out) < MAX_LINES:
            x, y = fa.read(CHUNK), fb.read(CHUNK)
            if not x and not y:
                break
            if len(x) != len(y):
                out.append("the images differ in size")
                break
            if pos == 0:
                x = x[:SB_OFFSET] + without_stamps(x[SB_OFFSET:SB_OFFSET + SB_SIZE]) + x[SB_OFFSET + SB_SIZE:]
                y = y[:SB_OFFSET] + without_stamps(y[SB_OFFSET:SB_OFFSET + SB_SIZE]) + y[SB_OFFSET + SB_SIZE:]
            if x != y:
                for off in range(0, len(x), bs):
                    if x[off:off + bs] != y[off:off + bs]:
                        blk = (pos + off) // bs
                        what = " (the superblock)" if blk == sb_block else ""
                        out.append("block %d differs%s" % (blk, what))
                        if len(out) == MAX_LINES:
                            break
            pos += len(x)
    return out


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: imgdiff.py A.img B.img\n")
        return 2
    d = differences(argv[1], argv[2])
    print("\n".join(d) if d else "identical")
    return 1 if d else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
