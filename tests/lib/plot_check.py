#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Each plot kind of tools/pgplot.py rendered, and checked: a PNG
(signature, IHDR of the figure's size in pixels) whose axes are the
expected ones (labels with units, frame sizes on a numeric x axis: the
ticks sit at the sizes themselves, not evenly spaced).  Prints PASS/FAIL
lines for ktap_report; exit 1 if any failed.

    plot_check.py DIR
"""

import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                                'tools'))
import pgplot  # noqa: E402
import rfc2544  # noqa: E402

FAILED = []


def check(name, cond, why=''):
    print(f'{"PASS" if cond else "FAIL"} {name}' + ('' if cond else f': {why}'))
    if not cond:
        FAILED.append(name)


def png_size(path):
    with open(path, 'rb') as f:
        d = f.read(24)
    if d[:8] != b'\x89PNG\r\n\x1a\n' or d[12:16] != b'IHDR':
        return None
    return struct.unpack('>II', d[16:24])


def fig_pixels(fig):
    w, h = fig.get_size_inches()
    return round(w * fig.dpi), round(h * fig.dpi)


def main(out):
    sizes = [64, 128, 256, 512, 1024, 1280, 1518]
    pps = [300000 - 50 * s for s in sizes]
    mbps = [p * s * 8 / 1e6 for p, s in zip(pps, sizes)]
    path = os.path.join(out, 'sweep.png')
    fig = pgplot.rate_vs_size(path, sizes, pps, mbps, 'sweep', 'sub',
                              spread=[(p - 10, p + 10) for p in pps],
                              line_pps=[1e10 / ((s + 20) * 8) for s in sizes])
    check('rate_vs_size: a PNG of the figure size', png_size(path) == fig_pixels(fig),
          f'{png_size(path)} vs {fig_pixels(fig)}')
    left, right = fig.axes[0], fig.axes[1]
    check('rate_vs_size: axes with units', left.get_xlabel().startswith('frame size (bytes')
          and 'packets/s' in left.get_ylabel() and 'Mb/s' in right.get_ylabel(),
          f'{left.get_xlabel()!r} {left.get_ylabel()!r} {right.get_ylabel()!r}')
    ticks = list(left.get_xticks())
    check('rate_vs_size: frame sizes on a numeric axis (ticks at the sizes)',
          ticks == sizes and left.get_xscale() == 'linear', f'{ticks}')
    xs = list(left.lines[0].get_xdata())
    check('rate_vs_size: points at their sizes', xs == sizes, f'{xs}')
    # a 10G line rate (14.9M packets/s at 64 bytes) 50x above the rates
    top = left.get_ylim()[1]
    legend = [t.get_text() for t in left.get_legend().get_texts()]
    check('rate_vs_size: the measured rates set the scale, a line far above is said',
          max(pps) + 10 <= top <= 1.5 * (max(pps) + 10)
          and any('above the axis' in t and '14.9M' in t for t in legend), f'{top} {legend}')
    near = [p * 1.2 for p in pps]
    fig = pgplot.rate_vs_size(path, sizes, pps, mbps, 'sweep', 'sub', line_pps=near)
    check('rate_vs_size: a line rate near the rates is on the axis',
          fig.axes[0].get_ylim()[1] >= max(near), f'{fig.axes[0].get_ylim()}')
    crowded = sizes + [9000]
    fig = pgplot.rate_vs_size(path, crowded, [100000] * 8, [1.0] * 8, 'sweep', 'sub')
    labels = [t for t in fig.axes[0].get_xticklabels() if t.get_text()]
    boxes = [t.get_window_extent() for t in labels]
    clash = [(a.get_text(), b.get_text()) for i, a in enumerate(labels)
             for j, b in enumerate(labels) if i < j and boxes[i].overlaps(boxes[j])]
    texts = [t.get_text() for t in labels]
    check('rate_vs_size: 64 to 9000 bytes: tick labels do not overlap, both ends labelled',
          not clash and texts[0] == '64' and texts[-1] == '9000'
          and list(fig.axes[0].get_xticks()) == crowded, f'{texts} {clash}')

    rows = [rfc2544.row('throughput-ndr', s, throughput_pps=1000 - s // 2, offered_pps=1200)
            for s in (64, 512, 1518)] + \
        [rfc2544.row('latency', s, **{f'latency_{k}_ns': 1000 * (i + 1)
                                       for i, k in enumerate(('min', 'p50', 'p99', 'p999',
                                                              'max'))})
         for s in (64, 512, 1518, 'imix')]
    path = os.path.join(out, 'rfc2544.png')
    fig = rfc2544.plot(path, rows, 10.0, 'rfc2544', 'sub')
    check('panels (rfc2544): a PNG of the figure size', png_size(path) == fig_pixels(fig),
          f'{png_size(path)} vs {fig_pixels(fig)}')
    tp, lat = fig.axes[0], fig.axes[1]
    check('panels (rfc2544): axes with units', tp.get_ylabel() == 'throughput (packets/s)'
          and lat.get_ylabel() == 'latency (us)'
          and lat.get_xlabel() == 'frame size (bytes, with FCS)',
          f'{tp.get_ylabel()!r} {lat.get_ylabel()!r} {lat.get_xlabel()!r}')
    fig = rfc2544.plot(path, [r for r in rows if r['test'] == 'latency'], 10.0, 'rfc2544')
    check('panels (rfc2544): a latency run has the latency panel only, no empty one',
          [a.get_ylabel() for a in fig.axes] == ['latency (us)'],
          f'{[a.get_ylabel() for a in fig.axes]}')
    ticks = [round(t, 1) for t in lat.get_xticks()]
    check('panels (rfc2544): sizes numeric, imix at its mean frame',
          ticks == [64, 512, 1518, 361.8] and lat.get_xticklabels()[3].get_text() == 'imix (362)',
          f'{ticks} {[t.get_text() for t in lat.get_xticklabels()]}')

    path = os.path.join(out, 'bars.png')
    fig = pgplot.ratio_bars(path, ['a', 'b'], [0.9, 1.1], 'ours / stock', 'bars')
    check('ratio_bars: a PNG of the figure size', png_size(path) == fig_pixels(fig),
          f'{png_size(path)} vs {fig_pixels(fig)}')
    check('ratio_bars: a bar per label, x label',
          len(fig.axes[0].patches) == 2 and fig.axes[0].get_xlabel() == 'ours / stock')
    return 1 if FAILED else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
