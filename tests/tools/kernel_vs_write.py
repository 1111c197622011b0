#!/usr/bin/env python3
"""kernel_vs_write.py: the kernel as the oracle of `e4recover write`'s allocation choices.

A seeded random long workload (mkdir, create, append, unlink, rename, link, symlink,
truncate, rmdir, one directory grown large, commits as sync points) runs on two copies
of one fresh image: through the kernel on a loop mount pinned to one CPU (tests/writer.py
kernel: each commit writes the dirtied files back in order, then syncfs) and through
`e4recover write --script`. Then, per path, the inode number and the block list
(debugfs stat: data blocks by logical block, extent tree and indirect blocks) are
compared, and the agreement is reported per file kind and per operation kind (a path
counts under every kind of operation its inode went through), each difference named.

    kernel_vs_write.py --e4recover recover/e4recover [--seed S] [--ops N]
        [--bs 1024|4096] [--flex on|off] [--csum on|off] [--size 128M]
        [--work DIR] [--show N] [--json] [--kernel-runs 2]

Exit status 0 when both runs completed (whatever the agreement), 2 when one failed.
The summary's last lines are machine-readable:
    inodes SAME TOTAL      paths whose inode number is the kernel's
    blocks SAME TOTAL      paths with blocks whose list is the kernel's
    kernel-again SAME TOTAL  (--kernel-runs 2) paths a second kernel run gives the same blocks
"""
import argparse, json, os, random, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))          # tests/writer.py
import writer                                       # noqa: E402

UUID = '11111111-2222-3333-4444-555555555555'
HASH_SEED = '00000000-0000-0000-0000-000000000001'
MAX_COMMIT = 3600


# ---- the workload ----

