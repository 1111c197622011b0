#!/usr/bin/env python3
"""logdump_vs_debugfs.py E4RECOVER IMAGE...: does `e4recover logdump --json`
read each image's journal as debugfs's `logdump -a` does?

Compared per transaction (by sequence): the logged blocks in order, each as
(fs block, journal block); the revoked blocks in order; whether a commit block
was found. Also where the log ends. The journal checksums are not compared:
debugfs does not verify them.
"""
import json
import re
import sys

import cases


def debugfs_log(img):
    """({sequence: {"blocks", "revoked", "committed"}}, end block or None)."""
    rc, out = cases.run(["debugfs", "-c", "-R", "logdump -a", img])
    txns, cur, end = {}, None, None
    for line in out.splitlines():
        m = re.search(r"Found expected sequence (\d+), type (\d+)", line)
        if m:
            cur = txns.setdefault(int(m.group(1)), {"blocks": [], "revoked": [], "committed": False})
            if m.group(2) == "2":
                cur["committed"] = True
            continue
        m = re.search(r"FS block (\d+) logged at journal block (\d+)", line)
        if m and cur is not None:
            cur["blocks"].append((int(m.group(1)), int(m.group(2))))
            continue
        m = re.search(r"Revoke FS block (\d+)", line)
        if m and cur is not None:
            cur["revoked"].append(int(m.group(1)))
            continue
        m = re.search(r"at block (\d+): end of journal", line)
        if m:
            end = int(m.group(1))
    return txns, end


def our_log(program, img):
    rc, out = cases.run([program, "logdump", "--json", img])
    if cases.died(rc):
        raise ValueError("logdump died: %s" % rc)
    doc = json.loads(out[out.index("{"):])
    txns = {}
    for t in doc["transactions"]:
        txns[t["sequence"]] = {"blocks": [(b["fs_block"], b["journal_block"]) for b in t["blocks"]],
                               "revoked": list(t["revoked"]), "committed": bool(t["committed"])}
    return txns, doc["end"]["journal_block"]


def compare(program, img, tmp):
    ref, ref_end = debugfs_log(img)
    if not ref:
        return False, "debugfs lists no transaction: nothing to compare"
    try:
        ours, our_end = our_log(program, img)
    except (ValueError, KeyError) as e:
        return False, "no usable JSON from logdump: %s" % e
    problems = []
    one_side = sorted(set(ref) ^ set(ours))
    if one_side:
        problems.append("transactions only one side lists: %s" % one_side[:5])
    for seq in sorted(set(ref) & set(ours)):
        for what in ("blocks", "revoked", "committed"):
            if ref[seq][what] != ours[seq][what]:
                problems.append("transaction %d: %s differ" % (seq, what))
    if ref_end is not None and ref_end != our_end:
        problems.append("the log ends at block %s, debugfs says %s" % (our_end, ref_end))
    if problems:
        return False, "; ".join(problems[:5])
    return True, "%d transactions (%d committed) agree" % (
        len(ref), sum(t["committed"] for t in ref.values()))


if __name__ == "__main__":
    sys.exit(cases.main(sys.argv, compare, "logdump_vs_debugfs.py E4RECOVER IMAGE..."))
