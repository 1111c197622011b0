"""The feature matrix: one populated base image per flavour.

Each flavour is made by mke2fs, filled through the kernel (a loop mount and
populate.py), then finished with what the kernel here cannot do (casefolded
directories are added by debugfs, since this kernel may lack unicode support,
and e2fsck -D indexes them). A base must be clean for e2fsck -fn; the tester
then damages copies of it.

Some flavours are made as users' filesystems were, by older tools or by
conversions: ext2 made ext3 (tune2fs -j) then ext4 (tune2fs -O ... and
e2fsck -fD, as the ext4 wiki prescribes), with files written at each step;
grown and shrunk by resize2fs after populating; an older mke2fs feature set
(128-byte inodes, no flex_bg, metadata_csum or 64bit; ext3 without
dir_index); an external journal device (mke2fs -O journal_dev), kept beside
the image as IMAGE.journal.

Every flavour NAME also comes full: NAME+fullblocks (a file written through
the kernel until ENOSPC, then one-block files until the last block is used),
NAME+fullinodes (empty files created until ENOSPC) and NAME+full (both). The
populated image before the fill is kept (BASE.populated.img) and shared by the
four variants of a flavour.
"""
import json
import os
import random
import shutil
import subprocess
import tempfile
from contextlib import contextmanager

from populate import populate

UUID = "11111111-2222-3333-4444-555555555555"
HASH_SEED = "00000000-0000-0000-0000-000000000001"

# name: (mke2fs arguments, size, features populate may use, extra steps)
FLAVOURS = {
    "ext4-4k": (["-t", "ext4", "-b", "4096", "-I", "256",
                 "-O", "inline_data,ea_inode,orphan_file"], "48M",
                {"extent", "ext_attr", "ea_inode", "inline_data"}, ["quota"]),
    "ext4-1k-metabg": (["-t", "ext4", "-b", "1024", "-O", "meta_bg,^resize_inode,inline_data"],
                       "32M", {"extent", "ext_attr", "inline_data"}, []),
    "ext4-2k-nocsum": (["-t", "ext4", "-b", "2048", "-O", "^metadata_csum,uninit_bg,^flex_bg"],
                       "32M", {"extent", "ext_attr"}, []),
    "bigalloc": (["-t", "ext4", "-b", "4096", "-O", "bigalloc", "-C", "16384"], "64M",
                 {"extent", "ext_attr"}, []),
    "ext3-1k": (["-t", "ext3", "-b", "1024"], "32M", {"ext_attr"}, []),
    "ext2-4k": (["-t", "ext2", "-b", "4096"], "32M", {"ext_attr"}, []),
    "hurd-4k": (["-t", "ext2", "-o", "hurd", "-b", "4096"], "32M", set(), []),
    "crypt-casefold": (["-t", "ext4", "-b", "4096", "-O", "encrypt"], "32M",
                       {"extent", "ext_attr", "encrypt"}, ["casefold"]),
    # as users' older filesystems were made or converted
    "ext2-ext3-ext4": (["-t", "ext2", "-b", "4096", "-I", "128", "-O", "^dir_index"], "32M",
                       {"ext_attr"}, ["convert"]),
    "resize-grown": (["-t", "ext4", "-b", "1024"], "20M", {"extent", "ext_attr"},
                     ["resize:48M"]),
    "resize-shrunk": (["-t", "ext4", "-b", "1024"], "64M", {"extent", "ext_attr"},
                      ["resize:30M"]),
    "ext3-old": (["-t", "ext3", "-b", "4096", "-I", "128", "-O", "^dir_index"], "32M",
                 {"ext_attr"}, []),
    "ext4-old": (["-t", "ext4", "-b", "4096", "-I", "128",
                  "-O", "^metadata_csum,^64bit,^flex_bg,uninit_bg,^huge_file,^dir_nlink"],
                 "32M", {"extent", "ext_attr"}, []),
    "ext4-extjournal": (["-t", "ext4", "-b", "4096"], "32M", {"extent", "ext_attr"},
                        ["extjournal"]),
}

# The full variants of every flavour: (blocks used to the last, inodes used to the last)
MODIFIERS = {"fullblocks": (True, False), "fullinodes": (False, True), "full": (True, True)}
# The flavours in the order of the table, each followed by its full variants
NAMES = [n + m for n in FLAVOURS for m in [""] + ["+" + k for k in MODIFIERS]]
JOURNAL_UUID = "66666666-7777-8888-9999-aaaaaaaaaaaa"

