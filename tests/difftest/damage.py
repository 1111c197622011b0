"""Structured damage: one field of one on-disk object set to a chosen value.

A damage is described by a spec, one line a person can read and the tester
can apply again to a freshly built base (regression cases are kept that way):

    STRUCT OBJECT FIELD OP [raw]

STRUCT is the kind of object (sb, gd, inode, extent, dirent, dxroot, dxnode,
xattr, ixattr, bbitmap, ibitmap, jsb, block, iarea); OBJECT names it by something
that survives a rebuild of the base: a path (/small/tiny), a reserved inode
(#8), a group (g3), an index within its parent (/big@2 is the third htree
node of /big). FIELD is a field name, a byte offset (+0x1c) or "bit:N";
OP is =VALUE, flip:N (bit N of the field), zero, copy:OTHER (the block
replaced by another of its kind) or swap:OTHER (the two exchanged). An iarea is a
whole structure an inode embeds (FIELD: i_block, its 60 bytes: an extent header and
root, a block map, inline data, a fast symlink's target, a device number; eh, the
extent header alone; ixattr, the in-inode xattr area), written zero, ones (every
byte 0xff) or copy:PATH (the same area of another inode). On an
xattr entry's e_hash[K], rehash:FORM writes the entry's hash in FORM
(unsigned, signed, zero: tests/tools/xattrhash.py), and hiname:FORM first
sets the name's last byte to 0xe9, so that the signed and unsigned forms
differ: sound attributes in forms e2fsck accepts or not. On a dirent, FIELD
name with copy:J gives the entry entry J's name and name length (a duplicate
name in one block or inline directory). "raw" leaves the
object's checksum stale; without it the checksum is recomputed (by
fsmeta reseal) so that only the structural checks can see the damage.
"""
import mmap
import os
import random
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import xattrhash  # noqa: E402  (tests/tools: entry hashes in every form e2fsck accepts)

# (name, offset, size) of each field the tester damages, per structure.
SB_FIELDS = [
    ("s_inodes_count", 0, 4), ("s_blocks_count_lo", 4, 4), ("s_r_blocks_count_lo", 8, 4),
    ("s_free_blocks_count_lo", 12, 4), ("s_free_inodes_count", 16, 4),
    ("s_first_data_block", 20, 4), ("s_log_block_size", 24, 4), ("s_log_cluster_size", 28, 4),
    ("s_blocks_per_group", 32, 4), ("s_clusters_per_group", 36, 4),
    ("s_inodes_per_group", 40, 4), ("s_mtime", 44, 4), ("s_wtime", 48, 4),
    ("s_mnt_count", 52, 2), ("s_max_mnt_count", 54, 2), ("s_magic", 56, 2),
    ("s_state", 58, 2), ("s_errors", 60, 2), ("s_minor_rev_level", 62, 2),
    ("s_lastcheck", 64, 4), ("s_checkinterval", 68, 4), ("s_creator_os", 72, 4),
    ("s_rev_level", 76, 4), ("s_first_ino", 84, 4), ("s_inode_size", 88, 2),
    ("s_block_group_nr", 90, 2), ("s_feature_compat", 92, 4), ("s_feature_incompat", 96, 4),
    ("s_feature_ro_compat", 100, 4), ("s_uuid", 104, 4), ("s_reserved_gdt_blocks", 206, 2),
    ("s_journal_uuid", 208, 4), ("s_journal_inum", 224, 4), ("s_journal_dev", 228, 4),
    ("s_last_orphan", 232, 4), ("s_hash_seed", 236, 4), ("s_def_hash_version", 252, 1),
    ("s_jnl_backup_type", 253, 1), ("s_desc_size", 254, 2), ("s_default_mount_opts", 256, 4),
    ("s_first_meta_bg", 260, 4), ("s_jnl_blocks", 268, 4), ("s_jnl_blocks_size", 332, 4),
    ("s_blocks_count_hi", 336, 4), ("s_free_blocks_count_hi", 344, 4),
    ("s_min_extra_isize", 348, 2), ("s_want_extra_isize", 350, 2), ("s_flags", 352, 4),
    ("s_mmp_block", 360, 8), ("s_log_groups_per_flex", 372, 1), ("s_checksum_type", 373, 1),
    ("s_snapshot_inum", 384, 4), ("s_error_count", 404, 4), ("s_usr_quota_inum", 576, 4),
    ("s_grp_quota_inum", 580, 4), ("s_overhead_clusters", 584, 4), ("s_backup_bgs", 588, 4),
    ("s_encrypt_algos", 596, 1), ("s_lpf_ino", 616, 4), ("s_prj_quota_inum", 620, 4),
    ("s_checksum_seed", 624, 4), ("s_encoding", 636, 2), ("s_encoding_flags", 638, 2),
    ("s_orphan_file_inum", 640, 4), ("s_checksum", 1020, 4),
]
GD_FIELDS = [
    ("bg_block_bitmap_lo", 0, 4), ("bg_inode_bitmap_lo", 4, 4), ("bg_inode_table_lo", 8, 4),
    ("bg_free_blocks_count_lo", 12, 2), ("bg_free_inodes_count_lo", 14, 2),
    ("bg_used_dirs_count_lo", 16, 2), ("bg_flags", 18, 2), ("bg_exclude_bitmap_lo", 20, 4),
    ("bg_block_bitmap_csum_lo", 24, 2), ("bg_inode_bitmap_csum_lo", 26, 2),
    ("bg_itable_unused_lo", 28, 2), ("bg_checksum", 30, 2),
]
GD64_FIELDS = [
    ("bg_block_bitmap_hi", 32, 4), ("bg_inode_bitmap_hi", 36, 4), ("bg_inode_table_hi", 40, 4),
    ("bg_free_blocks_count_hi", 44, 2), ("bg_free_inodes_count_hi", 46, 2),
    ("bg_used_dirs_count_hi", 48, 2), ("bg_itable_unused_hi", 50, 2),
    ("bg_block_bitmap_csum_hi", 56, 2), ("bg_inode_bitmap_csum_hi", 58, 2),
]
INODE_FIELDS = [
    ("i_mode", 0, 2), ("i_uid", 2, 2), ("i_size_lo", 4, 4), ("i_atime", 8, 4),
    ("i_ctime", 12, 4), ("i_mtime", 16, 4), ("i_dtime", 20, 4), ("i_gid", 24, 2),
    ("i_links_count", 26, 2), ("i_blocks_lo", 28, 4), ("i_flags", 32, 4),
    ("i_version", 36, 4), ("i_block0", 40, 4), ("i_block1", 44, 4), ("i_block2", 48, 4),
    ("i_block3", 52, 4), ("i_block4", 56, 4), ("i_block11", 84, 4), ("i_block12", 88, 4),
    ("i_block13", 92, 4), ("i_block14", 96, 4), ("i_generation", 100, 4),
    ("i_file_acl_lo", 104, 4), ("i_size_high", 108, 4), ("i_faddr", 112, 4),
    ("l_i_blocks_high", 116, 2), ("l_i_file_acl_high", 118, 2), ("l_i_uid_high", 120, 2),
    ("l_i_gid_high", 122, 2), ("l_i_checksum_lo", 124, 2), ("l_i_reserved", 126, 2),
]
INODE_LARGE_FIELDS = [
    ("i_extra_isize", 128, 2), ("i_checksum_hi", 130, 2), ("i_ctime_extra", 132, 4),
    ("i_crtime", 144, 4), ("i_projid", 156, 4),
]
EXTENT_HEADER = [("eh_magic", 0, 2), ("eh_entries", 2, 2), ("eh_max", 4, 2),
                 ("eh_depth", 6, 2), ("eh_generation", 8, 4)]
