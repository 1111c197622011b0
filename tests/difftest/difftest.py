#!/usr/bin/env python3
"""Differential tester: e4recover check -n -f against e2fsck -fn, one damage at a time.

    difftest.py --e4recover BIN --fsmeta BIN [--work DIR] [--seed S] [--count N]
                [--flavours a,b] [--structs s,t] [--jobs J] [--regress FILE] [--show]

Builds one populated base image per flavour (flavours.py), then for case k of
seed S chooses (from random.Random("S/k")) a flavour and one damage
(damage.py), applies it to a working copy, runs both checkers, and restores
the copy. Every disagreement fails:

  missed       e2fsck finds damage, check calls the filesystem clean
  false-alarm  e2fsck finds it clean, check reports damage
  refused      check stops with exit 8 where e2fsck checks the filesystem
  wrote        check -n changed the image
  crashed      check died from a signal or ran past the time limit
With --repair, each case both find damaged is also repaired by e2fsck -fy and
by check -y -f (on copies), and fails when:
  unmended     e2fsck -fn is clean after e2fsck's repair but not after ours
  unstable     a second check -n -f after ours still finds something
  refixed      a problem fixed in one repair round is found again in the next
  guard        the write guard refused one of the repair's writes (lib/fs/guard_io.h)
  lost         an inode e2fsck keeps reachable (in place or in lost+found) is
               not reachable after ours (fsmeta reach walks both), unless ours
               keeps every inode of the undamaged base as it was; a
               /lost+found e2fsck made anew under another number is no
               loss where ours has one

A damage is already minimal (one field of one object), so a failing case is
printed as the line to add to regress.txt, which this tester also replays
(--regress): each line is "FLAVOUR SPEC", rebuilt and rechecked every run;
a line ending in "repair" is also repaired and compared as --repair does.
--line-counts prints, for every case e2fsck finds damaged, how many lines each tool
prints: "# lines LABEL FLAVOUR e2fsck-fn N check-n N e2fsck-fy N check-y N passes P Q"
(the -y pair on copies: e2fsck -fy and check -y -f, text; P and Q are 1 where e2fsck
-fn and -fy finished a check, with its summary line, 0 where they stopped or aborted);
tests/t/check-quiet.sh holds check's report to e2fsck's length with it.
Exit status 1 when anything failed; the last line is "N passed, N failed".
"""
import argparse
import json
import multiprocessing
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import damage as dmg  # noqa: E402
import families  # noqa: E402
import flavours  # noqa: E402

TIMEOUT = 120
ARGS = None
STATE = {}


def verdict(rc, out=""):
    if rc == "timeout" or rc < 0:
        return "crash"
    # e2fsck -n opens the image read-only, yet tries to write in places (clearing a
    # journal's recorded error); when that failed write stops it, it said nothing
    # about the filesystem: no verdict to compare with
    if rc & 8 and not rc & 4 and "Error writing block" in out:
        return "aborted"
    if rc & 8 and not rc & 4:
        return "refused"
    return "clean" if rc == 0 else "damaged"


def run(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                           timeout=TIMEOUT, env=flavours.ENV)
    except subprocess.TimeoutExpired:
        return "timeout", ""
    return p.returncode, p.stdout + p.stderr


NAMED = re.compile(r"\b[Ii]node (\d+)|\((\d+)\)|<(\d+)>|\binode #(\d+)")


def named(out):
    """The inode numbers an output names ("inode 12", "(12)", "<12>")."""
    return {int(next(g for g in m.groups() if g)) for m in NAMED.finditer(out)}


def compare(e_rc, o_rc, wrote, e_out=""):
    """The failure's kind, or None when the verdicts agree."""
    e, o = verdict(e_rc, e_out), verdict(o_rc)
    if o == "crash":
        return "crashed"
    if wrote:
        return "wrote"
    if o == "refused" and e != "refused":
        return "refused"
    if e in ("damaged", "refused") and o == "clean":
        return "missed"
    if e == "clean" and o == "damaged":
        return "false-alarm"
    return None