ENV = dict(os.environ, E2FSCK_CONFIG="/dev/null", LC_ALL="C",
           PATH="/sbin:/usr/sbin:" + os.environ.get("PATH", ""))


def sh(*args, check=True, **kw):
    p = subprocess.run(args, capture_output=True, text=True, env=ENV, **kw)
    if check and p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()))
    return p


def _casefold_dir(img):
    """A casefolded directory with names differing in case only after folding."""
    sh("tune2fs", "-O", "casefold", img)
    cmds = ["mkdir /folded", "set_inode_field /folded flags 0x40080000"]
    for i in range(120):
        cmds.append("write /dev/null /folded/Name-%03d-MiXeD" % i)
    _debugfs(img, cmds)
    # Index it (the casefolded hash) as the kernel would have once it grew.
    sh("e2fsck", "-fyD", img, check=False)


def _debugfs(img, cmds):
    with tempfile.NamedTemporaryFile("w", suffix=".cmds", delete=False) as f:
        f.write("\n".join(cmds) + "\n")
    try:
        sh("debugfs", "-w", "-f", f.name, img)
    finally:
        os.unlink(f.name)


def _quota(img):
    """Project ids on /projects/*, then user, group and project quota files."""
    sh("tune2fs", "-O", "project", img)
    _debugfs(img, ["set_inode_field /projects/p%d projid %d" % (i, 7 + i) for i in range(3)])
    sh("tune2fs", "-O", "quota", "-Q", "usrquota,grpquota,prjquota", img)
    # tune2fs's usage differs from e2fsck's by the quota inodes' own blocks; the
    # base must be clean for the oracle, so e2fsck writes the usage it expects.
    sh("e2fsck", "-fy", img, check=False)


def journal_of(img):
    """The external journal device kept beside IMG, or None."""
    j = img + ".journal"
    return j if os.path.exists(j) else None


@contextmanager
def _mounted(img, old_type, ro=False):
    """IMG mounted on a new directory (its external journal on a loop device)."""
    mnt = tempfile.mkdtemp(prefix="e4r-difftest-mnt.")
    loop = None
    try:
        opts = ["loop"] + ([] if old_type else ["nodelalloc"]) + (["ro"] if ro else [])
        if journal_of(img):
            loop = sh("losetup", "-f", "--show", journal_of(img)).stdout.strip()
            opts.append("journal_path=" + loop)
        sh("mount", "-o", ",".join(opts), img, mnt)
        try:
            yield mnt
        finally:
            sh("umount", mnt)
    finally:
        if loop:
            sh("losetup", "-d", loop)
        os.rmdir(mnt)


@contextmanager
def _one_cpu():
    # Blocks allocated as each write is made, by one CPU, are laid out the
    # same on every run: with delayed allocation the layout followed the
    # moment writeback ran (a sync by any other process on the machine
    # split the long file over the fragmented one's holes, or did not),
    # and mballoc keeps a preallocation per CPU for small files.
    cpus = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(cpus)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, cpus)


def _is_old_type(opts):
    # The ext2 and ext3 types refuse nodelalloc; their layouts held still
    # under the same concurrent syncs without it.
    return opts[opts.index("-t") + 1] in ("ext2", "ext3")


def _write_step(mnt, step, made, bs):
    """Files written after a conversion step: a directory of them, a file of a few
    blocks (a block map or extents, as the step allows), a symlink, an xattr."""
    d = os.path.join(mnt, step)
    os.mkdir(d)
    for i in range(60):
        with open(os.path.join(d, "f%02d" % i), "wb") as f:
            f.write(bytes([i]) * (i * 97 % (3 * bs) + 1))
    with open(os.path.join(d, "gappy"), "wb") as f:
        for i in range(20):
            f.seek(2 * i * bs)
            f.write(bytes([i + 1]) * bs)
    os.symlink("f00", os.path.join(d, "link"))
    os.setxattr(os.path.join(d, "f01"), "user.step", step.encode())
    for p in ("", "/f00", "/f01", "/f59", "/gappy", "/link"):
        made["/" + step + p] = os.lstat(d + p).st_ino


def _remap(img, made, old_type):
    """The manifest's paths again, after a tool that moves inodes (resize2fs shrinking)."""
    with _mounted(img, old_type, ro=True) as mnt:
        return {p: os.lstat(mnt + p).st_ino for p in made}


