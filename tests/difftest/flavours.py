"""The feature matrix: one populated base image per flavour.

Each flavour is made by mke2fs, filled through the kernel (a loop mount and
populate.py), then finished with what the kernel here cannot do (casefolded
directories are added by debugfs, since this kernel may lack unicode support,
and e2fsck -D indexes them). A base must be clean for e2fsck -fn; the tester
then damages copies of it.
"""
import json
import os
import subprocess
import tempfile

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
}

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


def build(name, img, seed=1):
    """Make flavour NAME at IMG; returns the manifest {path: inode}."""
    opts, size, caps, extra = FLAVOURS[name]
    if os.path.exists(img):
        os.unlink(img)
    sh("mke2fs", "-q", "-F", "-U", UUID, "-E", "hash_seed=" + HASH_SEED, *opts, img, size)
    mnt = tempfile.mkdtemp(prefix="e4r-difftest-mnt.")
    try:
        # Blocks allocated as each write is made, by one CPU, are laid out the
        # same on every run: with delayed allocation the layout followed the
        # moment writeback ran (a sync by any other process on the machine
        # split the long file over the fragmented one's holes, or did not),
        # and mballoc keeps a preallocation per CPU for small files.
        # The ext2 and ext3 types refuse the option; their layouts held still
        # under the same concurrent syncs without it.
        old_type = opts[opts.index("-t") + 1] in ("ext2", "ext3")
        sh("mount", "-o", "loop" if old_type else "loop,nodelalloc", img, mnt)
        try:
            cpus = os.sched_getaffinity(0)
            os.sched_setaffinity(0, {min(cpus)})
            try:
                made = populate(mnt, "%s/%s" % (seed, name), caps)
            finally:
                os.sched_setaffinity(0, cpus)
        finally:
            sh("umount", mnt)
    finally:
        os.rmdir(mnt)
    if "quota" in extra:
        _quota(img)
    if "casefold" in extra:
        _casefold_dir(img)
        out = sh("debugfs", "-R", "stat /folded", img).stdout
        for line in out.splitlines():
            if line.startswith("Inode:"):
                made["/folded"] = int(line.split()[1])
    manifest = img + ".json"
    with open(manifest, "w") as f:
        json.dump(made, f, sort_keys=True, indent=0)
    return made