class Workload:
    """A model of the tree that keeps every operation valid; OBJ ids follow inodes
    across links and renames so each path knows the operations its inode went through."""

    def __init__(self, seed, nops, bs):
        self.r = random.Random(seed)
        self.nops, self.bs = nops, bs
        self.lines = []
        self.dirs = ['']                 # '' is the root
        self.files = {}                  # path -> obj
        self.links = {}                  # path -> obj (symlinks)
        self.size = {}                   # obj -> size
        self.hist = {}                   # obj -> set of op kinds
        self.nobj = 0
        self.name = 0
        self.big = '/big'
        # names long enough that the big directory passes one block early on
        self.big_target = (6 if bs == 1024 else 3) * bs // 40

    def new_obj(self, kind):
        self.nobj += 1
        self.hist[self.nobj] = {kind}
        return self.nobj

    def op(self, *words):
        self.lines.append(' '.join(str(w) for w in words))

    def fresh(self, d, prefix):
        self.name += 1
        return '%s/%s%d' % (d, prefix, self.name)

    def file_size(self):
        x = self.r.random()
        if x < 0.55:
            return self.r.randint(1, 4 * self.bs)
        if x < 0.9:
            return self.r.randint(4 * self.bs, 64 * 1024)
        return self.r.randint(64 * 1024, 700 * 1024)

    def subtree(self, d):
        return [p for p in list(self.files) + list(self.links) + self.dirs if p.startswith(d + '/')]

    def gen(self):
        r = self.r
        self.op('mkdir', self.big)
        self.dirs.append(self.big)
        big_made = 0
        n = 0
        until_commit = r.randint(1, 12)
        total = 0
        while n < self.nops:
            kinds = ['mkdir'] * 7 + ['create'] * 26 + ['append'] * 16 + ['unlink'] * 8 + \
                ['rename'] * 7 + ['link'] * 4 + ['symlink'] * 6 + ['truncate'] * 8 + ['rmdir'] * 2
            if big_made < self.big_target:
                kinds += ['big'] * 12
            k = r.choice(kinds)
            files = sorted(self.files)
            if k == 'mkdir':
                d = self.fresh(r.choice(self.dirs), 'd')
                self.op('mkdir', d)
                self.dirs.append(d)
            elif k in ('create', 'big'):
                if k == 'big':
                    p = '%s/entry-with-a-long-name-%05d' % (self.big, big_made)
                    big_made += 1
                    size = r.randint(0, 2 * self.bs)
                else:
                    p = self.fresh(r.choice(self.dirs), 'f')
                    size = self.file_size()
                if total + size > self.budget:
                    continue
                total += size
                o = self.new_obj('create')
                self.op('create', p, size)
                self.files[p] = o
                self.size[o] = size
            elif k == 'append' and files:
                p = r.choice(files)
                o = self.files[p]
                size = r.randint(1, 3 * self.bs) if r.random() < 0.7 else r.randint(3 * self.bs, 200 * 1024)
                if total + size > self.budget:
                    continue
                total += size
                self.op('append', p, size)
                self.size[o] += size
                self.hist[o].add('append')
            elif k == 'truncate' and files:
                p = r.choice(files)
                o = self.files[p]
                size = r.randint(0, self.size[o]) if r.random() < 0.8 else self.size[o] + r.randint(1, 8 * self.bs)
                self.op('truncate', p, size)
                self.size[o] = size
                self.hist[o].add('truncate')
            elif k == 'unlink' and (files or self.links):
                p = r.choice(files + sorted(self.links))
                self.op('unlink', p)
                if p in self.files:
                    del self.files[p]
                else:
                    del self.links[p]
            elif k == 'rmdir':
                empty = [d for d in self.dirs if d and d != self.big and not self.subtree(d)]
                if not empty:
                    continue
                d = r.choice(empty)
                self.op('rmdir', d)
                self.dirs.remove(d)
            elif k == 'rename' and files:
                p = r.choice(files)
                q = self.fresh(r.choice(self.dirs), 'r')
                self.op('rename', p, q)
                o = self.files.pop(p)
                self.files[q] = o
                self.hist[o].add('rename')
            elif k == 'link' and files:
                p = r.choice(files)
                q = self.fresh(r.choice(self.dirs), 'h')
                self.op('link', p, q)
                self.files[q] = self.files[p]
                self.hist[self.files[p]].add('link')
            elif k == 'symlink':
                q = self.fresh(r.choice(self.dirs), 's')
                if r.random() < 0.5:
                    target = '/t/%d' % self.name
                else:
                    target = '/' + '/'.join('long-target-%d' % i for i in range(r.randint(5, 12)))
                self.op('symlink', target, q)
                self.links[q] = self.new_obj('symlink')
            else:
                continue
            n += 1
            until_commit -= 1
            if not until_commit:
                self.op('commit')
                until_commit = r.randint(1, 12)
        self.op('commit')

    def kinds(self, path):
        """The file kind and the operation kinds of PATH's inode."""
        if path in self.links:
            return 'symlink', self.hist[self.links[path]]
        if path in self.files:
            o = self.files[path]
            kind = 'big-dir entry' if os.path.dirname(path) == self.big else \
                'file <= 4 blocks' if self.size[o] <= 4 * self.bs else \
                'file <= 64K' if self.size[o] <= 65536 else 'file > 64K'
            return kind, self.hist[o]
        return ('big dir' if path == self.big else 'dir'), {'mkdir'}


# ---- the two runs ----

def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, **kw)


def mkimg(path, size, bs, flex, csum):
    feats = []
    if not flex:
        feats.append('^flex_bg')
    if not csum:
        feats.append('^metadata_csum')
    cmd = ['mke2fs', '-q', '-F', '-t', 'ext4', '-b', str(bs), '-U', UUID,
           '-E', 'hash_seed=%s,lazy_itable_init=0,lazy_journal_init=0' % HASH_SEED]
    if feats:
        cmd += ['-O', ','.join(feats)]
    p = run(cmd + [path, size])
    if p.returncode:
        raise SystemExit('mke2fs: ' + p.stdout)


RANGE = re.compile(r'\(([^)]*)\):(\d+)(?:-(\d+))?')


