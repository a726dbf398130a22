# SPDX-License-Identifier: GPL-2.0
"""The plots of the pktgen tools, drawn by matplotlib (Agg: no display).

One function per kind of plot; each writes a PNG to `path` and returns
the matplotlib Figure (closed; its axes stay readable, for tests):

    rate_vs_size()   packets/s (left) and Mb/s (right) against the frame
                     size on a true numeric axis: pktgen-sweep
    panels()         stacked panels of lines sharing one numeric x axis:
                     pktgen-rfc2544 (throughput, latency against the size),
                     or any series against time
    ratio_bars()     one horizontal bar per label, a reference line:
                     bench/report.py (ours / stock)

matplotlib is imported on first use: without it (Debian's
python3-matplotlib is a Recommends of the package) the tools still write
their CSV and JSON, and a plot raises NoPlot, whose message says why in
one line and whose code is the tools' exit code 6.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import pgproc  # noqa: E402

WIDTH, HEIGHT, DPI = 9.0, 6.0, 100	# inches, dots per inch: 900 x 600 pixels
STYLES = ('-o', '-s', '-^', '-d', '-v', '-x')


class NoPlot(pgproc.ToolError):
    """No PNG: matplotlib is not installed (the tools' exit code 6)."""

    def __init__(self, why):
        super().__init__(f'no PNG: {why} (install python3-matplotlib); '
                         'CSV and JSON are not affected', pgproc.EXIT_NO_PLOT)


def _pyplot():
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise NoPlot(f'matplotlib is missing ({e})') from None
    return plt


def _save(plt, fig, path, title, subtitle):
    fig.suptitle(title, fontsize=14)
    if subtitle:
        fig.text(0.5, 0.925, subtitle, ha='center', fontsize=9, color='0.3')
    fig.tight_layout(rect=(0, 0, 1, 0.92 if subtitle else 0.95))
    try:
        fig.savefig(path, format='png', dpi=DPI,
                    metadata={'Title': title, 'Software': 'pktgen tools (matplotlib)'})
    except OSError as e:
        raise pgproc.file_error(path, e) from None
    finally:
        plt.close(fig)
    return fig


def _plain(plt, ax):
    """y tick labels as numbers with k, M, G (no '1e7' offset)."""
    from matplotlib.ticker import EngFormatter
    ax.yaxis.set_major_formatter(EngFormatter(sep=''))


def _eng(v):
    """v with k, M, G (14.9M), as the axes show numbers."""
    from matplotlib.ticker import EngFormatter
    return EngFormatter(places=1, sep='')(v)


def _size_ticks(ax, sizes, labels=None):
    """The frame sizes as ticks of a numeric axis (their true spacing).
    Small sizes crowd such an axis (64, 128 and 256 next to 9000): a
    label that would overlap one kept is left blank, its tick stays; the
    smallest and largest sizes are labelled first, then from the largest
    down (1518 before 1280 and 1024)."""
    labels = list(labels or [f'{s:g}' for s in sizes])
    ax.set_xlim(0, max(sizes) * 1.05 if sizes else 1)
    ax.set_xticks(sizes)
    ax.set_xticklabels(labels)
    if len(sizes) < 2:
        return
    renderer = ax.figure.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer).expanded(1.2, 1.0) for t in ax.get_xticklabels()]
    order = sorted(range(len(sizes)), key=lambda i: sizes[i])
    kept = []
    for i in [order[0]] + order[::-1]:
        if not any(boxes[i].overlaps(boxes[k]) for k in kept):
            kept.append(i)
    ax.set_xticklabels([t if i in kept else '' for i, t in enumerate(labels)])


