#!/usr/bin/env python3
"""Checks lib/'s layout from its object files (nm): every exported symbol
carries its folder's prefix, every call between folders is one lib/README
allows, and no two files call each other, directly or round a cycle.

Usage: layout.py LIB_BUILDDIR LIB_README. Prints each violation; exit 1 if any."""
import os, re, subprocess, sys

builddir, readme = sys.argv[1], sys.argv[2]

allowed = {}
for line in open(readme):
    m = re.match(r'^  ([a-z]+):((?: [a-z]+)*)\s*$', line)
    if m:
        allowed[m.group(1)] = set(m.group(2).split())
if not allowed:
    sys.exit('layout: no "component: callees" lines in ' + readme)

objs = []
for comp in sorted(allowed):
    d = os.path.join(builddir, comp)
    if not os.path.isdir(d):
        continue
    objs += [os.path.join(comp, f) for f in sorted(os.listdir(d)) if f.endswith('.o')]
if len(objs) < len(allowed):
    sys.exit('layout: too few object files under %s (build first)' % builddir)

# compile_et's generated table carries com_err's names, not ours; and the
# compiler adds its own globals under sanitizers (ASan's __odr_asan.NAME).
GENERATED = re.compile(r'^(et_e4r_error_table|initialize_e4r_error_table(_r)?|__.*)$')
defined, undefined, bad = {}, {}, []
for o in objs:
    out = subprocess.check_output(['nm', os.path.join(builddir, o)], text=True)
    comp = o.split('/')[0]
    undefined[o] = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in 'TDBRCGS' and parts[1].isupper():
            sym = parts[2]
            defined[sym] = o
            if not sym.startswith(comp + '_') and not GENERATED.match(sym):
                bad.append('%s: exports %s without the prefix %s_' % (o, sym, comp))
        elif len(parts) == 2 and parts[0] == 'U':
            undefined[o].add(parts[1])

edges = {o: set() for o in objs}
for o, syms in undefined.items():
    for s in syms:
        t = defined.get(s)
        if not t or t == o:
            continue
        edges[o].add(t)
        a, b = o.split('/')[0], t.split('/')[0]
        if a != b and b not in allowed[a]:
            bad.append('%s calls %s (%s) but lib/README does not let %s call %s' % (o, s, t, a, b))

# Cycles between files: Tarjan's strongly connected components.
index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]
def strong(v):
    index[v] = low[v] = counter[0]; counter[0] += 1
    stack.append(v); on.add(v)
    for w in edges[v]:
        if w not in index:
            strong(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            sccs.append(sorted(comp))
sys.setrecursionlimit(10000)
for v in objs:
    if v not in index:
        strong(v)
for c in sccs:
    bad.append('cycle between files: ' + ' '.join(c))

for b in bad:
    print(b)
nedges = sum(len(e) for e in edges.values())
print('layout: %d objects, %d exported symbols, %d calls between files, %d violations'
      % (len(objs), len(defined), nedges, len(bad)))
sys.exit(1 if bad else 0)
