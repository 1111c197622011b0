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

A damage is already minimal (one field of one object), so a failing case is
printed as the line to add to regress.txt, which this tester also replays
(--regress): each line is "FLAVOUR SPEC", rebuilt and rechecked every run.
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
import flavours  # noqa: E402

TIMEOUT = 120
ARGS = None
STATE = {}


def verdict(rc):
    if rc == "timeout" or rc < 0:
        return "crash"
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


def compare(e_rc, o_rc, wrote):
    """The failure's kind, or None when the verdicts agree."""
    e, o = verdict(e_rc), verdict(o_rc)
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


def _worker_init(work, bases):
    """Each worker damages copies of its own, restored after every case (the
    damagers, made before the pool, come with the fork)."""
    STATE["damagers"] = STATE["choosers"]
    STATE["copies"] = {}
    wdir = tempfile.mkdtemp(prefix="w.", dir=work)
    for name, img in bases.items():
        copy = os.path.join(wdir, name + ".img")
        shutil.copyfile(img, copy)
        STATE["copies"][name] = copy


def check_case(item):
    """(label, flavour, spec, failure or None, detail) for one damage."""
    label, name, spec = item
    damager, copy = STATE["damagers"][name], STATE["copies"][name]
    try:
        d = damager.resolve(spec)
    except (KeyError, IndexError, StopIteration, ValueError) as ex:
        return label, name, spec, "unresolved", "cannot apply to this base: %r" % ex
    dmg.apply(copy, d, ARGS.fsmeta)
    try:
        e_rc, e_out = run(["e2fsck", "-fn", copy])
        before = os.stat(copy).st_mtime_ns
        o_rc, o_out = run([ARGS.e4recover, "check", "-n", "-f", copy])
        wrote = os.stat(copy).st_mtime_ns != before
    finally:
        dmg.restore(copy, damager, d)
        if ARGS.paranoid:
            with open(copy, "rb") as f:
                if f.read() != damager.data:
                    shutil.copyfile(damager.img, copy)
                    return label, name, spec, "unrestored", "restore left the copy changed"
    kind = compare(e_rc, o_rc, wrote)
    detail = ""
    if kind or ARGS.show:
        detail = "e2fsck -fn exit %s, check -n -f exit %s\n--- e2fsck\n%s--- check\n%s" % (
            e_rc, o_rc, e_out[-3000:], o_out[-3000:])
    return label, name, spec, kind, detail


def cases(seed, count, names):
    """Case k of seed S: the same flavour and damage whatever the job count."""
    out = []
    for k in range(count):
        rng = random.Random("%s/%d" % (seed, k))
        name = rng.choice(names)
        spec = STATE["choosers"][name].choose(rng)
        if spec:
            out.append(("case %s/%d" % (seed, k), name, spec))
    return out


def regress_cases(path, names):
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            # a comment is '#' at the start or after a space, then a space: "#167" names an inode
            line = re.sub(r"(^|\s)#(\s.*)?$", "", line.rstrip("\n")).strip()
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
    ap.add_argument("--flavours", default=",".join(flavours.FLAVOURS))
    ap.add_argument("--structs", help="damage only these structures (damage.py's words: "
                    "inode,ixattr,xattr,sb,gd,bbitmap,ibitmap,jsb,extent,dirent,dxroot,dxnode,block); "
                    "the cases of a seed then differ from an unrestricted run")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--regress", action="append", default=[])
    ap.add_argument("--show", action="store_true", help="print both outputs for every case")
    ap.add_argument("--paranoid", action="store_true", help="verify each restore byte by byte")
    ap.add_argument("--list", action="store_true", help="print the cases, run nothing")
    ARGS = ap.parse_args()
    names = [n for n in ARGS.flavours.split(",") if n]
    work = ARGS.work or tempfile.mkdtemp(prefix="e4r-difftest.")
    os.makedirs(work, exist_ok=True)

    bases, failed_bases = {}, 0
    for name in names:
        img = os.path.join(work, name + ".img")
        if not (os.path.exists(img) and os.path.exists(img + ".json")):
            flavours.build(name, img)
        rc, out = run(["e2fsck", "-fn", img])
        o_rc, o_out = run([ARGS.e4recover, "check", "-n", "-f", img])
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
    if ARGS.structs:
        wanted = set(ARGS.structs.split(","))
        unknown = wanted - set(dmg.Damager.STRUCTS)
        if unknown:
            ap.error("unknown structures: %s" % ",".join(sorted(unknown)))
        for chooser in STATE["choosers"].values():
            # Keep the table's weights (inode appears several times) among the wanted ones.
            chooser.STRUCTS = [s for s in dmg.Damager.STRUCTS if s in wanted]
    todo = []
    for r in ARGS.regress:
        todo += [c for c in regress_cases(r, names)
                 if not ARGS.structs or c[2].split()[0] in wanted]
    todo += cases(ARGS.seed, ARGS.count, names)
    if ARGS.list:
        for label, name, spec in todo:
            print("%s: %s %s" % (label, name, spec))
        return 0

    passed, failed = 0, failed_bases
    tally = {}
    with multiprocessing.Pool(ARGS.jobs, _worker_init, (work, bases)) as pool:
        for label, name, spec, kind, detail in pool.imap(check_case, todo, chunksize=4):
            struct_ = spec.split()[0]
            t = tally.setdefault(struct_, [0, 0])
            t[0] += 1
            if kind:
                failed += 1
                t[1] += 1
                print("FAIL %s [%s] %s %s\n%s" % (label, kind, name, spec, detail))
            else:
                passed += 1
                if ARGS.show:
                    print("ok   %s %s %s\n%s" % (label, name, spec, detail))
    print("# by structure (cases, failures): " +
          ", ".join("%s %d/%d" % (k, v[0], v[1]) for k, v in sorted(tally.items())))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