def jargs(img, tool, absent=False):
    """The options that give a checker IMG's external journal (flavours.journal_of).
    ABSENT: the journal is gone; e2fsck is pointed at a path that does not exist (it
    would otherwise take whatever device blkid's cache remembers), check looks for
    the journal's UUID as it does when no path is given."""
    j = flavours.journal_of(img)
    if not j:
        return []
    if absent:
        return ["-j", img + ".absent"] if tool == "e2fsck" else []
    return ["-j", j] if tool == "e2fsck" else ["--journal=" + j]


def _worker_init(work, bases):
    """Each worker damages copies of its own, restored after every case (the
    damagers, made before the pool, come with the fork)."""
    STATE["damagers"] = STATE["choosers"]
    STATE["copies"] = {}
    STATE["bases"] = bases
    STATE["wdir"] = tempfile.mkdtemp(prefix="w.", dir=work)


def _copy_of(name):
    """The worker's copy of base NAME, made when a case first needs it (a run has
    some fifty bases; most workers use a few of them)."""
    if name not in STATE["copies"]:
        img = STATE["bases"][name]
        copy = os.path.join(STATE["wdir"], name + ".img")
        shutil.copyfile(img, copy)
        if flavours.journal_of(img):
            shutil.copyfile(flavours.journal_of(img), copy + ".journal")
        STATE["copies"][name] = copy
    return STATE["copies"][name]


def line_counts(copy, absent, e_out, o_out):
    """(e2fsck -fn, check -n -f, e2fsck -fy, check -y -f) line counts of a damaged COPY,
    then whether e2fsck -fn and -fy finished a check (their "N/N files" summary); the
    repairs run on copies of it. e2fsck's version banner is not counted."""
    def lines(out):
        return len([x for x in out.splitlines() if not x.startswith("e2fsck 1.")])
    def finished(out):
        return int(bool(re.search(r": \d+/\d+ files", out)) and "e2fsck: aborted" not in out)
    counts = [lines(e_out), lines(o_out)]
    passes = [finished(e_out)]
    for tool in ("e2fsck", "check"):
        c = copy + ".lines"
        shutil.copyfile(copy, c)
        if flavours.journal_of(copy):
            shutil.copyfile(copy + ".journal", c + ".journal")
        try:
            if tool == "e2fsck":
                _, out = run(["e2fsck", "-fy", *jargs(c, "e2fsck", absent), c])
                passes.append(finished(out))
            else:
                _, out = run([ARGS.e4recover, "check", "-y", "-f", *jargs(c, "check", absent), c])
            counts.append(lines(out))
        finally:
            for f in (c, c + ".journal"):
                if os.path.exists(f):
                    os.unlink(f)
    return tuple(counts + passes)


