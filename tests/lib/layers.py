#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The module's .c files against the layers of Documentation/design.rst
(tests/host/layers.sh).

The layers are read from design.rst's table (the literal block whose
heading row is "layer  file  what it holds"): a name in the first column
starts a layer, top first; a file in the second column belongs to the
layer above it; "-> FILE" under a file lets it use FILE of its own layer.

What each file uses of the others is read from the sources: comments,
strings and preprocessor lines stripped, each file's non-static
definitions at file scope (functions, and data: variables, tables, ops
structures, DEFINE_*() objects), then every mention of one of them in
another file (a call, an address taken, a read or a write).  When a
build/KV directory holds the same sources and their objects, nm's
undefined symbols of each object add what the sources' reading missed
(marked "[nm]").

Prints "files: ..." and "objects: ...", one line per pair of files with
what one uses of the other ("A -> B: fn(), data"), then one line per
error:
  unlisted: FILE		a .c of the tree the table does not list
  missing: FILE			a file the table lists that the tree lacks
  table: ...			the table itself is malformed
  upward: A (layer) -> B (layer): ...	A uses a file of a layer above
  sideways: A -> B (layer): ...	same layer, no arrow A -> B drawn
  cycle: A -> B -> A		what the layers allow goes round (arrows)
  module: A -> B: ...		A uses a file of the other module