EXTENT_LEAF = [("ee_block", 0, 4), ("ee_len", 4, 2), ("ee_start_hi", 6, 2), ("ee_start_lo", 8, 4)]
EXTENT_INDEX = [("ei_block", 0, 4), ("ei_leaf_lo", 4, 4), ("ei_leaf_hi", 8, 2), ("ei_unused", 10, 2)]
# name1 and name2 are the NUL padding after the names of '.' and '..' (#0, #1).
DIRENT = [("inode", 0, 4), ("rec_len", 4, 2), ("name_len", 6, 1), ("file_type", 7, 1),
          ("name0", 8, 1), ("name1", 9, 1), ("name2", 10, 1)]
DXROOT = [("dot_inode", 0, 4), ("dot_rec_len", 4, 2), ("dotdot_inode", 12, 4),
          ("dotdot_rec_len", 16, 2), ("reserved_zero", 0x18, 4), ("hash_version", 0x1c, 1),
          ("info_length", 0x1d, 1), ("indirect_levels", 0x1e, 1), ("unused_flags", 0x1f, 1)]
DX_COUNTS = [("limit", 0, 2), ("count", 2, 2), ("block0", 4, 4)]
DX_ENTRY = [("hash", 0, 4), ("block", 4, 4)]
XATTR_HEADER = [("h_magic", 0, 4), ("h_refcount", 4, 4), ("h_blocks", 8, 4), ("h_hash", 12, 4),
                ("h_checksum", 16, 4)]
XATTR_ENTRY = [("e_name_len", 0, 1), ("e_name_index", 1, 1), ("e_value_offs", 2, 2),
               ("e_value_inum", 4, 4), ("e_value_size", 8, 4), ("e_hash", 12, 4),
               ("e_name0", 16, 1)]
# The journal superblock is big-endian.
JSB_FIELDS = [("h_magic", 0, 4), ("h_blocktype", 4, 4), ("h_sequence", 8, 4),
              ("s_blocksize", 12, 4), ("s_maxlen", 16, 4), ("s_first", 20, 4),
              ("s_sequence", 24, 4), ("s_start", 28, 4), ("s_errno", 32, 4),
              ("s_feature_compat", 36, 4), ("s_feature_incompat", 40, 4),
              ("s_feature_ro_compat", 44, 4), ("s_uuid", 48, 4), ("s_nr_users", 64, 4),
              ("s_max_transaction", 72, 4), ("s_checksum_type", 80, 1),
              ("s_num_fc_blks", 84, 4), ("s_checksum", 0xfc, 4)]


def _crc32c_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
        table.append(c)
    return table


CRC32C = _crc32c_table()


def jsb_sealed(jsb):
    """A journal superblock (1024 bytes) with its checksum made good, where it has one
    (v2/v3): crc32c of the block with the field zero, as libext2fs seeds it (~0, no
    final inversion). fsmeta reseal does this inside an image; an external journal
    device is no filesystem it can open."""
    jsb = bytearray(jsb[:1024])
    if not jsb[0x2b] & 0x18:
        return bytes(jsb)
    jsb[0xfc:0x100] = bytes(4)
    c = 0xffffffff
    for b in jsb:
        c = CRC32C[(c ^ b) & 0xff] ^ (c >> 8)
    jsb[0xfc:0x100] = struct.pack(">I", c)
    return bytes(jsb)


