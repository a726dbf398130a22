#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""make figures' second half: the literal blocks of the documentation that
show a figure's run, rewritten from that run's files.

A block to rewrite is followed by a comment naming its source, relative
to the run's directory (build/figures/figures):

    .. figures: rfc2544/tbf.txt        the run's command and output
    .. figures: rfc2544/tbf.csv        the CSV
    .. figures: rfc2544/tbf.json 512   the JSON, results of one size

The literal block just above the comment is replaced; the text around
it (what the figures mean) is the writer's to update.

    figures_text.py RUN_DIR FILE.rst...
"""

import json
import os
import re
import sys

MARK = re.compile(r'^\.\. figures: (\S+)(?: (\S+))?\s*$')
# lines of the run that are the guest's, not the tool's
NOISE = re.compile(r'^Matplotlib (created a temporary|is building the font cache)')


def run_text(path):
    with open(path, encoding='utf-8') as f:
        return [ln.rstrip() for ln in f if not NOISE.match(ln)]


def row_text(r):
    """A result row on one line, a histogram cut to its first two buckets."""
    hist = r.get('latency_histogram')
    if not isinstance(hist, list) or len(hist) <= 3:
        return json.dumps(r)
    mark = '"@latency_histogram@"'
    cut = ', '.join(json.dumps(b) for b in hist[:2])
    return json.dumps(dict(r, latency_histogram='@latency_histogram@')).replace(
        mark, f'[{cut}, ... {len(hist)} buckets]')


def json_excerpt(path, size):
    """The settings, the results of one frame size (three rows, then
    "..."), the number of trials: as the documentation shows a run."""
    with open(path, encoding='utf-8') as f:
        doc = json.load(f)
    out = ['{']
    for k, v in doc.items():
        if k in ('results', 'trials'):
            continue
        if k == 'date':
            v = 'YYYY-MM-DDThh:mm:ssZ'
        body = json.dumps(v, indent=1).splitlines()
        out.append(f' "{k}": ' + body[0])
        out += [' ' + b for b in body[1:]]
        out[-1] += ','
    rows = [r for r in doc.get('results', []) if str(r.get('frame_size')) == size]
    out.append(' "results": [')
    out += ['  ' + row_text(r) + ',' for r in rows[:3]]
    out += ['  ...', ' ],', f' "trials": [ ... {len(doc.get("trials", []))} trials ... ]', '}']
    return out


def source(run_dir, name, arg):
    path = os.path.join(run_dir, name)
    if name.endswith('.json'):
        return json_excerpt(path, arg)
    return run_text(path)


def rewrite(lines, run_dir):
    """LINES with every marked block replaced, and how many there were."""
    done = i = 0
    while i < len(lines):
        m = MARK.match(lines[i])
        if m:
            end = i
            while end > 0 and not lines[end - 1].strip():
                end -= 1
            start = end
            while start > 0 and (not lines[start - 1].strip() or
                                 lines[start - 1].startswith(' ')):
                start -= 1
            while start < end and not lines[start].strip():
                start += 1
            if start == end or start < 2 or not lines[start - 2].rstrip().endswith('::'):
                raise ValueError(f'line {i + 1}: no literal block above "{lines[i]}"')
            new = ['    ' + ln if ln else '' for ln in source(run_dir, m.group(1), m.group(2))]
            lines[start:end] = new
            i += len(new) - (end - start)
            done += 1
        i += 1
    return lines, done


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    run_dir = argv[1]
    for rst in argv[2:]:
        with open(rst, encoding='utf-8') as f:
            lines = f.read().splitlines()
        try:
            lines, n = rewrite(lines, run_dir)
        except (OSError, ValueError) as e:
            print(f'figures_text.py: {rst}: {e}', file=sys.stderr)
            return 1
        with open(rst, 'w', encoding='utf-8') as f:
            f.write('\n'.join(lines) + '\n')
        print(f'{rst}: {n} blocks from {run_dir}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