Exit 0 without an error, 1 with one.
"""
import glob
import os
import re
import subprocess
import sys

IDENT = re.compile(r'[A-Za-z_]\w*')
# the tree's modules: pktgen.ko's files at the top, pf_ipoption.ko's in
# ipoption/; a file uses nothing of the other module
MODULE_DIRS = ('', 'ipoption')


def module_sources(repo):
    """the .c and .h files of every module, as paths"""
    out = []
    for d in MODULE_DIRS:
        out += sorted(glob.glob(os.path.join(repo, d, '*.[ch]')))
    return [p for p in out if not p.endswith('.mod.c')]
# file-scope objects made by a macro, named by its last argument
DEFINE_MACRO = re.compile(r'^(DEFINE_\w+|DECLARE_\w+|LIST_HEAD|HLIST_HEAD)$')


def strip_text(src):
    """src without comments, and with empty string and char literals"""
    src = re.sub(r'/\*.*?\*/', ' ', src, flags=re.S)
    src = re.sub(r'//[^\n]*', ' ', src)
    src = re.sub(r'"(\\.|[^"\\\n])*"', '""', src)
    return re.sub(r"'(\\.|[^'\\\n])*'", "''", src)


PP_LINE = re.compile(r'^[ \t]*#([^\n]*\\\n)*[^\n]*', re.M)


def strip(src):
    """the C of src: no comments, literals or preprocessor lines"""
    return PP_LINE.sub(' ', strip_text(src))


def macros(src):
    """{macro: identifiers of its body} of src (stripped of comments)"""
    out = {}
    for m in PP_LINE.finditer(src):
        d = re.match(r'\s*#\s*define\s+(\w+)(.*)', m.group(0), re.S)
        if d:
            out[d.group(1)] = set(IDENT.findall(d.group(2)))
    return out


def top_level(src):
    """(kind, text) for each file-scope chunk: ('fn', signature) for a
    function definition, ('decl', text with inner braces as {}) for a
    declaration ending in ';'."""
    out, chunk, i, n = [], [], 0, len(src)
    while i < n:
        c = src[i]
        if c == '{':
            depth, j = 1, i + 1
            while j < n and depth:
                depth += {'{': 1, '}': -1}.get(src[j], 0)
                j += 1
            text = ''.join(chunk).strip()
            if '(' in text and '=' not in text and not text.endswith(']'):
                out.append(('fn', text))
                chunk = []
            else:
                chunk.append('{}')
            i = j
            continue
        if c == ';':
            out.append(('decl', ''.join(chunk).strip()))
            chunk = []
        else:
            chunk.append(c)
        i += 1
    return out


def split_top(text, sep):
    """text split at sep outside (), [] and {}"""
    parts, depth, cur = [], 0, []
    for c in text:
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
        if c == sep and depth == 0:
            parts.append(''.join(cur))
            cur = []
        else:
            cur.append(c)
    parts.append(''.join(cur))
    return parts


def drop_groups(text):
    """text without (...), [...] and {...} groups"""
    prev = None
    while prev != text:
        prev = text
        text = re.sub(r'\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}', ' ', text)
    return text


def fn_name(sig):
    for m in re.finditer(r'\b([A-Za-z_]\w*)\s*\(', sig):
        if not m.group(1).startswith('__'):
            return m.group(1)
    return None


def data_names(decl):
    words = IDENT.findall(drop_groups(decl))
    if not words or 'static' in words or words[0] in ('extern', 'typedef'):
        return []
    m = re.match(r'\s*([A-Z_]\w*)\s*\((.*)\)\s*$', decl, re.S)
    if m:
        if not DEFINE_MACRO.match(m.group(1)):
            return []
        args = [a.strip() for a in split_top(m.group(2), ',')]
        return [args[-1]] if args and IDENT.fullmatch(args[-1]) else []
    names = []
    for d in split_top(decl, ','):
        d = split_top(d, '=')[0]
        # attributes (__read_mostly, __aligned(8)) out
        plain = re.sub(r'\b__\w+\s*(\([^()]*\))?', ' ', d)
        if '(' in plain:
            return []	# a prototype or a macro call, not data
        toks = IDENT.findall(drop_groups(plain))
        if not names and (len(toks) < 2 or (
                toks[0] in ('struct', 'union', 'enum') and len(toks) == 2)):
            return []	# a type alone ("struct tag {...}"), no object
        if toks:
            names.append(toks[-1])
    return names


def read_sources(repo):
    """{file: its C}, {file: its macros and the headers'}, {symbol:
    (file, 'fn' or 'data')}"""
    files, own, hdr = {}, {}, {}
    for path in module_sources(repo):
        with open(path) as f:
            text = strip_text(f.read())
        name = os.path.relpath(path, repo)
        if name.endswith('.h'):
            hdr.update(macros(text))
        else:
            files[name] = PP_LINE.sub(' ', text)
            own[name] = macros(text)
    defs = {}
    for name, src in files.items():
        for kind, text in top_level(src):
            if kind == 'fn':
                fn = fn_name(text)
                if fn and not re.search(r'\bstatic\b', text.split(fn)[0]):
                    defs[fn] = (name, 'fn')
            else:
                for d in data_names(text):
                    defs[d] = (name, 'data')
    return files, {n: dict(hdr, **m) for n, m in own.items()}, defs


def source_refs(files, macs, defs):
    """{(user, owner): {symbol: [kind, 'src']}}; a macro used counts as
    what its body names (pg_dbg() reads pg_debug)"""
    refs = {}
    for name, src in files.items():
        used = set(re.findall(r'(?<![\w.>])([A-Za-z_]\w*)', src))
        todo = used & macs[name].keys()
        while todo:
            new = set().union(*(macs[name][m] for m in todo)) - used
            used |= new
            todo = new & macs[name].keys()
        for sym in used & defs.keys():
            owner, kind = defs[sym]
            if owner != name:
                refs.setdefault((name, owner), {})[sym] = [kind, 'src']
    return refs


def fresh_build(repo, files):
    """build/KV holding the same sources as the tree, each .c's object
    newer than it"""
    srcs = module_sources(repo)
    for d in sorted(glob.glob(os.path.join(repo, 'build', '*', ''))):
        ok = True
        for s in srcs:
            copy = os.path.join(d, os.path.relpath(s, repo))
            try:
                with open(s, 'rb') as a, open(copy, 'rb') as b:
                    ok = a.read() == b.read()
            except OSError:
                ok = False
            if not ok:
                break
        objs = {}
        for f in files if ok else ():
            o = os.path.join(d, f[:-2] + '.o')
            if os.path.exists(o) and \
               os.path.getmtime(o) >= os.path.getmtime(os.path.join(d, f)):
                objs[f] = o
        if ok and objs:
            return d, objs
    return None, {}


def nm_refs(objs):
    defined, undef = {}, {}
    for f, o in objs.items():
        try:
            out = subprocess.run(['nm', o], capture_output=True, text=True,
                                 check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            return None
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == 'U':
                undef.setdefault(f, set()).add(parts[1])
            elif len(parts) == 3 and parts[1] in 'TDBRCGSV':
                kind = 'fn' if parts[1] == 'T' else 'data'
                defined[parts[2]] = (f, kind)
    refs = {}
    for f, syms in undef.items():
        for sym in syms & defined.keys():
            owner, kind = defined[sym]
            if owner != f:
                refs.setdefault((f, owner), {})[sym] = [kind, 'nm']
    return refs


def read_layers(design):
    """[(layer, [files])], {file: {files its arrows allow}}, [errors]"""
    errors = []
    try:
        with open(design) as f:
            lines = f.read().split('\n')
    except OSError as e:
        return [], {}, ['table: %s' % e]
    head = None
    for i, l in enumerate(lines):
        if re.match(r'^\s+layer\s+file\s', l) and i and \
           (not lines[i - 1].strip()) and any(
               x.rstrip().endswith('::') for x in lines[max(0, i - 4):i]):
            head = i
            break
    if head is None:
        return [], {}, ['table: no "layer  file" table in %s' % design]
    lcol = lines[head].index('layer')
    fcol = lines[head].index('file', lcol + 5)
    layers, arrows, last = [], {}, None
    for l in lines[head + 1:]:
        if l.strip() and len(l) - len(l.lstrip()) < lcol:
            break
        if not l.strip() or set(l.strip()) <= set('- '):
            continue
        toks = l.split()
        if toks[0] == '->':
            if last is None:
                errors.append('table: an arrow before any file: %s' % l.strip())
            for t in ' '.join(toks[1:]).replace(',', ' ').split():
                arrows.setdefault(last, set()).add(t)
            continue
        name = l[lcol:fcol].strip()
        rest = l[fcol:].split()
        if name:
            layers.append((name, []))
        if rest and rest[0].endswith('.c'):
            if not layers:
                errors.append('table: a file before any layer: %s' % rest[0])
                continue
            last = rest[0]
            layers[-1][1].append(last)
        elif name:
            errors.append('table: layer %s names no file' % name)
    seen = {}
    for name, fs in layers:
        for f in fs:
            if f in seen:
                errors.append('table: %s is in layers %s and %s' % (f, seen[f], name))
            seen[f] = name
    for f, tos in arrows.items():
        for t in sorted(tos):
            if seen.get(t) != seen.get(f):
                errors.append('table: arrow %s -> %s leaves layer %s' %
                              (f, t, seen.get(f)))
    return layers, arrows, errors


def cycles(edges):
    found, state, stack = [], {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(edges.get(n, ())):
            if state.get(m) == 1:
                found.append(stack[stack.index(m):] + [m])
            elif m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(edges):
        if n not in state:
            visit(n)
    return found


def show(syms):
    return ', '.join('%s%s%s' % (s, '()' if k == 'fn' else ' [data]',
                                 ' [nm]' if src == 'nm' else '')
                     for s, (k, src) in sorted(syms.items()))


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else '.'
    files, macs, defs = read_sources(repo)
    refs = source_refs(files, macs, defs)
    bdir, objs = fresh_build(repo, files)
    byobj = nm_refs(objs) if objs else None
    if byobj is not None:
        for pair, syms in byobj.items():
            for sym, ks in syms.items():
                refs.setdefault(pair, {}).setdefault(sym, ks)
        print('objects: %s (%d, the same sources)' %
              (os.path.relpath(bdir, repo), len(objs)))
    else:
        print('objects: no build/KV of these sources: the sources only')

    layers, arrows, errors = read_layers(
        os.path.join(repo, 'Documentation', 'design.rst'))
    where = {f: (i, name) for i, (name, fs) in enumerate(layers) for f in fs}
    nfn = len({s for p in refs.values() for s, (k, _) in p.items() if k == 'fn'})
    ndata = len({s for p in refs.values() for s, (k, _) in p.items() if k == 'data'})
    print('files: %d, layers: %d, used across files: %d functions, %d data' %
          (len(files), len(layers), nfn, ndata))
    for (a, b), syms in sorted(refs.items()):
        print('%s -> %s: %s' % (a, b, show(syms)))

    for f in sorted(set(files) - set(where)):
        errors.append('unlisted: %s (not in design.rst\'s layers)' % f)
    for f in sorted(set(where) - set(files)):
        errors.append('missing: %s (in design.rst\'s layers, not in the tree)' % f)
    for (a, b), syms in sorted(refs.items()):
        if os.path.dirname(a) != os.path.dirname(b):
            errors.append('module: %s -> %s: %s' % (a, b, show(syms)))
            continue
        if a not in where or b not in where:
            continue
        (ia, la), (ib, lb) = where[a], where[b]
        if ib < ia:
            errors.append('upward: %s (%s) -> %s (%s): %s' %
                          (a, la, b, lb, show(syms)))
        elif ib == ia and b not in arrows.get(a, ()):
            errors.append('sideways: %s -> %s (%s, no arrow): %s' %
                          (a, b, la, show(syms)))
    # a cycle through an upward or sideways use is reported as that; what
    # is left is one along arrows, or through unlisted files
    edges = {}
    for a, b in refs:
        if a in where and b in where and (where[b][0] < where[a][0] or (
                where[b][0] == where[a][0] and b not in arrows.get(a, ()))):
            continue
        edges.setdefault(a, set()).add(b)
    for c in cycles(edges):
        errors.append('cycle: ' + ' -> '.join(c))
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