def _populated(name, img, seed):
    """mke2fs, populate and every step the kernel can still mount after; the manifest."""
    opts, size, caps, extra = FLAVOURS[name]
    for f in (img, img + ".journal"):
        if os.path.exists(f):
            os.unlink(f)
    old_type = _is_old_type(opts)
    jopts = []
    loop = None
    if "extjournal" in extra:
        sh("truncate", "-s", "8M", img + ".journal")
        sh("mke2fs", "-q", "-F", "-O", "journal_dev", "-b", opts[opts.index("-b") + 1],
           "-U", JOURNAL_UUID, img + ".journal")
        loop = sh("losetup", "-f", "--show", img + ".journal").stdout.strip()
        jopts = ["-J", "device=" + loop]
    try:
        sh("mke2fs", "-q", "-F", "-U", UUID, "-E", "hash_seed=" + HASH_SEED, *opts, *jopts,
           img, size)
    finally:
        if loop:
            sh("losetup", "-d", loop)
    with _mounted(img, old_type) as mnt, _one_cpu():
        made = populate(mnt, "%s/%s" % (seed, name), caps)
        bs = os.statvfs(mnt).f_bsize
    if "convert" in extra:
        # ext2 to ext3, then to ext4 as the wiki prescribes; files written after each
        sh("tune2fs", "-j", img)
        with _mounted(img, True) as mnt, _one_cpu():
            _write_step(mnt, "after-ext3", made, bs)
        sh("tune2fs", "-O", "extents,uninit_bg,dir_index,huge_file,dir_nlink,extra_isize", img)
        if sh("e2fsck", "-fyD", img, check=False).returncode >= 4:
            raise RuntimeError("e2fsck -fyD left %s damaged after the conversion" % img)
        with _mounted(img, False) as mnt, _one_cpu():
            _write_step(mnt, "after-ext4", made, bs)
    for step in extra:
        if step.startswith("resize:"):
            new = step.split(":")[1]
            sh("e2fsck", "-fy", img)  # resize2fs wants a checked filesystem
            if int(new[:-1]) > int(size[:-1]):
                sh("truncate", "-s", new, img)
                sh("resize2fs", img, new)
            else:
                sh("resize2fs", img, new)
                sh("truncate", "-s", new, img)
                made = _remap(img, made, old_type)
    return made


def _free(img):
    """(free blocks, free inodes) as the superblock counts them."""
    out = sh("dumpe2fs", "-h", img).stdout
    vals = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    return int(vals["Free blocks"]), int(vals["Free inodes"])


def _until_enospc(make):
    """Call MAKE(0), MAKE(1), ... until one fails for lack of space (ENOSPC); how many made."""
    k = 0
    while True:
        try:
            make(k)
        except OSError as ex:
            if ex.errno != 28:
                raise
            return k
        k += 1


def _fill(mnt, blocks, inodes, slack, made):
    """Use the mounted filesystem's blocks and/or inodes to the last one, as a user
    does: a file written until ENOSPC, empty files created until ENOSPC. SLACK
    leaves room for the steps after (quota files, a casefolded directory)."""
    fill = os.path.join(mnt, "fill")
    spare = os.path.join(fill, "last")
    os.mkdir(fill)
    os.mkdir(spare)
    # room in a block of its own for the last names (an inline directory would
    # need a block, and there may be none left by then)
    for i in range(100):
        open(os.path.join(spare, "room-%03d" % i), "w").close()
    for i in range(100):
        os.unlink(os.path.join(spare, "room-%03d" % i))
    # ext4 keeps clusters back for its own conversions; a user's full filesystem
    # has written into them too (root may)
    dev = os.path.basename(os.path.realpath(
        sh("findmnt", "-no", "SOURCE", mnt).stdout.strip()))
    resv = "/sys/fs/ext4/%s/reserved_clusters" % dev
    if os.path.exists(resv):
        with open(resv, "w") as f:
            f.write("0")
    big = os.path.join(fill, "blocks")
    if blocks:
        open(big, "w").close()
    n = 0
    if inodes:
        n = _until_enospc(lambda k: open(os.path.join(fill, "i%05d" % k), "w").close())
        # a few inodes back for the one-block files that use the last blocks
        if blocks:
            for k in range(n - 8, n):
                os.unlink(os.path.join(fill, "i%05d" % k))
            n -= 8
    bs = os.statvfs(mnt).f_bsize
    if blocks:
        fd = os.open(big, os.O_WRONLY)
        try:
            for chunk in (1 << 20, bs):
                data = bytes([0x5a]) * chunk
                while True:
                    try:
                        if os.write(fd, data) < chunk:
                            break
                    except OSError as ex:
                        if ex.errno != 28:
                            raise
                        break
            os.fsync(fd)
        finally:
            os.close(fd)
        k = 0
        while os.statvfs(mnt).f_bfree > 0:
            try:
                with open(os.path.join(spare, "b%03d" % k), "wb") as f:
                    f.write(b"b")
                    f.flush()
                    os.fsync(f.fileno())
            except OSError as ex:
                if ex.errno != 28:
                    raise
                os.unlink(os.path.join(spare, "b%03d" % k))
                break
            k += 1
    if inodes:
        _until_enospc(lambda k: open(os.path.join(spare, "e%03d" % k), "w").close())
    if slack:
        if blocks:
            os.truncate(big, max(0, os.stat(big).st_size - 64 * bs))
        for k in range(n - 130 if inodes else n, n):
            os.unlink(os.path.join(fill, "i%05d" % k))
    os.sync()
    made["/fill"] = os.stat(fill).st_ino
    made["/fill/last"] = os.stat(spare).st_ino
    if blocks:
        made["/fill/blocks"] = os.stat(big).st_ino
    if n:
        made["/fill/i00000"] = os.stat(os.path.join(fill, "i00000")).st_ino