class FsMap:
    """fsmeta map's view of a base image, plus its manifest of paths."""

    def __init__(self, fsmeta, img, manifest):
        out = subprocess.run([fsmeta, "map", img], capture_output=True, text=True,
                             check=True).stdout
        self.groups, self.inodes, self.blocks = [], {}, []
        self.jsb = None
        for line in out.splitlines():
            w = line.split()
            if w[0] == "fs":
                self.fs = {w[i]: int(w[i + 1]) for i in range(1, len(w) - 1, 2)}
            elif w[0] == "group":
                self.groups.append({w[i]: int(w[i + 1]) for i in range(2, len(w) - 1, 2)})
            elif w[0] == "ino":
                d = {w[i]: w[i + 1] for i in range(2, len(w) - 1, 2)}
                self.inodes[int(w[1])] = {
                    "off": int(d["off"]), "mode": int(d["mode"], 8),
                    "flags": int(d["flags"], 16), "acl": int(d["acl"]),
                    "extra": int(d["extra"]), "size": int(d["size"])}
            elif w[0] == "blk":
                self.blocks.append((int(w[1]), w[2], int(w[3]), int(w[4]) if len(w) > 4 else 0))
            elif w[0] == "jsb":
                self.jsb = int(w[1])
        self.bs = self.fs["blocksize"]
        self.paths = dict(manifest)
        self.names = {}
        for p, ino in sorted(self.paths.items(), key=lambda kv: len(kv[0])):
            self.names.setdefault(ino, p)

    def name(self, ino):
        """A stable name for inode INO: its path, or #N for a reserved or unnamed inode."""
        if ino < self.fs["first_ino"] or ino not in self.names:
            return "#%d" % ino
        return self.names[ino]

    def ino(self, name):
        return int(name[1:]) if name.startswith("#") else self.paths[name]

    def blocks_of(self, ino, kind):
        return [b for b in self.blocks if b[0] == ino and b[1] == kind]


class Damage:
    """One applied damage: the spec, the bytes to restore, the objects to reseal."""

    def __init__(self, spec, offset, new, reseal, name_objects, also=(), jwrites=(),
                 absent=False):
        self.spec, self.reseal = spec, reseal
        self.writes = [(offset, new)] + list(also)  # (byte offset, new bytes)
        self.objects = name_objects  # inode numbers a checker should name
        self.jwrites = list(jwrites)  # (byte offset, new bytes) on the external journal
        self.absent = absent  # the external journal is not given to the checkers


def _value(rng, size, cur):
    """A boundary, neighbouring or random value for a field of SIZE bytes."""
    top = (1 << (8 * size)) - 1
    pick = rng.randrange(9)
    if pick == 0:
        return "=0"
    if pick == 1:
        return "=%#x" % top
    if pick == 2:
        return "=1"
    if pick == 3:
        return "=%#x" % (top - 1)
    if pick == 4:
        return "=%#x" % ((cur + 1) & top)
    if pick == 5:
        return "=%#x" % ((cur - 1) & top)
    if pick == 6:
        return "=%#x" % (1 << (8 * size - 1))
    if pick == 7:
        return "flip:%d" % rng.randrange(8 * size)
    return "=%#x" % rng.getrandbits(8 * size)


def _new_bytes(op, old, big_endian=False):
    size = len(old)
    order = "big" if big_endian else "little"
    cur = int.from_bytes(old, order)
    if op.startswith("="):
        v = int(op[1:], 0) & ((1 << (8 * size)) - 1)
    elif op.startswith("flip:"):
        v = cur ^ (1 << int(op[5:]))
    elif op == "zero":
        v = 0
    else:
        raise ValueError("bad op " + op)
    return v.to_bytes(size, order)