def listing(image, paths):
    """path -> (inode, [block tokens]) from one debugfs run: "L:P" per data block,
    "ETBn:P" / "IND:P" ... for the mapping's own blocks."""
    fd, cmds = tempfile.mkstemp(prefix='e4r-kvw-')
    with os.fdopen(fd, 'w') as f:
        for p in paths:
            f.write('stat "%s"\n' % p)
    out = run(['debugfs', '-f', cmds, image]).stdout
    os.unlink(cmds)
    res, cur, inmap = {}, None, False
    for line in out.split('\n'):
        if line.startswith('debugfs: stat '):
            cur = line[len('debugfs: stat '):].strip().strip('"')
            res[cur] = [0, []]
            inmap = False
            continue
        if cur is None:
            continue
        m = re.match(r'Inode: (\d+)', line)
        if m:
            res[cur][0] = int(m.group(1))
        if line.startswith(('EXTENTS:', 'BLOCKS:')):
            inmap = True
            continue
        if inmap:
            if not line.strip() or line.startswith('Fast link') or 'TOTAL' in line:
                inmap = False
                continue
            for what, a, b in RANGE.findall(line):
                a, b = int(a), int(b) if b else int(a)
                if re.match(r'^\d+(-\d+)?$', what):
                    lo = int(what.split('-')[0])
                    res[cur][1] += ['%d:%d' % (lo + i, a + i) for i in range(b - a + 1)]
                else:
                    res[cur][1] += ['%s:%d' % (what, x) for x in range(a, b + 1)]
    return res


def tree_paths(image):
    """Every path in IMAGE but lost+found, from debugfs's rdump-free walk (ls -p)."""
    out, todo = [], ['/']
    while todo:
        d = todo.pop()
        ls = run(['debugfs', '-R', 'ls -p "%s"' % d, image]).stdout
        for line in ls.split('\n'):
            w = line.strip().split('/')     # /INO/MODE/UID/GID/NAME/SIZE/
            if len(w) < 7 or w[5] in ('', '.', '..') or (d == '/' and w[5] == 'lost+found'):
                continue
            p = d.rstrip('/') + '/' + w[5]
            out.append(p)
            if int(w[2], 8) & 0o170000 == 0o040000:
                todo.append(p)
    return sorted(out)


def compare(args, work):
    wl = Workload(args.seed, args.ops, args.bs)
    wl.budget = int(parse_size(args.size) * 0.45)
    wl.gen()
    script = os.path.join(work, 'script.txt')
    with open(script, 'w') as f:
        f.write('\n'.join(wl.lines) + '\n')
    ours, kern = os.path.join(work, 'ours.img'), os.path.join(work, 'kernel.img')
    mkimg(ours, args.size, args.bs, args.flex == 'on', args.csum == 'on')
    run(['cp', '--sparse=always', ours, kern])
    p = run([args.e4recover, 'write', '--script=' + script, ours])
    if p.returncode:
        print('write failed (%d): %s' % (p.returncode, p.stdout.strip()[-500:]))
        return None
    # commit=: only the script's commits (and a full journal) end a transaction, as in
    # the writer; the 5-second timer would make which freed blocks are reusable depend
    # on how fast the machine runs the script.
    fresh = os.path.join(work, 'fresh.img')
    run(['cp', '--sparse=always', kern, fresh])
    writer.kernel(kern, script, options='loop,commit=%d' % MAX_COMMIT)
    fsck = run(['e2fsck', '-fn', ours])
    paths = sorted(set(tree_paths(kern)) | set(tree_paths(ours)))
    a, b = listing(ours, paths), listing(kern, paths)
    again = None
    if args.kernel_runs > 1:
        # the kernel against itself: how far its own choices are reproducible here
        again_img = os.path.join(work, 'kernel2.img')
        run(['cp', '--sparse=always', fresh, again_img])
        writer.kernel(again_img, script, options='loop,commit=%d' % MAX_COMMIT)
        again = listing(again_img, paths)
    os.unlink(fresh)
    return wl, paths, a, b, fsck.returncode, again


