#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Markdown report of bench/ipopt-guest.sh's runs.csv, beside the memo.

    ipopt-report.py RUNS.CSV META.TXT...

Per cell and UDP payload size: the median over passes (min-max) of the
one-way latency S -> K (p50 of each pass's paced run), the forwarding rate
of the unpaced runs, and both relative to the cell it is compared with;
then the payload-size dependence of the intercepted paths and the memo's
Figure 4 (ipodump's --timers in the PF_IPOPTION cells).  The memo's
figures are its published numbers, hard-coded below; not our results.
"""
import csv
import statistics
import sys

# The memo (Pan and Schulzrinne, PF_IPOPTION, 500 MHz Celeron, FreeBSD
# 3.4, 10 Mb/s Ethernet, ping -R), section 4 "Performance", Figure 3 and
# its text: kernel time from IP input to the end of IP output, in µs.
MEMO_NO_OPTIONS = 40.74         # kernel without PF_IPOPTION
MEMO_OPTIONS_SEEN = 44.59       # PF_IPOPTION in, options not intercepted (+8.6%)
MEMO_INTERCEPTED = 124.64       # intercepted by ipodump and reinjected
MEMO_INTERCEPTED_PPS = 8023     # "could only forward at most 8,023 ... per second"
# Section 4: RR intercepted, 1-byte vs 1400-byte ICMP payloads (16 data sets)
MEMO_SIZE = {'small': 116.4, 'large': 132.6}
# Section 4, Figure 4 (text; the figure's bars are not in our copy): read
# (select -> after recvmsg) and write "approximately 20-25 µs", the whole
# of user space 46.28 µs, the rest of 124.64 in the kernel and the BSD
# socket interface: 78.36 µs (62.87%).
MEMO_FIG4_READ_WRITE = '20-25'
MEMO_FIG4_USER_TOTAL = 46.28
MEMO_FIG4_KERNEL_SOCKET = 78.36

# cell: (what it is, the cell it is compared with, the memo's figure)
CELLS = [
    ('plain', 'no options, classifier off', None, '%.2f (no PF_IPOPTION)' % MEMO_NO_OPTIONS),
    ('ra', 'RA, classifier off', 'plain', ''),
    ('rr', 'RR, classifier off (slot filled)', 'plain', ''),
    ('plain_cls', 'no options, classifier on', 'plain', ''),
    ('ra_cls', 'RA, classifier on (counted)', 'ra',
     '%.2f (options seen, not intercepted)' % MEMO_OPTIONS_SEEN),
    ('rr_cls', 'RR, classifier on (counted)', 'rr', ''),
    ('ra_ipodump', 'RA, intercepted by ipodump -T ra (PF_IPOPTION)', 'ra', ''),
    ('rr_ipodump', 'RR, intercepted by ipodump -T rr (PF_IPOPTION)', 'rr',
     '%.2f intercepted (RR), %s pps max' % (MEMO_INTERCEPTED, format(MEMO_INTERCEPTED_PPS, ','))),
    ('ra_ralert', 'RA, intercepted by ipodump --router-alert -T ra', 'ra', ''),
    ('rr_nfqueue', 'RR, intercepted by ipodump -T rr (NFQUEUE)', 'rr_cls', ''),
]
INTERCEPTED = ['ra_ipodump', 'rr_ipodump', 'ra_ralert', 'rr_nfqueue']
WHAT = {cell: what for cell, what, _, _ in CELLS}
BASE = {cell: base for cell, _, base, _ in CELLS}


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


def floats(rows, key):
    return [float(r[key]) for r in rows if r.get(key)]


def summarize(rows):
    """The medians of one cell at one payload size."""
    return {
        'lat': median_range([int(r['lat_p50_ns']) / 1000 for r in rows if r['lat_p50_ns']]),
        'pps': median_range([int(r['tput_pps']) for r in rows]),
        'lost': sum(int(r['lat_lost'] or 0) for r in rows),
        'n': len(rows),
        'frame': rows[0]['frame'],
        'timers': {k: statistics.median(v) if v else None for k, v in (
            (k, floats(rows, k)) for k in (
                'recvmsg_median_us', 'user_median_us', 'sendto_median_us',
                'recvmsg_mean_us', 'user_mean_us', 'sendto_mean_us'))},
    }


def fmt_range(m, spec='%.0f'):
    if m[0] is None:
        return '-'
    return (spec + ' (' + spec + '-' + spec + ')') % m


def main():
    runs, metas = sys.argv[1], sys.argv[2:]
    rows = {}
    with open(runs) as f:
        for row in csv.DictReader(f):
            rows.setdefault((row['cell'], int(row['payload'])), []).append(row)
    med = {key: summarize(r) for key, r in rows.items()}
    sizes = sorted({p for _, p in med})
    for meta in metas:
        with open(meta) as f:
            for line in f:
                key, _, value = line.rstrip('\n').partition('=')
                print('- %s: %s' % (key, value))
    print()
    print('Payload: UDP payload bytes (the memo: ICMP payload bytes, 1 and 1400;')
    print('our smallest is 16, pktgen\'s header with the timestamp).  The memo\'s')
    print('column: its published figures (kernel time, IP input to IP output, µs).')
    print()
    print('| cell | payload (frame) | latency p50 µs, median (min-max) | vs | '
          'forwarded pps, median (min-max) | vs | lost (paced) | passes | '
          'the memo (500 MHz Celeron, FreeBSD), µs |')
    print('|---|---|---|---|---|---|---|---|---|')
    for size in sizes:
        for cell, what, base, memo in CELLS:
            m = med.get((cell, size))
            if not m:
                continue
            b = med.get((base, size))
            vs_lat = vs_pps = ''
            if b and m['lat'][0] is not None and b['lat'][0]:
                vs_lat = relative(m['lat'][0], b['lat'][0], base)
                vs_pps = relative(m['pps'][0], b['pps'][0], base)
            print('| %s: %s | %d (%s) | %s | %s | %s | %s | %d | %d | %s |' % (
                cell, what, size, m['frame'], fmt_range(m['lat']), vs_lat,
                fmt_range(m['pps']), vs_pps, m['lost'], m['n'],
                memo if size == sizes[0] else ''))
    print()
    print('ra_ipodump, rr_ipodump: when the socket\'s buffer is full the family lets the '
          'kernel forward the packet (Documentation/ipoption-sock.rst), so their unpaced '
          'rate is ipodump\'s and the kernel\'s together; ipodump alone manages at most '
          'the ceiling of the Figure 4 table below.  The other intercepted cells drop '
          'what does not fit.')
    if len(sizes) >= 2:
        small, large = sizes[0], sizes[-1]
        print()
        print('Payload-size dependence: latency p50 µs (median of passes), %d vs %d bytes'
              % (small, large))
        print()
        print('| cell | %d | %d | large vs small | the memo, RR intercepted: 1 vs 1400 bytes |'
              % (small, large))
        print('|---|---|---|---|---|')
        for cell in ['plain', 'ra', 'rr', 'rr_cls'] + INTERCEPTED:
            a, b = med.get((cell, small)), med.get((cell, large))
            if not a or not b or a['lat'][0] is None or b['lat'][0] is None:
                continue
            memo = ''
            if cell == 'rr_ipodump':
                memo = '%.1f vs %.1f (%+.0f%%)' % (
                    MEMO_SIZE['small'], MEMO_SIZE['large'],
                    100 * (MEMO_SIZE['large'] / MEMO_SIZE['small'] - 1))
            print('| %s | %.0f | %.0f | %+.0f%% | %s |' % (
                cell, a['lat'][0], b['lat'][0],
                100 * (b['lat'][0] / a['lat'][0] - 1), memo))
    print()
    print('Figure 4: ipodump --timers in the PF_IPOPTION cells, per reinjected packet '
          'of the paced run, µs: median of the passes\' medians (of their means)')
    print()
    print('| cell | payload | recvmsg | user space | sendto | the three | '
          'ceiling pps (10^6 / the three) | '
          'latency added by the interception (vs base cell) |')
    print('|---|---|---|---|---|---|---|---|')
    for cell in ('ra_ipodump', 'rr_ipodump'):
        for size in sizes:
            m = med.get((cell, size))
            if not m or m['timers']['recvmsg_median_us'] is None:
                continue
            t = m['timers']
            parts = [(t[k + '_median_us'], t[k + '_mean_us']) for k in ('recvmsg', 'user', 'sendto')]
            b = med.get((BASE[cell], size))
            added = ''
            if b and m['lat'][0] is not None and b['lat'][0] is not None:
                added = '%.0f (%s)' % (m['lat'][0] - b['lat'][0], BASE[cell])
            three = sum(p[0] for p in parts)
            print('| %s | %d | %s | %.0f (%.0f) | %.0f | %s |' % (
                cell, size, ' | '.join('%.0f (%.0f)' % p for p in parts),
                three, sum(p[1] for p in parts), 1e6 / three, added))
    lo, hi = (float(x) for x in MEMO_FIG4_READ_WRITE.split('-'))
    print('| the memo (RR) | 1 and 1400 | read and write: about %s together | '
          'about %.0f-%.0f (%.2f less read and write) | (with read) | %.2f | '
          '%s (its measured maximum) | %.2f (%.2f - %.2f); %.2f of the %.2f outside '
          'user space |' % (
              MEMO_FIG4_READ_WRITE, MEMO_FIG4_USER_TOTAL - hi, MEMO_FIG4_USER_TOTAL - lo,
              MEMO_FIG4_USER_TOTAL, MEMO_FIG4_USER_TOTAL, format(MEMO_INTERCEPTED_PPS, ','),
              MEMO_INTERCEPTED - MEMO_NO_OPTIONS, MEMO_INTERCEPTED, MEMO_NO_OPTIONS,
              MEMO_FIG4_KERNEL_SOCKET, MEMO_INTERCEPTED))


if __name__ == '__main__':
    main()