def rate_vs_size(path, sizes, pps, mbps, title, subtitle='', spread=None, line_pps=None,
                 xlabel='frame size (bytes, with FCS)'):
    """pps (left axis, packets/s; spread: (lowest, highest) per size as an
    error bar) and mbps (right axis, Mb/s) against sizes (bytes), with
    line_pps (the line's packet rate per size) dashed."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(WIDTH, HEIGHT), dpi=DPI)
    err = None
    if spread:
        err = [[p - lo for p, (lo, _) in zip(pps, spread)],
               [hi - p for p, (_, hi) in zip(pps, spread)]]
    ax.errorbar(sizes, pps, yerr=err, fmt='-o', color='tab:blue', capsize=4,
                label='packets/s (median; bar: lowest to highest run)')
    # The measured rates set the scale: a line rate far above them (a
    # 10G line at 64 bytes, a VM's rates) would flatten them to the floor.
    top = max(hi for _, hi in spread) if spread else max(pps, default=0)
    top = top * 1.3 or 1
    if line_pps:
        label = 'line rate, packets/s'
        if max(line_pps) > 3 * top / 1.3:
            label += f' (up to {_eng(max(line_pps))}, above the axis where not drawn)'
        else:
            top = max(top, max(line_pps) * 1.05)
        ax.plot(sizes, line_pps, '--', color='black', label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel('packets per second (packets/s)')
    ax.set_ylim(0, top)
    ax.grid(True, color='0.85')
    _plain(plt, ax)
    _size_ticks(ax, sizes)
    rx = ax.twinx()
    rx.plot(sizes, mbps, '-s', color='tab:red', label='Mb/s (L2, frames with FCS)')
    rx.set_ylabel('throughput (Mb/s)')
    rx.set_ylim(bottom=0)
    lines = ax.get_legend_handles_labels()
    more = rx.get_legend_handles_labels()
    ax.legend(lines[0] + more[0], lines[1] + more[1], loc='best', fontsize=8)
    return _save(plt, fig, path, title, subtitle)


def panels(path, x, spec, xlabel, title, subtitle='', xticks=None, xticklabels=None,
           notes=()):
    """Stacked panels sharing the numeric x axis x.  spec: one dict per
    panel, {'ylabel': 'latency (us)', 'series': [(label, ys, dashed)]},
    ys aligned with x (None: no point).  xticks/xticklabels: ticks at
    chosen positions (frame sizes); notes: lines of text under the title
    of the first panel."""
    plt = _pyplot()
    fig, axes = plt.subplots(len(spec), 1, sharex=True, squeeze=False,
                             figsize=(WIDTH, 4.0 * len(spec) + 1), dpi=DPI)
    for ax, p in zip((a[0] for a in axes), spec):
        for k, (label, ys, dashed) in enumerate(p['series']):
            pts = sorted((a, b) for a, b in zip(x, ys) if b is not None)
            if not pts:
                continue
            # a dashed line of one point draws nothing: a marker then
            ax.plot([a for a, _ in pts], [b for _, b in pts],
                    ('--x' if len(pts) == 1 else '--') if dashed else STYLES[k % len(STYLES)],
                    label=label)
        ax.set_ylabel(p['ylabel'])
        ax.set_ylim(bottom=0)
        _plain(plt, ax)
        ax.grid(True, color='0.85')
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    ax = axes[0][0]
    for i, n in enumerate(notes):
        ax.text(0.99, 0.02 + 0.05 * i, n, transform=ax.transAxes, ha='right', fontsize=8)
    last = axes[-1][0]
    last.set_xlabel(xlabel)
    if xticks is not None:
        _size_ticks(last, list(xticks), xticklabels)
    return _save(plt, fig, path, title, subtitle)


def ratio_bars(path, labels, values, xlabel, title, ref=1.0):
    """A horizontal bar per label (blue at or above ref, red below), the
    value written at its end and a line at ref."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(WIDTH, max(2.5, 0.3 * len(labels) + 1.5)), dpi=DPI)
    ys = list(range(len(labels)))
    ax.barh(ys, values, color=['tab:blue' if v >= ref else 'tab:red' for v in values])
    for y, v in zip(ys, values):
        ax.text(v, y, f' {v:.2f}', va='center', fontsize=8)
    ax.axvline(ref, color='black')
    ax.set_yticks(ys)
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.set_xlim(0, max(values + [ref]) * 1.15)
    return _save(plt, fig, path, title, '')