def check_case(item):
    """(label, flavour, spec, failure or None, detail, unnamed, repairs measured) for one
    damage."""
    label, name, spec = item
    STATE["kept_by"] = set()
    STATE["lines"] = None
    damager, copy = STATE["damagers"][name], _copy_of(name)
    try:
        d = damager.resolve(spec)
    except (KeyError, IndexError, StopIteration, ValueError, OverflowError) as ex:
        return label, name, spec, "unresolved", "cannot apply to this base: %r" % ex, False, ()
    dmg.apply(copy, d, ARGS.fsmeta)
    try:
        e_rc, e_out = run(["e2fsck", "-fn", *jargs(copy, "e2fsck", d.absent), copy])
        before = [os.stat(f).st_mtime_ns for f in (copy, copy + ".journal") if os.path.exists(f)]
        o_rc, o_out = run([ARGS.e4recover, "check", "-n", "-f", *jargs(copy, "check", d.absent), copy])
        wrote = [os.stat(f).st_mtime_ns for f in (copy, copy + ".journal") if os.path.exists(f)] != before
        repair = None
        if ARGS.line_counts and verdict(e_rc, e_out) == "damaged":
            STATE["lines"] = line_counts(copy, d.absent, e_out, o_out)
        with_repair = ARGS.repair or spec.split()[-1] == "repair"
        if with_repair and verdict(e_rc) == "damaged" and verdict(o_rc) == "damaged":
            repair = compare_repairs(copy, damager.img, d.absent)
    finally:
        dmg.restore(copy, damager, d)
        if ARGS.paranoid:
            with open(copy, "rb") as f:
                if f.read() != damager.data[:]:
                    shutil.copyfile(damager.img, copy)
                    return label, name, spec, "unrestored", "restore left the copy changed", False, ()
    kind = compare(e_rc, o_rc, wrote, e_out)
    if not kind and repair:
        kind, rdetail = repair
        e_out, o_out = e_out + rdetail, o_out
    # The objects: an inode the damage hit that e2fsck names must be named by us too.
    unnamed = sorted(i for i in d.objects if i in named(e_out) and i not in named(o_out))
    if not kind and unnamed and ARGS.strict_objects:
        kind = "unnamed"
    detail = ""
    if kind or ARGS.show:
        detail = "e2fsck -fn exit %s, check -n -f exit %s\n--- e2fsck\n%s--- check\n%s" % (
            e_rc, o_rc, e_out[-3000:], o_out[-3000:])
    if STATE["lines"]:
        detail = "# lines %s %s e2fsck-fn %d check-n %d e2fsck-fy %d check-y %d passes %d %d\n%s" % (
            (label, name) + STATE["lines"] + (detail,))
    return label, name, spec, kind, detail, bool(unnamed), () if kind else tuple(STATE["kept_by"])


def reach(img):
    """{inode: (mode, size, crc)} of every inode reachable from the root."""
    p = subprocess.run([ARGS.fsmeta, "reach", img], capture_output=True, text=True,
                       errors="replace")
    out = {}
    for line in p.stdout.splitlines():
        w = line.split(" ", 4)
        out[int(w[0])] = (w[1], w[2], w[3], w[4] if len(w) > 4 else "")
    return out


def refixed(json_out):
    """A finding fixed in one round and found again in the next: a fix that did not hold."""
    try:
        doc = json.loads(json_out[json_out.index("{"):])
    except ValueError:
        return None
    def key(f):
        return tuple(f.get(k) for k in ("problem", "inode", "block", "group", "dir", "name"))
    fixed = {(f.get("round", 0), key(f)) for f in doc.get("findings", []) if f.get("fixed")}
    for f in doc.get("findings", []):
        if (f.get("round", 0) - 1, key(f)) in fixed:
            return f.get("message")
    return None


def fixed_problems(json_out):
    """The problem names check -y -f --json reports fixed, once each."""
    try:
        doc = json.loads(json_out[json_out.index("{"):])
    except ValueError:
        return set()
    return {f.get("problem") for f in doc.get("findings", []) if f.get("fixed")}


def base_reach(base):
    """reach() of an undamaged base, once per base."""
    cache = STATE.setdefault("base_reach", {})
    if base not in cache:
        cache[base] = reach(base)
    return cache[base]