def parse_size(s):
    mult = {'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}
    return int(s[:-1]) * mult[s[-1]] if s[-1] in mult else int(s)


def first_diff(x, y):
    for i in range(max(len(x), len(y))):
        u = x[i] if i < len(x) else '-'
        v = y[i] if i < len(y) else '-'
        if u != v:
            return i, u, v
    return None


def report(args, wl, paths, ours, kern, fsck_rc, again=None):
    by_kind, by_op, diffs = {}, {}, []
    ino_same = ino_total = blk_same = blk_total = 0
    for p in paths:
        o, k = ours.get(p, [0, []]), kern.get(p, [0, []])
        kind, ops = wl.kinds(p)
        ino_total += 1
        ino_ok = o[0] == k[0]
        ino_same += ino_ok
        if not ino_ok:
            diffs.append('%s (%s): inode %d, kernel %d' % (p, kind, o[0], k[0]))
        if not k[1] and not o[1]:
            continue
        ok = o[1] == k[1]
        blk_total += 1
        blk_same += ok
        for table, key in [(by_kind, kind)] + [(by_op, x) for x in sorted(ops)]:
            t = table.setdefault(key, [0, 0])
            t[0] += ok
            t[1] += 1
        if not ok:
            i, u, v = first_diff(o[1], k[1])
            diffs.append('%s (%s; %s): %d blocks, kernel %d; first difference at #%d: ours %s, kernel %s'
                         % (p, kind, '+'.join(sorted(ops)), len(o[1]), len(k[1]), i, u, v))
    kk = None
    if again is not None:
        have = [p for p in paths if kern.get(p, [0, []])[1] or again.get(p, [0, []])[1]]
        kk = [sum(kern.get(p, [0, []])[1] == again.get(p, [0, []])[1] for p in have), len(have)]
    return {'kernel_vs_kernel': kk, 'config': 'seed=%d ops=%d bs=%d flex=%s csum=%s' % (args.seed, args.ops, args.bs, args.flex, args.csum),
            'e2fsck': fsck_rc, 'inodes': [ino_same, ino_total], 'blocks': [blk_same, blk_total],
            'by_kind': by_kind, 'by_op': by_op, 'diffs': diffs}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--e4recover', required=True)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--ops', type=int, default=1500)
    ap.add_argument('--bs', type=int, choices=(1024, 4096), default=4096)
    ap.add_argument('--flex', choices=('on', 'off'), default='on')
    ap.add_argument('--csum', choices=('on', 'off'), default='on')
    ap.add_argument('--size', default='128M')
    ap.add_argument('--work')
    ap.add_argument('--show', type=int, default=10, help='differences to print')
    ap.add_argument('--json', action='store_true')
    ap.add_argument('--kernel-runs', type=int, default=1,
                    help='2: run the kernel a second time and report how many paths its two runs agree on')
    ap.add_argument('--script-only', action='store_true', help='print the workload and stop')
    args = ap.parse_args()
    if args.script_only:
        wl = Workload(args.seed, args.ops, args.bs)
        wl.budget = int(parse_size(args.size) * 0.45)
        wl.gen()
        print('\n'.join(wl.lines))
        return 0
    work = args.work or tempfile.mkdtemp(prefix='e4r-kvw-')
    os.makedirs(work, exist_ok=True)
    got = compare(args, work)
    if got is None:
        return 2
    rep = report(args, *got)
    if args.json:
        print(json.dumps(rep, indent=1))
        return 0
    pct = lambda s, t: 100.0 * s / t if t else 100.0
    print('# %s: e2fsck -fn on ours: %s' % (rep['config'], 'clean' if rep['e2fsck'] == 0 else 'exit %d' % rep['e2fsck']))
    for title, table in (('file kind', rep['by_kind']), ('operation', rep['by_op'])):
        for key in sorted(table):
            s, t = table[key]
            print('#   %-10s %-18s blocks agree %4d of %4d (%5.1f%%)' % (title, key, s, t, pct(s, t)))
    for d in rep['diffs'][:args.show]:
        print('# differs: ' + d)
    if len(rep['diffs']) > args.show:
        print('# ... and %d more differences' % (len(rep['diffs']) - args.show))
    print('inodes %d %d' % tuple(rep['inodes']))
    print('blocks %d %d' % tuple(rep['blocks']))
    if rep['kernel_vs_kernel']:
        print('kernel-again %d %d' % tuple(rep['kernel_vs_kernel']))
    if not args.work:
        for f in os.listdir(work):
            os.unlink(os.path.join(work, f))
        os.rmdir(work)
    return 0


if __name__ == '__main__':
    sys.exit(main())
