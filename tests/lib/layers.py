#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Which of the module's .c files calls which (tests/host/layers.sh).

Reads every top-level *.c of the repository, strips comments and string
literals, takes each file's non-static function definitions and looks for
calls to them in the other files.  Prints one line per file with what it
calls ("FILE -> OTHER: fn, fn"), then "cycle: A -> B -> A" for each call
cycle between files (none expected), then "order: ..." (the files from
the top, those nobody calls, down).  Exit 0 without a cycle, 1 with one.
"""
import glob
import os
import re
import sys

DEF = re.compile(r'^(?!static\b)[a-z_][\w \t\*]*?\b(\w+)\(([^;{]*?)\)\s*\{',
                 re.M | re.S)


def strip(src):
    src = re.sub(r'/\*.*?\*/', ' ', src, flags=re.S)
    src = re.sub(r'//[^\n]*', ' ', src)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', src)


def graph(repo):
    files = {}
    for path in sorted(glob.glob(os.path.join(repo, '*.c'))):
        if path.endswith('.mod.c'):
            continue
        with open(path) as f:
            files[os.path.basename(path)] = strip(f.read())
    defs = {}
    for name, src in files.items():
        for m in DEF.finditer(src):
            if m.group(1) not in ('if', 'for', 'while', 'switch'):
                defs[m.group(1)] = name
    calls = {name: {} for name in files}
    for name, src in files.items():
        for fn, owner in defs.items():
            if owner != name and re.search(r'\b%s\s*\(' % fn, src):
                calls[name].setdefault(owner, []).append(fn)
    return files, defs, calls


def cycles(calls):
    found, state, stack = [], {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(calls[n]):
            if state.get(m) == 1:
                found.append(stack[stack.index(m):] + [m])
            elif m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(calls):
        if n not in state:
            visit(n)
    return found


def order(calls):
    left, out = dict(calls), []
    while left:
        top = sorted(n for n in left
                     if not any(n in left[o] for o in left if o != n))
        if not top:
            break
        out.append(' '.join(top))
        for n in top:
            del left[n]
    return out


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else '.'
    files, defs, calls = graph(repo)
    print('files: %d, functions called across files: %d' %
          (len(files), len({f for c in calls.values() for l in c.values() for f in l})))
    for name in sorted(calls):
        for owner in sorted(calls[name]):
            print('%s -> %s: %s' % (name, owner, ', '.join(sorted(calls[name][owner]))))
    found = cycles(calls)
    for c in found:
        print('cycle: ' + ' -> '.join(c))
    if not found:
        print('order: ' + ' | '.join(order(calls)))
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