def compare_repairs(copy, base, absent=False):
    """Repair the damaged copy with e2fsck -fy and with check -y -f; None when ours
    keeps every inode e2fsck keeps (or every inode of the undamaged BASE as it was:
    e2fsck reading a misplaced inode table keeps shifted copies of inodes under
    other numbers), leaves e2fsck -fn clean where e2fsck's does, and a second check
    finds nothing; else (kind, detail)."""
    ours, theirs = copy + ".ours", copy + ".e2fsck"
    shutil.copyfile(copy, ours)
    shutil.copyfile(copy, theirs)
    if flavours.journal_of(copy):
        shutil.copyfile(copy + ".journal", ours + ".journal")
        shutil.copyfile(copy + ".journal", theirs + ".journal")
    try:
        run(["e2fsck", "-fy", *jargs(theirs, "e2fsck", absent), theirs])
        y_rc, y_out = run([ARGS.e4recover, "check", "-y", "-f", "--json",
                           *jargs(ours, "check", absent), ours])
        if verdict(y_rc) == "crash":
            return "crashed", "\n--- check -y -f\n" + y_out[-3000:]
        if "write over filesystem metadata" in y_out:
            return "guard", "\n--- check -y -f\n" + y_out[-3000:]
        again = refixed(y_out)
        if again:
            return "refixed", "\n--- fixed, then found again the next round\n%s\n" % again
        # after the repair both are judged with the journal at hand (a journal the
        # repair left absent stays absent for both)
        t_rc, _ = run(["e2fsck", "-fn", *jargs(theirs, "e2fsck", absent), theirs])
        u_rc, u_out = run(["e2fsck", "-fn", *jargs(ours, "e2fsck", absent), ours])
        if t_rc == 0 and u_rc != 0:
            return "unmended", "\n--- check -y -f\n%s--- e2fsck -fn after it\n%s" % (
                y_out[-3000:], u_out[-3000:])
        if t_rc == 0:
            a_rc, a_out = run([ARGS.e4recover, "check", "-n", "-f", *jargs(ours, "check", absent),
                               ours])
            if a_rc != 0:
                return "unstable", "\n--- check -n -f after check -y -f\n" + a_out[-3000:]
            kept, mine = reach(theirs), reach(ours)
            whole = all(mine.get(i) == v for i, v in base_reach(base).items())
            lost = [] if whole else sorted(set(kept) - set(mine))
            # e2fsck's new lost+found (a number the damage freed) holds nothing of the user's
            if any(v[3] == "/lost+found" for v in mine.values()):
                lost = [i for i in lost if kept[i][3] != "/lost+found"]
            if lost:
                return "lost", "\n--- inodes e2fsck -fy keeps and check -y -f does not\n" + \
                    "".join("%d %s\n" % (i, " ".join(kept[i])) for i in lost[:20])
            # repairs made where every inode e2fsck keeps was kept too (COVERAGE's audit)
            STATE["kept_by"] = fixed_problems(y_out)
        return None
    finally:
        for f in (ours, theirs, ours + ".journal", theirs + ".journal"):
            if os.path.exists(f):
                os.unlink(f)


def draw_flavour(rng, names):
    """A flavour of NAMES: each flavour as likely as any other; then, where its full
    variants are among NAMES, one of them half the time (a sixth each: +fullblocks,
    +fullinodes, +full), as a full filesystem is no rarer a state than a flavour."""
    groups = {}
    for n in names:
        groups.setdefault(n.split("+")[0], []).append(n)
    group = groups[rng.choice(list(groups))]
    plain = [n for n in group if "+" not in n]
    full = [n for n in group if "+" in n]
    if full and (not plain or rng.random() < 0.5):
        return rng.choice(full)
    return plain[0]


def cases(seed, count, names):
    """Case k of seed S: the same flavour and damage whatever the job count."""
    out = []
    if not names:
        return out
    for k in range(count):
        rng = random.Random("%s/%d" % (seed, k))
        name = draw_flavour(rng, names)
        spec = STATE["choosers"][name].choose(rng, ARGS.structs)
        if spec:
            out.append(("case %s/%d" % (seed, k), name, spec))
    return out


def load_gaps(path):
    """Known gaps: (line, flavour regex, structure, field regex, kinds, reason)."""
    gaps = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            # a comment is a lone '#' as in regress.txt (a pattern may hold "#7")
            parts = re.split(r"(?:^|\s)#(?:\s|$)", line.rstrip("\n"), maxsplit=1)
            text, reason = parts[0], parts[1] if len(parts) > 1 else ""
            w = text.split()
            if not w:
                continue
            if len(w) != 4:
                raise SystemExit("%s:%d: want FLAVOURS STRUCT FIELD KINDS" % (path, n))
            gaps.append((n, re.compile(w[0]), w[1], re.compile(w[2]), w[3].split(","),
                         reason.strip()))
    return gaps


