"""Damage families: every value of a short list, for every field of a kind of
object, on every flavour, where the random draw of difftest.py samples.

A family walks one field over systematic values (each bit flipped, zero) on
the objects most likely to show a rule: the superblock's feature words, an
inode of each type (mode and flags), the journal superblock, a descriptor of
the first two groups. A case is a regress line (FLAVOUR SPEC), repaired too:
the same check as a line of regress.txt, so a failing case is already the
line to keep. Found this way: a lost inline_data feature, a resize
inode without its feature, immutable devices, a directory whose index flag
went, short symlinks kept in a block.
"""

import damage as dmg

# objects of each type the bases hold (populate.py); a path missing from a
# flavour is reported as unresolved and skipped
INODE_PATHS = ["/small/tiny", "/small/one-block", "/small/empty", "/medium/fragmented",
               "/medium/sparse", "/big", "/small", "/deep0/deep1", "/small/fast-link",
               "/small/slow-link", "/small/char", "/small/fifo", "/small/socket"]
MODES = ["0x41ed", "0x81a4", "0xa1ff", "0x21a4", "0x61a4", "0x11a4", "0xc1a4", "0x0000",
         "0xf1a4"]
FEATURE_WORDS = ["s_feature_compat", "s_feature_incompat", "s_feature_ro_compat"]
JSB_WORDS = ["h_magic", "h_blocktype", "s_blocksize", "s_maxlen", "s_first", "s_sequence",
             "s_start", "s_errno", "s_feature_compat", "s_feature_incompat",
             "s_feature_ro_compat", "s_nr_users", "s_max_transaction", "s_num_fc_blks"]
GD_WORDS = ["bg_block_bitmap_lo", "bg_inode_bitmap_lo", "bg_inode_table_lo",
            "bg_free_blocks_count_lo", "bg_free_inodes_count_lo", "bg_used_dirs_count_lo",
            "bg_flags", "bg_itable_unused_lo"]

# The value sweeps: every field of the structure (damage.py's tables) over the
# values that most often cross a rule: zero, one, the lowest bit flipped, the top
# bit flipped. The superblock's magic, checksum and feature words are left to
# sb-features; a checksum field alone only restates the checksum families.
SWEEP_OPS = ("=0", "flip:0", "flip:top", "=1")
SWEEP_INODES = ["/small/tiny", "/medium/fragmented", "/big", "/deep0/deep1",
                "/small/slow-link", "/small/char"]

# Attribute entries (in the inode and in a block, a value in place and in an
# EA inode) rewritten with their hash in each form: names hashed with
# unsigned or signed chars (a high-bit name byte tells them apart), and a
# zero hash (older kernels' in-inode entries). e2fsck says which are sound.
XATTR_HASH_OBJECTS = [("ixattr", "/small/xattr-inline"), ("ixattr", "/small/xattr-ea-inode"),
                      ("ixattr", "/deep0"), ("xattr", "/small/xattr-block"),
                      ("xattr", "/small/shared-a"), ("xattr", "/small/xattr-ea-inode"),
                      ("xattr", "/small/acl"), ("ixattr", "/small/acl")]
XATTR_HASH_OPS = ["hiname:unsigned", "hiname:signed", "rehash:signed", "rehash:zero"]

# The structures an inode embeds, each written whole: zeroed, all ones, or copied
# from another inode of the same kind (the second path). i_block is an extent
# header and root, a block map, inline data, a fast symlink's target or a device
# number, by flavour and type; eh is the extent header alone; ixattr is the area
# after i_extra_isize. A pair names a path the flavour lacks: not applicable there.
AREA_PAIRS = [("/small/empty", "/small/one-block"), ("/small/tiny", "/small/inline-xattr"),
              ("/small/one-block", "/small/few-blocks"), ("/medium/fragmented", "/small/one-block"),
              ("/medium/sparse", "/medium/fragmented"), ("/small", "/deep0/deep1"),
              ("/deep0/deep1", "/small"), ("/big", "/small"),
              ("/small/fast-link", "/small/slow-link"), ("/small/slow-link", "/small/long-link"),
              ("/small/char", "/small/block")]
XATTR_PAIRS = [("/small/xattr-inline", "/deep0"), ("/deep0", "/small/xattr-inline"),
               ("/small/acl", "/small/xattr-inline"), ("/small/inline-xattr", "/small/acl")]
