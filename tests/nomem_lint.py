#!/usr/bin/env python3
"""Finds every test of an error against one spelling of out-of-memory alone
(err == ENOMEM, EXT2_ET_NO_MEMORY != err, case ENOMEM:, ...) in C sources.
lib/ says out-of-memory two ways (ENOMEM, and EXT2_ET_NO_MEMORY through
libext2fs); a test for one lets the other pass as a finding about the
filesystem. util_no_memory() in lib/util/nomem.h is the one test allowed.

Usage: nomem_lint.py ROOT... (directories or files). Prints FILE:LINE: TEXT for
each comparison found; exit 1 if any, 0 if none."""
import os, re, sys

ALLOWED = os.path.join('util', 'nomem.h')
NAME = r'(?:ENOMEM|EXT2_ET_NO_MEMORY)\b'
# A cast or a minus sign between the operator and the name does not change the test.
PREFIX = r'(?:\(\s*[A-Za-z_][A-Za-z_0-9 ]*\)\s*|-\s*|\(\s*)*'
PATTERNS = [
    re.compile(r'[=!]=\s*' + PREFIX + NAME),
    re.compile(r'\b' + NAME + r'\s*\)*\s*[=!]='),
    re.compile(r'\bcase\s+' + PREFIX + NAME + r'\s*:'),
]

def blank(m):
    """Comments and literals become spaces (newlines kept, so lines still count)."""
    return re.sub(r'[^\n]', ' ', m.group(0))

STRIP = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)

def check(path):
    text = open(path, encoding='utf-8', errors='replace').read()
    code = STRIP.sub(blank, text)
    lines = text.splitlines()
    found = set()
    for pat in PATTERNS:
        for m in pat.finditer(code):
            found.add(code.count('\n', 0, m.start()) + 1)
    return [(n, lines[n - 1].strip()) for n in sorted(found)]

def sources(root):
    if os.path.isfile(root):
        yield root
        return
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(('.c', '.h')):
                yield os.path.join(d, f)

bad, nfiles = 0, 0
for root in sys.argv[1:]:
    for path in sources(root):
        if path.endswith(os.sep + ALLOWED):
            continue
        nfiles += 1
        for n, line in check(path):
            print('%s:%d: %s' % (path, n, line))
            bad += 1
print('nomem_lint: %d files, %d comparisons with one out-of-memory spelling' % (nfiles, bad))
sys.exit(1 if bad else 0)