def _topup(img, blocks, inodes, seed):
    """Use up through debugfs what the steps after the fill left free (the kernel
    here cannot mount those filesystems): a file of the blocks (it needs an inode
    of its own), then empty files."""
    for turn in range(8):
        fb, fi = _free(img)
        cmds, data = [], None
        if blocks and fb:
            bs = int(sh("dumpe2fs", "-h", img).stdout.split("Block size:")[1].split()[0])
            data = os.path.join(os.path.dirname(img), "topup.data")
            # a block or two fewer each turn: the file's own map may need them
            with open(data, "wb") as f:
                f.write(random.Random(seed).randbytes(max(1, fb - 2 * turn) * bs))
            cmds.append("write %s /fill/last/top%d" % (data, turn))
        if inodes and fi:
            cmds += ["write /dev/null /fill/last/t%05d-%d" % (k, turn) for k in range(fi)]
        if not cmds:
            return
        try:
            _debugfs(img, cmds)
        finally:
            if data:
                os.unlink(data)


def build(name, img, seed=1):
    """Make flavour NAME (a flavour, or FLAVOUR+MODIFIER) at IMG; returns the manifest
    {path: inode}. The external journal, if any, is left at IMG.journal."""
    base, _, mod = name.partition("+")
    opts, size, caps, extra = FLAVOURS[base]
    stage = os.path.join(os.path.dirname(img), base + ".populated.img")
    if not (os.path.exists(stage) and os.path.exists(stage + ".json")):
        made = _populated(base, stage, seed)
        with open(stage + ".json", "w") as f:
            json.dump(made, f, sort_keys=True, indent=0)
    with open(stage + ".json") as f:
        made = json.load(f)
    for f in (img, img + ".journal"):
        if os.path.exists(f):
            os.unlink(f)
    shutil.copyfile(stage, img)
    if journal_of(stage):
        shutil.copyfile(journal_of(stage), img + ".journal")
    blocks, inodes = MODIFIERS[mod] if mod else (False, False)
    slack = bool(mod) and any(e in ("quota", "casefold") for e in extra)
    if mod:
        with _mounted(img, _is_old_type(opts)) as mnt, _one_cpu():
            _fill(mnt, blocks, inodes, slack, made)
    if "quota" in extra:
        _quota(img)
    if "casefold" in extra:
        _casefold_dir(img)
        out = sh("debugfs", "-R", "stat /folded", img).stdout
        for line in out.splitlines():
            if line.startswith("Inode:"):
                made["/folded"] = int(line.split()[1])
    if slack:
        _topup(img, blocks, inodes, "%s/%s" % (seed, name))
        sh("e2fsck", "-fy", img, check=False)  # the quota usage of the files added
    if mod:
        fb, fi = _free(img)
        if (blocks and fb) or (inodes and fi):
            raise RuntimeError("%s: %d blocks and %d inodes left free" % (name, fb, fi))
    manifest = img + ".json"
    with open(manifest, "w") as f:
        json.dump(made, f, sort_keys=True, indent=0)
    return made