def known_gap(gaps, name, spec, kind):
    w = spec.split()
    for g in gaps:
        # STRUCT@WHERE: only damage at a place whose name holds @WHERE (dirent@inline)
        struct, _, where = g[2].partition("@")
        # FIELD-REGEX names the field, or for whole blocks (no field) the block
        if (g[1].fullmatch(name) and struct == w[0] and (not where or "@" + where in w[1]) and
                kind in g[4] and
                (g[3].fullmatch(w[2]) or (w[2] == "-" and g[3].fullmatch(w[1])))):
            return g
    return None


def regress_cases(path, names):
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            # a comment is a '#' standing alone as a word (dirent specs hold '#' in a
            # word, "/big@26#54", and inodes without a path are named "#181")
            line = re.split(r"(?:^|\s)#(?:\s|$)", line, maxsplit=1)[0].strip()
            if not line:
                continue
            name, spec = line.split(None, 1)
            if name in names:
                out.append(("%s:%d" % (os.path.basename(path), n), name, spec))
    return out


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--e4recover", required=True)
    ap.add_argument("--fsmeta", required=True)
    ap.add_argument("--work", help="directory for the base images (kept, reused)")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--flavours", default=",".join(flavours.NAMES),
                    help="flavours (flavours.py), each with its full variants: NAME+fullblocks, "
                    "NAME+fullinodes, NAME+full")
    ap.add_argument("--structs", type=lambda v: [x for x in v.split(",") if x],
                    help="only these structures (dirent,dxroot,...; block:dir for blocks of a kind)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--regress", action="append", default=[])
    ap.add_argument("--families", type=lambda v: [x for x in v.split(",") if x], default=[],
                    help="also every case of these damage families (families.py: %s), repaired"
                    % ",".join(families.FAMILIES))
    ap.add_argument("--gaps", help="known gaps: disagreements counted apart, not failed")
    ap.add_argument("--repair", action="store_true",
                    help="also repair each damaged case with e2fsck -fy and check -y -f, and "
                    "compare: e2fsck -fn clean after ours, every inode e2fsck keeps kept")
    ap.add_argument("--show", action="store_true", help="print both outputs for every case")
    ap.add_argument("--paranoid", action="store_true", help="verify each restore byte by byte")
    ap.add_argument("--strict-objects", action="store_true",
                    help="fail when e2fsck names the damaged inode and check does not")
    ap.add_argument("--list", action="store_true", help="print the cases, run nothing")
    ap.add_argument("--line-counts", action="store_true",
                    help="print both tools' line counts (-fn and -fy) for every damaged case")
    ARGS = ap.parse_args()
    names = [n for n in ARGS.flavours.split(",") if n]
    work = ARGS.work or tempfile.mkdtemp(prefix="e4r-difftest.")
    os.makedirs(work, exist_ok=True)

    bases, failed_bases = {}, 0
    for name in names:
        img = os.path.join(work, name + ".img")
        if not (os.path.exists(img) and os.path.exists(img + ".json")):
            flavours.build(name, img)
        rc, out = run(["e2fsck", "-fn", *jargs(img, "e2fsck"), img])
        o_rc, o_out = run([ARGS.e4recover, "check", "-n", "-f", *jargs(img, "check"), img])
        if rc != 0 or o_rc != 0:
            print("FAIL base %s: e2fsck -fn exit %s, check -n -f exit %s\n%s" % (
                name, rc, o_rc, (out if rc else o_out)[-2000:]))
            failed_bases += 1
            continue
        bases[name] = img
    names = [n for n in names if n in bases]
    STATE["choosers"] = {}
    for name in names:
        with open(bases[name] + ".json") as f:
            STATE["choosers"][name] = dmg.Damager(dmg.FsMap(ARGS.fsmeta, bases[name],
                                                            json.load(f)), bases[name])
    # --structs: the choosers draw from these only (damage.py's choose); regress lines too
    wanted = {x.split(":")[0] for x in ARGS.structs} if ARGS.structs else set()
    unknown = wanted - set(dmg.Damager.STRUCTS)
    if unknown:
        ap.error("unknown structures: %s" % ",".join(sorted(unknown)))
    todo = []
    for r in ARGS.regress:
        todo += [c for c in regress_cases(r, names)
                 if not ARGS.structs or c[2].split()[0] in wanted]
    try:
        todo += families.cases(ARGS.families, names)
    except ValueError as ex:
        ap.error(str(ex))
    todo += cases(ARGS.seed, ARGS.count, names)
    gaps = load_gaps(ARGS.gaps) if ARGS.gaps else []
    gap_hits = {}
    if ARGS.list:
        for label, name, spec in todo:
            print("%s: %s %s" % (label, name, spec))
        return 0

    passed, failed = 0, failed_bases
    objects_missed = 0
    tally = {}
    measured = {}  # problem name: cases whose -y repair it was in, nothing e2fsck keeps lost
    # a family names objects some flavours lack (a second group, a socket): not a failure there
    not_applicable = 0
    family_labels = tuple("%s:" % f for f in families.FAMILIES)
    # the workers' copies (full size: a copy is not sparse) go when the run ends;
    # each run keeps them in a folder of its own, as runs may share --work
    copies = tempfile.mkdtemp(prefix="run.", dir=work)
    try:
        with multiprocessing.Pool(ARGS.jobs, _worker_init, (copies, bases)) as pool:
            for label, name, spec, kind, detail, unnamed, kept_by in pool.imap(check_case, todo,
                                                                                 chunksize=4):
                for problem in kept_by:
                    measured[problem] = measured.get(problem, 0) + 1
                struct_ = spec.split()[0]
                if kind == "unresolved" and label.startswith(family_labels):
                    not_applicable += 1
                    continue
                objects_missed += unnamed
                t = tally.setdefault(struct_, [0, 0])
                t[0] += 1
                gap = known_gap(gaps, name, spec, kind) if kind and not label.startswith("regress") else None
                if gap:
                    gap_hits[gap[0]] = gap_hits.get(gap[0], 0) + 1
                    if ARGS.show:
                        print("GAP  %s [%s] %s %s (gaps line %d)" % (label, kind, name, spec, gap[0]))
                    continue
                if kind:
                    failed += 1
                    t[1] += 1
                    print("FAIL %s [%s] %s %s\n%s" % (label, kind, name, spec, detail))
                else:
                    passed += 1
                    if ARGS.show:
                        print("ok   %s %s %s\n%s" % (label, name, spec, detail))
                    elif detail.startswith("# lines "):
                        print(detail.split("\n", 1)[0])
    finally:
        shutil.rmtree(copies, ignore_errors=True)
    print("# by structure (cases, failures): " +
          ", ".join("%s %d/%d" % (k, v[0], v[1]) for k, v in sorted(tally.items())))
    for g in gaps:
        print("# known gap, line %d (%s): %d cases" % (g[0], g[5], gap_hits.get(g[0], 0)))
    print("# cases run: %d (known gaps: %d)" % (passed + failed - failed_bases + sum(gap_hits.values()),
                                              sum(gap_hits.values())))
    print("# cases where e2fsck names the damaged inode and check does not: %d" % objects_missed)
    if measured:
        print("# repairs made with every inode e2fsck -fy keeps kept (cases): " +
              ", ".join("%s %d" % kv for kv in sorted(measured.items())))
    if not_applicable:
        print("# family cases naming an object the flavour lacks: %d" % not_applicable)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
