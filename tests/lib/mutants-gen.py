#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Mutants nobody chose: every one-line mutation site of both modules.

    mutants-gen.py OUTDIR [SAMPLE SEED]

Walks every .c of pktgen.ko (the top level) and pf_ipoption.ko
(ipoption/) and writes one patch per mutation, in tests/mutants/'s format
(README there), into OUTDIR/all/.  Operators, each on code only (not in
comments, strings or preprocessor lines):

  ror     a relational operator replaced (== !=, < <=, > >=, both ways)
  aor     a binary + or - swapped
  const   a decimal constant plus or minus one
  neg     an if's whole condition negated (the condition on one line)
  call    a call statement removed (the line becomes an empty statement)
  brk     break and continue swapped

Killed-by comes from tests/mutants/map (a source file and the tests that
cover it, one file a line).  With SAMPLE and SEED, a uniform random SAMPLE
of them (random.Random(SEED)) is copied into OUTDIR/sample/, which
tests/lib/mutants.sh runs (MUTANTS_SRC); the counts per operator go to
stdout.
"""
import difflib
import os
import random
import re
import shutil
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

TOKEN = re.compile(r"->|<<=|>>=|<<|>>|<=|>=|==|!=|\+\+|--|\+=|-=|&&|\|\||"
                   r"[<>+\-]|\b\d+\b")
ROR = {"==": "!=", "!=": "==", "<": "<=", "<=": "<", ">": ">=", ">=": ">"}
CALL = re.compile(r"^(\s*)[A-Za-z_]\w*(?:(?:->|\.)\w+)*\s*\(.*\)\s*;\s*$")
IF = re.compile(r"^(\s*(?:\}\s*else\s+)?if\s*)\((.*)\)(\s*\{?\s*)$")


def code_mask(lines):
    """Per line, a copy with comments, strings and chars blanked (same
    length), or None for preprocessor lines and lines inside comments."""
    out, in_comment, in_macro = [], False, False
    for line in lines:
        if in_macro or (not in_comment and line.lstrip().startswith("#")):
            in_macro = line.rstrip().endswith("\\")
            out.append(None)
            continue
        m, i, n = list(line), 0, len(line)
        while i < n:
            if in_comment:
                if line.startswith("*/", i):
                    m[i] = m[i + 1] = " "
                    in_comment = False
                    i += 2
                    continue
                m[i] = " "
                i += 1
            elif line.startswith("/*", i):
                in_comment = True
                m[i] = m[i + 1] = " "
                i += 2
            elif line.startswith("//", i):
                for j in range(i, n):
                    m[j] = " "
                break
            elif line[i] in "\"'":
                q, j = line[i], i + 1
                while j < n and line[j] != q:
                    j += 2 if line[j] == "\\" else 1
                for k in range(i + 1, min(j, n)):
                    m[k] = " "
                i = j + 1
            else:
                i += 1
        out.append("".join(m))
    return out


def balanced(s):
    d = 0
    for c in s:
        d += c == "("
        d -= c == ")"
        if d < 0:
            return False
    return d == 0


def sites(lines):
    """(line index, operator, new line) for each mutation."""
    masks = code_mask(lines)
    for i, (line, mask) in enumerate(zip(lines, masks)):
        if mask is None or not mask.strip():
            continue
        for t in TOKEN.finditer(mask):
            tok, a, b = t.group(), t.start(), t.end()
            if tok in ROR:
                # not a template-like <...> of a macro: only with spaces round it
                if tok in "<>" and not (mask[a - 1:a] == " " and mask[b:b + 1] == " "):
                    continue
                yield i, "ror", line[:a] + ROR[tok] + line[b:]
            elif tok in "+-":
                # binary only: spaces on both sides
                if mask[a - 1:a] == " " and mask[b:b + 1] == " ":
                    yield i, "aor", line[:a] + ("-" if tok == "+" else "+") + line[b:]
            elif tok.isdigit():
                # not an array size in a declaration, nor a bit field width
                if re.search(r"\[\s*$", mask[:a]) and re.match(r"\s*\]\s*;", mask[b:]):
                    continue
                if re.search(r":\s*$", mask[:a]) and re.match(r"\s*;", mask[b:]):
                    continue
                v = int(tok)
                yield i, "const", line[:a] + str(v + 1) + line[b:]
                if v > 0:
                    yield i, "const", line[:a] + str(v - 1) + line[b:]
        m = IF.match(mask)
        if m and balanced(m.group(2)):
            s, e = m.start(2), m.end(2)
            yield i, "neg", line[:s] + "!(" + line[s:e] + ")" + line[e:]
        m = CALL.match(mask)
        if m and not re.match(r"\s*(return|if|while|for|switch|sizeof)\b", mask) \
                and "=" not in mask.replace("==", "").replace("!=", "") \
                and balanced(mask):
            yield i, "call", m.group(1) + ";\n"
        for kw, other in (("break", "continue"), ("continue", "break")):
            if re.match(r"^\s*%s;\s*$" % kw, mask):
                yield i, "brk", line.replace(kw, other, 1)


def load_map():
    tests = {}
    with open(os.path.join(REPO, "tests", "mutants", "map")) as f:
        for ln in f:
            ln = ln.split("#", 1)[0].split()
            if ln:
                tests[ln[0]] = ln[1:]
    return tests


def main():
    if len(sys.argv) not in (2, 4):
        sys.exit(__doc__)
    out = sys.argv[1]
    tmap = load_map()
    srcs = sorted(f for f in os.listdir(REPO) if f.endswith(".c") and not f.endswith(".mod.c"))
    srcs += sorted("ipoption/" + f for f in os.listdir(os.path.join(REPO, "ipoption"))
                   if f.endswith(".c") and not f.endswith(".mod.c"))
    missing = [s for s in srcs if not tmap.get(s)]
    if missing:
        sys.exit("mutants-gen: not in tests/mutants/map: " + " ".join(missing))
    alld = os.path.join(out, "all")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(alld)
    names, per_op = [], {}
    for src in srcs:
        with open(os.path.join(REPO, src)) as f:
            lines = f.readlines()
        stem = src.replace("/", "-")[:-2]
        k = 0
        for i, op, new in sites(lines):
            if new == lines[i]:
                continue
            k += 1
            mut = lines[:i] + [new] + lines[i + 1:]
            diff = "".join(difflib.unified_diff(lines, mut, "a/" + src, "b/" + src, n=3))
            name = "%s-%d-%s-%d" % (stem, i + 1, op, k)
            with open(os.path.join(alld, name + ".patch"), "w") as f:
                f.write("Mutant: %s:%d %s: %s -> %s\n" % (src, i + 1, op, lines[i].strip(),
                                                          new.strip() or "(removed)"))
                f.write("Killed-by: %s\n\n" % " ".join(tmap[src]))
                f.write(diff)
            names.append(name)
            per_op[op] = per_op.get(op, 0) + 1
    print("mutants-gen: %d mutants of %d files in %s (%s)" % (
        len(names), len(srcs), alld, ", ".join("%s %d" % kv for kv in sorted(per_op.items()))))
    if len(sys.argv) == 4:
        n, seed = int(sys.argv[2]), sys.argv[3]
        pick = random.Random(seed).sample(sorted(names), min(n, len(names)))
        sd = os.path.join(out, "sample")
        os.makedirs(sd)
        for name in sorted(pick):
            shutil.copy(os.path.join(alld, name + ".patch"), sd)
        print("mutants-gen: sample of %d (seed %s) in %s" % (len(pick), seed, sd))
        print(" ".join(sorted(pick)))


if __name__ == "__main__":
    main()
