#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Markdown report of bench/ipopt-guest.sh's runs.csv, beside the memo.

    ipopt-report.py RUNS.CSV META.TXT...

Per cell: the median over passes (min-max) of the one-way latency S -> K
(p50 of each pass's paced run), the forwarding rate of the unpaced runs,
and both relative to the cell the memo compares with.
"""
import csv
import statistics
import sys

# cell: (what it is, the cell it is compared with, the memo's figure)
CELLS = [
    ('plain', 'no options, classifier off', None, '40.74 µs (no PF_IPOPTION)'),
    ('ra', 'RA, classifier off', 'plain', ''),
    ('plain_cls', 'no options, classifier on', 'plain', ''),
    ('ra_cls', 'RA, classifier on (counted)', 'ra', '44.59 µs (options seen, +9%)'),
    ('rr_cls', 'RR, classifier on (counted)', 'plain', ''),
    ('ra_ipodump', 'RA, intercepted by ipodump -T ra (PF_IPOPTION)', 'ra',
     '124.64 µs (+206%), 8,023 pps max'),
    ('ra_ralert', 'RA, intercepted by ipodump --router-alert -T ra', 'ra', ''),
    ('rr_nfqueue', 'RR, intercepted by ipodump -T rr (NFQUEUE)', 'rr_cls', ''),
]


def median_range(values):
    if not values:
        return None, None, None
    return statistics.median(values), min(values), max(values)


def relative(value, base_value, base):
    ratio = value / base_value
    if ratio >= 3:
        return 'x%s vs %s' % (('%.0f' if ratio >= 10 else '%.1f') % ratio, base)
    if ratio <= 1 / 3:
        return '/%s vs %s' % (('%.0f' if ratio <= 0.1 else '%.1f') % (1 / ratio), base)
    return '%+.0f%% vs %s' % (100 * (ratio - 1), base)


def main():
    runs, metas = sys.argv[1], sys.argv[2:]
    by_cell = {}
    with open(runs) as f:
        for row in csv.DictReader(f):
            by_cell.setdefault(row['cell'], []).append(row)
    med = {}
    for cell, rows in by_cell.items():
        lat = median_range([int(r['lat_p50_ns']) / 1000 for r in rows if r['lat_p50_ns']])
        pps = median_range([int(r['tput_pps']) for r in rows])
        lost = sum(int(r['lat_lost'] or 0) for r in rows)
        med[cell] = (lat, pps, lost, len(rows))
    for meta in metas:
        with open(meta) as f:
            for line in f:
                key, _, value = line.rstrip('\n').partition('=')
                print('- %s: %s' % (key, value))
    print()
    print('| cell | latency p50 µs, median (min-max) | vs | forwarded pps, median (min-max) '
          '| vs | lost (paced) | passes | the memo (500 MHz Celeron, FreeBSD) |')
    print('|---|---|---|---|---|---|---|---|')
    for cell, what, base, memo in CELLS:
        if cell not in med:
            continue
        (lat, lat_lo, lat_hi), (pps, pps_lo, pps_hi), lost, n = med[cell]
        vs_lat = vs_pps = ''
        if base in med and lat is not None and med[base][0][0]:
            vs_lat = relative(lat, med[base][0][0], base)
            vs_pps = relative(pps, med[base][1][0], base)
        lat_s = '%.0f (%.0f-%.0f)' % (lat, lat_lo, lat_hi) if lat is not None else '-'
        print('| %s: %s | %s | %s | %.0f (%d-%d) | %s | %d | %d | %s |' % (
            cell, what, lat_s, vs_lat, pps, pps_lo, pps_hi, vs_pps, lost, n, memo))


if __name__ == '__main__':
    main()