# The superblock's inode numbers, each pointed at every reserved inode (1 to 10)
INUM_FIELDS = ["s_usr_quota_inum", "s_grp_quota_inum", "s_prj_quota_inum", "s_journal_inum",
               "s_last_orphan", "s_orphan_file_inum", "s_lpf_ino"]

# Duplicate names: an entry given the name of another in the same block (linear,
# htree leaves, an encrypted and a casefolded directory) or inline directory, two
# names of one inode or of two: e2fsck clears the one, renames the other (name~0),
# rebuilding the directory. (place, [(entry given the name, entry named)])
DUP_PLACES = [("/small@0", [(3, 2), (4, 2), (6, 5), (9, 7)]),
              ("/medium@0", [(3, 2), (4, 2), (6, 5)]),
              ("/big@1", [(3, 2), (4, 2), (6, 5), (9, 7)]),
              ("/big@5", [(1, 0), (4, 2), (9, 7)]),
              ("/secret@0", [(3, 2), (5, 4)]),
              ("/folded@0", [(3, 2), (5, 4), (8, 6)]),
              ("/small/dir2@inline", [(1, 0), (0, 1)])]

FAMILIES = ["sb-features", "inode-mode", "inode-flags", "jsb", "gd",
            "sb-values", "gd-values", "inode-values", "xattr-hash", "inode-areas", "sb-inums",
            "dirent-dups"]


def _sweep(prefix, fields, skip=()):
    out = []
    for name, _off, size in fields:
        if name in skip:
            continue
        for op in SWEEP_OPS:
            out.append("%s %s %s" % (prefix, name, op.replace("top", str(8 * size - 1))))
    return out


def specs(family):
    """The specs (without flavour) of FAMILY, each with ' repair'."""
    if family == "sb-features":
        return ["sb - %s flip:%d" % (w, n) for w in FEATURE_WORDS for n in range(20)]
    if family == "inode-mode":
        return ["inode %s i_mode =%s" % (p, m) for p in INODE_PATHS for m in MODES]
    if family == "inode-flags":
        return ["inode %s i_flags flip:%d" % (p, n) for p in INODE_PATHS for n in range(32)]
    if family == "jsb":
        return ["jsb - %s %s" % (w, op) for w in JSB_WORDS
                for op in ("flip:0", "flip:3", "flip:17", "flip:31", "=0")]
    if family == "gd":
        return ["gd %s %s %s" % (g, w, op) for g in ("g0", "g1") for w in GD_WORDS
                for op in ("flip:0", "flip:1", "flip:5", "flip:9", "flip:15", "=0")]
    if family == "sb-values":
        return _sweep("sb -", dmg.SB_FIELDS, skip=("s_magic", "s_checksum") + tuple(FEATURE_WORDS))
    if family == "gd-values":
        # the first group (the root, the journal) and the second (a backup's group)
        return [spec for g in ("g0", "g1") for spec in
                _sweep("gd " + g, dmg.GD_FIELDS + dmg.GD64_FIELDS, skip=("bg_checksum",))]
    if family == "inode-values":
        return [spec for p in SWEEP_INODES for spec in
                _sweep("inode " + p, dmg.INODE_FIELDS + dmg.INODE_LARGE_FIELDS,
                       skip=("l_i_checksum_lo", "i_checksum_hi"))]
    if family == "xattr-hash":
        return ["%s %s e_hash[%d] %s" % (st, p, k, op) for st, p in XATTR_HASH_OBJECTS
                for k in range(3) for op in XATTR_HASH_OPS]
    if family == "inode-areas":
        out = ["iarea %s %s %s" % (p, area, op) for area in ("i_block", "eh")
               for p, other in AREA_PAIRS for op in ("zero", "ones", "copy:" + other)]
        return out + ["iarea %s ixattr %s" % (p, op) for p, other in XATTR_PAIRS
                      for op in ("zero", "ones", "copy:" + other)]
    if family == "sb-inums":
        return ["sb - %s =%d" % (f, v) for f in INUM_FIELDS for v in range(1, 11)]
    if family == "dirent-dups":
        return ["dirent %s#%d name copy:%d" % (where, k, j) for where, pairs in DUP_PLACES
                for k, j in pairs]
    raise ValueError("unknown family %r (known: %s)" % (family, ", ".join(FAMILIES)))


def cases(family_list, names):
    """(label, flavour, spec) for every case of the families, on every flavour of NAMES."""
    out = []
    for family in family_list:
        for k, spec in enumerate(specs(family)):
            for name in names:
                out.append(("%s:%d" % (family, k), name, spec + " repair"))
    return out
