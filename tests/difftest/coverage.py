#!/usr/bin/env python3
"""Hold tests/difftest/COVERAGE to lib/check/problem.c.

    coverage.py COVERAGE PROBLEM_C

Prints one line per fault and exits 1 when there is any, else prints a summary
and exits 0. The rules are those the file's header states: every line is
"PR_CODE  STATUS  DETAIL" or "OWN  NAME  REASON"; a covered line starts its
detail with names of ours; every name of ours is on a covered or OWN line (and
an OWN name on no covered line, or the OWN entry is stale); the counts comment
matches the lines.
"""
import re
import sys

STATUSES = ("covered", "n/a", "gap")
CODE_RE = re.compile(r"^PR_[0-9][A-Z0-9]?_[A-Z0-9_]+$")
COUNTS_RE = re.compile(r"^# counts: covered (\d+), n/a (\d+), gap (\d+), total (\d+)$")


def our_names(problem_c):
    """The quoted names of the problem table's rows."""
    text = open(problem_c, encoding="utf-8").read()
    rows = re.findall(r"\bROW\(\s*E4R_PR_\w+\s*,", text)
    names = re.findall(r"\bROW\(\s*E4R_PR_\w+\s*,\s*\"([a-z0-9_]+)\"", text)
    if not names or len(names) != len(rows):
        raise SystemExit("coverage: cannot read the names of %s (%d rows, %d names)"
                         % (problem_c, len(rows), len(names)))
    return set(names)


def check(coverage, problem_c):
    names = our_names(problem_c)
    faults = []
    counts_line = None
    seen, own, on_covered = {}, {}, {}
    tally = dict.fromkeys(STATUSES, 0)
    for n, line in enumerate(open(coverage, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        where = "%s:%d" % (coverage, n)
        if line.startswith("#"):
            m = COUNTS_RE.match(line)
            if m:
                if counts_line:
                    faults.append("%s: a second counts line" % where)
                counts_line = (where, [int(x) for x in m.groups()])
            elif line.startswith("# counts"):
                faults.append("%s: counts line not as '# counts: covered N, n/a N, gap N, total N'"
                              % where)
            continue
        if not line.strip():
            continue
        parts = line.split("  ", 2)
        if len(parts) != 3 or not all(p.strip() == p and p for p in parts):
            faults.append("%s: not three fields separated by two spaces: %s" % (where, line))
            continue
        first, status, detail = parts
        if first == "OWN":
            if status not in names:
                faults.append("%s: OWN names %s, not a problem of lib/check/problem.c"
                              % (where, status))
            elif status in own:
                faults.append("%s: OWN %s listed twice" % (where, status))
            own[status] = where
            continue
        if not CODE_RE.match(first):
            faults.append("%s: %s is not a problem code" % (where, first))
            continue
        if first in seen:
            faults.append("%s: %s already listed at %s" % (where, first, seen[first]))
        seen[first] = where
        if status not in STATUSES:
            faults.append("%s: status %r is none of %s" % (where, status, ", ".join(STATUSES)))
            continue
        tally[status] += 1
        if status == "covered":
            listed = detail.split(" ", 1)[0].split(",")
            for name in listed:
                if name not in names:
                    faults.append("%s: %s names %r, not a problem of lib/check/problem.c"
                                  % (where, first, name))
                on_covered.setdefault(name, where)
            if " " not in detail:
                faults.append("%s: %s is covered by %s but says by no damage or test"
                              % (where, first, detail))
    for name in sorted(names):
        if name not in on_covered and name not in own:
            faults.append("%s: our problem %s is on no covered line and not OWN"
                          % (coverage, name))
    for name, where in sorted(own.items()):
        if name in on_covered:
            faults.append("%s: OWN %s, yet %s covers a code with it"
                          % (where, name, on_covered[name]))
    total = sum(tally.values())
    have = [tally["covered"], tally["n/a"], tally["gap"], total]
    if not counts_line:
        faults.append("%s: no '# counts:' line" % coverage)
    elif counts_line[1] != have:
        faults.append("%s: counts say %s, the lines hold covered %d, n/a %d, gap %d, total %d"
                      % (counts_line[0], counts_line[1], *have))
    return faults, have, len(names), len(own)


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__.strip().splitlines()[2].strip())
    faults, have, nnames, nown = check(sys.argv[1], sys.argv[2])
    for f in faults:
        print(f)
    if faults:
        return 1
    print("coverage: %d codes (covered %d, n/a %d, gap %d); %d problems of ours, %d of them OWN"
          % (have[3], have[0], have[1], have[2], nnames, nown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