class Damager:
    """Chooses damages (seeded) and resolves specs to byte offsets on a base image."""

    STRUCTS = ["sb", "gd", "inode", "inode", "inode", "inode", "extent", "dirent", "dirent",
               "dxroot", "dxnode", "xattr", "ixattr", "bbitmap", "ibitmap", "jsb", "block",
               "block", "journal"]

    def __init__(self, fsmap, img):
        self.m, self.img = fsmap, img
        # mapped, not read: a run holds some fifty bases, a few GiB in all
        with open(img, "rb") as f:
            self.data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        # an external journal device kept beside the image (flavours.py)
        self.jdata = None
        if os.path.exists(img + ".journal"):
            with open(img + ".journal", "rb") as f:
                self.jdata = f.read()
        self._jblocks = None

    def read(self, off, size):
        return self.data[off:off + size]

    # ---- choosing ----

    def choose(self, rng, structs=None):
        """A spec string for a random damage that applies to this base, or None.

        STRUCTS, when given, restricts the choice to those structures; an item
        "block:KIND" restricts block damages to blocks of KIND (dir, dxroot...)."""
        pool, block_kinds = self.STRUCTS, None
        if structs:
            pool = [s.split(":")[0] for s in structs]
            block_kinds = [s.split(":", 1)[1] for s in structs if s.startswith("block:")] or None
        for _ in range(20):
            kind = rng.choice(pool)
            if kind == "block":
                spec = self._choose_block(rng, block_kinds)
            else:
                spec = getattr(self, "_choose_" + kind)(rng)
            if spec:
                raw = rng.random() < 0.3 and kind not in ("block", "journal")
                return spec + (" raw" if raw else "")
        return None

    def _pick_field(self, rng, fields):
        return rng.choice(fields)

    def _choose_sb(self, rng):
        name, off, size = self._pick_field(rng, SB_FIELDS)
        return "sb - %s %s" % (name, _value(rng, size, int.from_bytes(self.read(1024 + off, size), "little")))

    def _choose_gd(self, rng):
        g = rng.randrange(len(self.m.groups))
        fields = GD_FIELDS + (GD64_FIELDS if self.m.fs["desc_size"] >= 64 else [])
        name, off, size = self._pick_field(rng, fields)
        cur = int.from_bytes(self.read(self.m.groups[g]["desc"] + off, size), "little")
        return "gd g%d %s %s" % (g, name, _value(rng, size, cur))

    def _choose_inode(self, rng):
        ino = rng.choice(sorted(self.m.inodes))
        fields = INODE_FIELDS + (INODE_LARGE_FIELDS if self.m.fs["inode_size"] > 128 else [])
        name, off, size = self._pick_field(rng, fields)
        cur = int.from_bytes(self.read(self.m.inodes[ino]["off"] + off, size), "little")
        return "inode %s %s %s" % (self.m.name(ino), name, _value(rng, size, cur))

    def _choose_extent(self, rng):
        # An extent node: in an inode (index 0 = the root in i_block) or a block.
        owners = sorted({b[0] for b in self.m.blocks if b[1] == "extent"} |
                        {i for i, d in self.m.inodes.items() if d["flags"] & 0x80000})
        if not owners:
            return None
        ino = rng.choice(owners)
        nodes = self.m.blocks_of(ino, "extent")
        idx = rng.randrange(len(nodes) + 1)
        base, limit = self._extent_node(ino, idx)
        if base is None:
            return None
        hdr = self.read(base, 12)
        entries = int.from_bytes(hdr[2:4], "little")
        depth = int.from_bytes(hdr[6:8], "little")
        if entries == 0 or rng.random() < 0.3:
            name, off, size = rng.choice(EXTENT_HEADER)
        else:
            k = rng.randrange(min(entries, (limit - 12) // 12))
            fname, foff, size = rng.choice(EXTENT_INDEX if depth else EXTENT_LEAF)
            name, off = "%s[%d]" % (fname, k), 12 + 12 * k + foff
        cur = int.from_bytes(self.read(base + off, size), "little")
        return "extent %s@%d %s %s" % (self.m.name(ino), idx, name, _value(rng, size, cur))

    def _extent_node(self, ino, idx):
        if ino not in self.m.inodes:
            return None, 0
        if idx == 0:
            return self.m.inodes[ino]["off"] + 40, 60
        nodes = self.m.blocks_of(ino, "extent")
        if idx - 1 >= len(nodes):
            return None, 0
        return nodes[idx - 1][2] * self.m.bs, self.m.bs

    def _dir_blocks(self, ino=None):
        return [b for b in self.m.blocks if b[1] == "dir" and (ino is None or b[0] == ino)]

    def _choose_dirent(self, rng):
        # A directory block (named by its directory and logical number) or an inline dir.
        inline = [i for i, d in self.m.inodes.items()
                  if d["mode"] & 0o170000 == 0o040000 and d["flags"] & 0x10000000]
        blocks = self._dir_blocks()
        if inline and rng.random() < 0.25:
            ino = rng.choice(sorted(inline))
            where = "%s@inline" % self.m.name(ino)
        elif blocks:
            ino, _, _, lblk = rng.choice(blocks)
            where = "%s@%d" % (self.m.name(ino), lblk)
        else:
            return None
        ents = self._dirents(where)
        if not ents:
            return None
        k = rng.randrange(len(ents))
        # one in eight: the name of another entry of the same place (a duplicate name)
        if rng.random() < 0.125:
            donors = [j for j in range(len(ents)) if self._name_fits(ents, k, j)]
            if donors:
                return "dirent %s#%d name copy:%d" % (where, k, rng.choice(donors))
        name, off, size = rng.choice(DIRENT)
        cur = int.from_bytes(self.read(ents[k] + off, size), "little")
        return "dirent %s#%d %s %s" % (where, k, name, _value(rng, size, cur))

    def _dir_base(self, where):
        """(offset, length, start of entries) of a directory block or inline directory."""
        path, loc = where.rsplit("@", 1)
        ino = self.m.ino(path)
        if loc == "inline":
            # i_block holds the parent's inode number, then entries.
            return self.m.inodes[ino]["off"] + 40, 60, 4
        for b in self._dir_blocks(ino):
            if b[3] == int(loc):
                return b[2] * self.m.bs, self.m.bs, 0
        raise KeyError(where)

    def _dirents(self, where):
        base, length, start = self._dir_base(where)
        offs, pos = [], start
        while pos + 8 <= length:
            rec = int.from_bytes(self.read(base + pos + 4, 2), "little")
            if self.m.bs >= 65536 and rec in (0, 65535):
                rec = 65536
            offs.append(base + pos)
            if rec < 8:
                break
            pos += rec
        return offs

    def _choose_dxroot(self, rng):
        roots = [b for b in self.m.blocks if b[1] == "dxroot"]
        if not roots:
            return None
        ino = rng.choice(roots)[0]
        r = rng.random()
        blk = self.m.blocks_of(ino, "dxroot")[0][2] * self.m.bs
        if r < 0.4:
            name, off, size = rng.choice(DXROOT)
        else:
            info_len = self.read(blk + 0x1d, 1)[0]
            name, off, size = self._dx_entry_field(rng, blk, 0x18 + info_len)
        cur = int.from_bytes(self.read(blk + off, size), "little")
        return "dxroot %s %s %s" % (self.m.name(ino), name, _value(rng, size, cur))

    def _dx_entry_field(self, rng, blk, at):
        count = int.from_bytes(self.read(blk + at + 2, 2), "little")
        if rng.random() < 0.4 or count < 2:
            name, off, size = rng.choice(DX_COUNTS)
            return name, at + off, size
        k = rng.randrange(1, min(count, (self.m.bs - at) // 8))
        name, off, size = rng.choice(DX_ENTRY)
        return "%s[%d]" % (name, k), at + 8 * k + off, size

    def _choose_dxnode(self, rng):
        nodes = [b for b in self.m.blocks if b[1] == "dxnode"]
        if not nodes:
            return None
        ino, _, pblk, _ = rng.choice(nodes)
        idx = [b[2] for b in self.m.blocks_of(ino, "dxnode")].index(pblk)
        name, off, size = self._dx_entry_field(rng, pblk * self.m.bs, 8)
        cur = int.from_bytes(self.read(pblk * self.m.bs + off, size), "little")
        return "dxnode %s@%d %s %s" % (self.m.name(ino), idx, name, _value(rng, size, cur))

    def _xattr_entries(self, base, first, end):
        offs, pos = [], first
        while pos + 16 <= end:
            if self.read(base + pos, 4) == b"\0\0\0\0":
                break
            offs.append(pos)
            nlen = self.read(base + pos, 1)[0]
            pos += (16 + nlen + 3) & ~3
        return offs

    def _choose_xattr(self, rng):
        blocks = [b for b in self.m.blocks if b[1] == "xattr"]
        if not blocks:
            return None
        ino, _, pblk, _ = rng.choice(blocks)
        base = pblk * self.m.bs
        ents = self._xattr_entries(base, 32, self.m.bs)
        if not ents or rng.random() < 0.3:
            name, off, size = rng.choice(XATTR_HEADER)
        else:
            k = rng.randrange(len(ents))
            fname, foff, size = rng.choice(XATTR_ENTRY)
            name, off = "%s[%d]" % (fname, k), ents[k] + foff
        cur = int.from_bytes(self.read(base + off, size), "little")
        return "xattr %s %s %s" % (self.m.name(ino), name, _value(rng, size, cur))

    def _ixattr_area(self, ino):
        d = self.m.inodes[ino]
        start = d["off"] + 128 + d["extra"]
        if d["extra"] == 0 or self.read(start, 4) != b"\0\0\x02\xea":
            return None
        return start

    def _iarea(self, ino, area):
        """(byte offset, size) of AREA (i_block, eh, ixattr) in inode INO."""
        d = self.m.inodes[ino]
        if area == "i_block":
            return d["off"] + 40, 60
        if area == "eh":
            return d["off"] + 40, 12
        if area == "ixattr":
            if d["extra"] == 0 or 128 + d["extra"] >= self.m.fs["inode_size"]:
                raise KeyError("no in-inode xattr area")
            start = d["off"] + 128 + d["extra"]
            return start, d["off"] + self.m.fs["inode_size"] - start
        raise ValueError("unknown inode area " + area)

    def _choose_ixattr(self, rng):
        owners = [i for i in sorted(self.m.inodes) if self._ixattr_area(i) is not None]
        if not owners:
            return None
        ino = rng.choice(owners)
        start = self._ixattr_area(ino)
        end = self.m.inodes[ino]["off"] + self.m.fs["inode_size"]
        ents = self._xattr_entries(start, 4, end - start)
        if not ents or rng.random() < 0.15:
            name, off, size = "h_magic", 0, 4
        else:
            k = rng.randrange(len(ents))
            fname, foff, size = rng.choice(XATTR_ENTRY)
            name, off = "%s[%d]" % (fname, k), ents[k] + foff
        cur = int.from_bytes(self.read(start + off, size), "little")
        return "ixattr %s %s %s" % (self.m.name(ino), name, _value(rng, size, cur))

    def _choose_bitmap(self, rng, kind):
        g = rng.randrange(len(self.m.groups))
        if kind == "bbitmap":
            bits = self.m.bs * 8
        else:
            bits = self.m.fs["inodes_per_group"]
            if rng.random() < 0.2:
                bits = self.m.bs * 8
        return "%s g%d bit:%d flip:0" % (kind, g, rng.randrange(bits))

    def _choose_bbitmap(self, rng):
        return self._choose_bitmap(rng, "bbitmap")

    def _choose_ibitmap(self, rng):
        return self._choose_bitmap(rng, "ibitmap")

    def _choose_journal(self, rng):
        """The journal whole: an external one absent, or one that needs recovery
        (needs_recovery set) and cannot be read (written zero, ones or garbage)."""
        if self.m.jsb is None and self.jdata is None:
            return None
        if self.jdata is not None and rng.random() < 0.3:
            return "journal - absent %s" % rng.choice(["clean", "recover"])
        return "journal - %s %s" % (rng.choice(["all", "jsb", "log"]),
                                    rng.choice(["zero", "ones", "random"]))

    def journal_blocks(self):
        """(data, [byte offset of each journal block, the superblock's first]): in the
        image (the journal inode's blocks) or on the external device."""
        if self._jblocks is None:
            bs = self.m.bs
            if self.jdata is not None:
                first = 2 if bs == 1024 else 1  # after the device's ext2 superblock
                self._jblocks = [b * bs for b in range(first, len(self.jdata) // bs)]
            else:
                # the journal's data blocks, by logical number (a block-mapped
                # journal's indirect blocks are the inode's, not the log's)
                inum = struct.unpack("<I", self.read(1024 + 224, 4))[0]
                off = self.m.inodes[inum]["off"]
                size = struct.unpack("<I", self.read(off + 4, 4))[0]
                cmds = "".join("bmap <%d> %d\n" % (inum, k) for k in range(size // bs))
                out = subprocess.run(["debugfs", "-f", "-", self.img], input=cmds,
                                     capture_output=True, text=True).stdout
                self._jblocks = [int(b) * bs for b in out.split("\n") if b.strip().isdigit()]
                if not self._jblocks or self._jblocks[0] // bs != self.m.jsb:
                    raise KeyError("journal blocks not found")
        return self._jblocks

    def _resolve_journal(self, spec, field, op):
        bs = self.m.bs
        incompat = struct.unpack("<I", self.read(1024 + 96, 4))[0]
        recover = struct.pack("<I", incompat | 0x4)  # needs_recovery
        if field == "absent":
            if self.jdata is None:
                raise KeyError("no external journal")
            if op == "clean":
                return Damage(spec, 1024 + 96, self.read(1024 + 96, 4), [], [], absent=True)
            return Damage(spec, 1024 + 96, recover, ["sb"], [], absent=True)
        if self.m.jsb is None and self.jdata is None:
            raise KeyError("no journal")
        offs = self.journal_blocks()
        if field == "jsb":
            offs = offs[:1]
        elif field == "log":
            offs = offs[1:]
        elif field != "all":
            raise ValueError("bad journal part " + field)
        if op == "zero":
            data = bytes(bs * len(offs))
        elif op == "ones":
            data = b"\xff" * (bs * len(offs))
        elif op == "random":
            data = random.Random(spec).randbytes(bs * len(offs))
        else:
            raise ValueError("bad op " + op)
        writes = [(o, data[k * bs:(k + 1) * bs]) for k, o in enumerate(offs)]
        if field == "log":
            # the superblock says the log starts at its first block: there is
            # something to replay, and what is there cannot be read
            src = self.jdata if self.jdata is not None else self.data
            jsb = bytearray(src[self.journal_blocks()[0]:self.journal_blocks()[0] + bs])
            jsb[28:32] = jsb[20:24]  # s_start = s_first
            jsb[24:28] = struct.pack(">I", struct.unpack(">I", bytes(jsb[24:28]))[0] or 1)
            if self.jdata is not None:
                jsb[:1024] = jsb_sealed(jsb)
            writes.append((self.journal_blocks()[0], bytes(jsb)))
        reseal = ["sb"]
        if field == "log" and self.jdata is None:
            reseal.append("jsb:%d" % self.m.jsb)
        if self.jdata is not None:
            return Damage(spec, 1024 + 96, recover, reseal, [], jwrites=writes)
        return Damage(spec, 1024 + 96, recover, reseal, [], also=writes)

    def _choose_jsb(self, rng):
        if self.m.jsb is None:
            return None
        name, off, size = rng.choice(JSB_FIELDS)
        cur = int.from_bytes(self.read(self.m.jsb * self.m.bs + off, size), "big")
        return "jsb - %s %s" % (name, _value(rng, size, cur))

    def _choose_block(self, rng, kinds=None):
        """Zero a metadata block, or put another block of the same kind in its place."""
        kinds = kinds or ["dir", "dxroot", "dxnode", "extent", "xattr", "ind", "dind", "itable",
                          "bitmap", "gdt"]
        kind = rng.choice(kinds)
        if kind == "itable":
            g = rng.randrange(len(self.m.groups))
            span = self.m.fs["inodes_per_group"] * self.m.fs["inode_size"] // self.m.bs
            obj = "itable:g%d+%d" % (g, rng.randrange(min(span, 4)))
        elif kind == "bitmap":
            obj = "%s:g%d" % (rng.choice(["bbitmap", "ibitmap"]), rng.randrange(len(self.m.groups)))
        elif kind == "gdt":
            obj = "gdt:0"
        else:
            cands = [b for b in self.m.blocks if b[1] == kind]
            if not cands:
                return None
            ino, _, pblk, _ = rng.choice(cands)
            idx = [b[2] for b in self.m.blocks_of(ino, kind)].index(pblk)
            obj = "%s:%s@%d" % (kind, self.m.name(ino), idx)
        if rng.random() < 0.4:
            return "block %s - zero" % obj
        same = [b for b in self.m.blocks if b[1] == kind]
        if kind in ("itable", "bitmap", "gdt") or len(same) < 2:
            return "block %s - zero" % obj
        ino, _, pblk, _ = rng.choice(same)
        idx = [b[2] for b in self.m.blocks_of(ino, kind)].index(pblk)
        other = "%s:%s@%d" % (kind, self.m.name(ino), idx)
        if other == obj:
            return "block %s - zero" % obj
        return "block %s - %s:%s" % (obj, rng.choice(["copy", "swap"]), other)

    # ---- resolving and applying ----

    def _block_of(self, obj):
        """The physical block an object of the block kind names."""
        kind, rest = obj.split(":", 1)
        if kind == "itable":
            g, plus = rest[1:].split("+")
            return self.m.groups[int(g)]["itable"] + int(plus)
        if kind in ("bbitmap", "ibitmap"):
            return self.m.groups[int(rest[1:])][kind]
        if kind == "gdt":
            return self.m.groups[0]["desc"] // self.m.bs
        path, idx = rest.rsplit("@", 1)
        return self.m.blocks_of(self.m.ino(path), kind)[int(idx)][2]

    def resolve(self, spec):
        """Damage for SPEC: byte offset, new bytes, objects to reseal, objects to name."""
        words = spec.split()
        struct_, obj, field, op = words[:4]
        raw = "raw" in words[4:]
        m, bs = self.m, self.m.bs
        reseal, names = [], []
        big_endian = False
        if struct_ == "block":
            blk = self._block_of(obj)
            if op == "zero":
                return Damage(spec, blk * bs, bytes(bs), [], names)
            other = self._block_of(op.split(":", 1)[1])
            new = self.read(other * bs, bs)
            if op.startswith("swap:"):
                return Damage(spec, blk * bs, new, [], names,
                              [(other * bs, self.read(blk * bs, bs))])
            return Damage(spec, blk * bs, new, [], names)
        if struct_ == "journal":
            return self._resolve_journal(spec, field, op)
        if struct_ == "iarea":
            ino = m.ino(obj)
            start, size = self._iarea(ino, field)
            if op == "zero":
                new = bytes(size)
            elif op == "ones":
                new = b"\xff" * size
            elif op.startswith("copy:"):
                other = m.ino(op.split(":", 1)[1])
                if other == ino:
                    raise KeyError("an area copied onto itself")
                ostart, osize = self._iarea(other, field)
                if osize != size:
                    raise KeyError("%s areas of different sizes" % field)
                new = self.read(ostart, size)
            else:
                raise ValueError("bad op " + op)
            return Damage(spec, start, new, [] if raw else ["inode:%d" % ino], [ino])
        if struct_ == "sb":
            name, foff, size = next(f for f in SB_FIELDS if f[0] == field)
            base = 1024
            reseal = ["sb"]
        elif struct_ == "gd":
            g = int(obj[1:])
            name, foff, size = next(f for f in GD_FIELDS + GD64_FIELDS if f[0] == field)
            if foff + size > m.fs["desc_size"]:
                raise ValueError("%s is past a %d-byte descriptor" % (field, m.fs["desc_size"]))
            base = m.groups[g]["desc"]
            reseal = ["gd:%d" % g]
        elif struct_ == "inode":
            ino = m.ino(obj)
            name, foff, size = next(f for f in INODE_FIELDS + INODE_LARGE_FIELDS if f[0] == field)
            if foff + size > m.fs["inode_size"]:
                raise ValueError("%s is past a %d-byte inode" % (field, m.fs["inode_size"]))
            base = m.inodes[ino]["off"]
            reseal, names = ["inode:%d" % ino], [ino]
        elif struct_ == "extent":
            path, idx = obj.rsplit("@", 1)
            ino = m.ino(path)
            base, _ = self._extent_node(ino, int(idx))
            foff, size = self._indexed_field(field, EXTENT_HEADER, EXTENT_INDEX + EXTENT_LEAF, 12, 12)
            if int(idx) == 0:
                reseal = ["inode:%d" % ino]
            else:
                reseal = ["extent:%d:%d" % (base // bs, ino)]
            names = [ino]
        elif struct_ == "dirent":
            where, k = obj.rsplit("#", 1)
            ino = m.ino(where.rsplit("@", 1)[0])
            ents = self._dirents(where)
            dbase = self._dir_base(where)[0]
            reseal = (["inode:%d" % ino] if where.endswith("@inline")
                      else ["dir:%d:%d" % (dbase // bs, ino)])
            if field == "name":
                return self._copy_name(spec, ents, int(k), op, [] if raw else reseal, [ino])
            name, foff, size = next(f for f in DIRENT if f[0] == field)
            base = ents[int(k)]
            names = [ino]
        elif struct_ in ("dxroot", "dxnode"):
            if struct_ == "dxroot":
                ino = m.ino(obj)
                blk = m.blocks_of(ino, "dxroot")[0][2]
                at = 0x18 + self.read(blk * bs + 0x1d, 1)[0]
                fixed = DXROOT
            else:
                path, idx = obj.rsplit("@", 1)
                ino = m.ino(path)
                blk = m.blocks_of(ino, "dxnode")[int(idx)][2]
                at, fixed = 8, []
            base = blk * bs
            f = [x for x in fixed if x[0] == field]
            if f:
                foff, size = f[0][1], f[0][2]
            else:
                foff, size = self._indexed_field(field, DX_COUNTS, DX_ENTRY, at, 8)
            reseal, names = ["dir:%d:%d" % (blk, ino)], [ino]
        elif struct_ in ("xattr", "ixattr"):
            ino = m.ino(obj)
            if struct_ == "xattr":
                blk = m.blocks_of(ino, "xattr")[0][2]
                base, first, end = blk * bs, 32, bs
                reseal = ["xattr:%d" % blk]
            else:
                base = self._ixattr_area(ino)
                if base is None:
                    raise KeyError("no in-inode xattr area")  # 128-byte inodes: not applicable
                first, end = 4, m.inodes[ino]["off"] + m.fs["inode_size"] - base
                reseal = ["inode:%d" % ino]
            if "[" in field:
                fname, k = field[:-1].split("[")
                ent = self._xattr_entries(base, first, end)[int(k)]
                _, eoff, size = next(f for f in XATTR_ENTRY if f[0] == fname)
                foff = ent + eoff
                if fname == "e_hash" and op.split(":")[0] in ("rehash", "hiname"):
                    return self._rehash(spec, base, ent, op, [] if raw else reseal, [ino])
            else:
                _, foff, size = next(f for f in XATTR_HEADER if f[0] == field)
            names = [ino]
        elif struct_ in ("bbitmap", "ibitmap"):
            g = int(obj[1:])
            bit = int(field.split(":")[1])
            base = m.groups[g][struct_] * bs + bit // 8
            old = self.read(base, 1)
            new = bytes([old[0] ^ (1 << (bit % 8))])
            return Damage(spec, base, new, [] if raw else ["%s:%d" % (struct_, g)], [])
        elif struct_ == "jsb":
            name, foff, size = next(f for f in JSB_FIELDS if f[0] == field)
            if m.jsb is None:
                raise KeyError("no journal superblock")  # ext2 and the Hurd: skipped
            base = m.jsb * bs
            reseal, big_endian = ["jsb:%d" % m.jsb], True
        else:
            raise ValueError("unknown structure " + struct_)
        old = self.read(base + foff, size)
        new = _new_bytes(op, old, big_endian)
        return Damage(spec, base + foff, new, [] if raw else reseal, names)

    def _name_fits(self, ents, k, j):
        """Whether entry K can take entry J's name: both in use, neither '.' nor '..'."""
        if j == k or not (0 <= j < len(ents)) or not (0 <= k < len(ents)):
            return False
        src, dst = ents[j], ents[k]
        nlen, klen = self.read(src + 6, 1)[0], self.read(dst + 6, 1)[0]
        rec = int.from_bytes(self.read(dst + 4, 2), "little")
        dots = (b".", b"..")
        return (int.from_bytes(self.read(src, 4), "little") != 0 and
                int.from_bytes(self.read(dst, 4), "little") != 0 and nlen > 0 and
                8 + nlen <= rec and self.read(src + 8, nlen) not in dots and
                self.read(dst + 8, klen) not in dots)

    def _copy_name(self, spec, ents, k, op, reseal, names):
        """Entry K given the name (and name length) of entry J (op copy:J), where it fits."""
        if not op.startswith("copy:"):
            raise ValueError("bad name op " + op)
        j = int(op[5:])
        if not self._name_fits(ents, k, j):
            raise ValueError("entry %d cannot take entry %d's name" % (k, j))
        src, dst = ents[j], ents[k]
        nlen = self.read(src + 6, 1)[0]
        return Damage(spec, dst + 6, bytes([nlen]), reseal, names,
                      [(dst + 8, self.read(src + 8, nlen))])

    def _rehash(self, spec, base, ent, op, reseal, names):
        """The entry at BASE+ENT with its hash in op's form (hiname: a high-bit name byte first)."""
        kind, form = op.split(":")
        if form not in xattrhash.FORMS:
            raise ValueError("bad hash form " + form)
        nlen = self.read(base + ent, 1)[0]
        voffs, vinum, vsize = struct.unpack("<HII", self.read(base + ent + 2, 10))
        name = bytearray(self.read(base + ent + 16, nlen))
        also = []
        if kind == "hiname":
            if not nlen:
                raise ValueError("an empty name has no byte to set")
            name[-1] = 0xe9
            also = [(base + ent + 16 + nlen - 1, b"\xe9")]
        eah = 0
        if vinum:
            eah = struct.unpack("<I", self.read(self.m.inodes[vinum]["off"] + 8, 4))[0]
        value = b"" if vinum else self.read(base + voffs, vsize)
        new = xattrhash.entry_hash(bytes(name), value, vinum, eah, form)
        return Damage(spec, base + ent + 12, struct.pack("<I", new), reseal, names, also)

    @staticmethod
    def _indexed_field(field, header, entry, at, stride):
        if "[" not in field:
            f = next(x for x in header if x[0] == field)
            return f[1] + (at if header is DX_COUNTS else 0), f[2]
        fname, k = field[:-1].split("[")
        f = next(x for x in entry if x[0] == fname)
        return at + stride * int(k) + f[1], f[2]


def apply(img, damage, fsmeta):
    """Write DAMAGE into IMG (and its external journal), then reseal the objects it changed."""
    with open(img, "r+b") as f:
        for off, new in damage.writes:
            f.seek(off)
            f.write(new)
    if damage.jwrites:
        with open(img + ".journal", "r+b") as f:
            for off, new in damage.jwrites:
                f.seek(off)
                f.write(new)
    if damage.reseal:
        subprocess.run([fsmeta, "reseal", img] + damage.reseal, capture_output=True)


def restore(img, damager, damage):
    """Put back every block DAMAGE or its reseal can have written (from the base)."""
    bs = damager.m.bs
    blocks = set()
    for off, new in damage.writes:
        blocks |= set(range(off // bs, (off + len(new) - 1) // bs + 1))
    if damage.jwrites:
        with open(img + ".journal", "r+b") as f:
            for off, new in damage.jwrites:
                f.seek(off)
                f.write(damager.jdata[off:off + len(new)])
    for obj in damage.reseal:
        kind, _, rest = obj.partition(":")
        arg = int(rest.split(":")[0]) if rest else 0
        if kind == "sb":
            blocks.add(1024 // bs)
        elif kind in ("gd", "bbitmap", "ibitmap"):
            blocks.add(damager.m.groups[arg]["desc"] // bs)
        elif kind == "inode":
            blocks.add(damager.m.inodes[arg]["off"] // bs)
        else:
            blocks.add(arg)
    with open(img, "r+b") as f:
        for b in sorted(blocks):
            f.seek(b * bs)
            f.write(damager.data[b * bs:(b + 1) * bs])
