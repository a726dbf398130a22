# SPDX-License-Identifier: GPL-2.0
"""Merge the pgstats and pgrx figures of many hosts into one report.

Input: one document per host, as the collect role writes them
({"host": NAME, "netns": ..., "pgstats": [pgstats --json objects],
"pgrx": pgrx's JSON view or null}).  Output (merge()): a dict with
per-host rows, the totals, one row per pgrx stream, and the start
spread of a start_at run; csv_text() and png() render it.  No Ansible
import: tests/host/ansible.sh calls it on fixtures, and it runs as a
script too:

    python3 pktgen_report.py OUTDIR HOST.json...

Loss: "lost" is pgrx's (sequence numbers never seen below the last one
received); "unaccounted" is sent - received - lost over all hosts, the
packets neither received nor counted lost (lost at the tail of a run,
or sent to no receiver).  Percentiles of a stream are pgrx's own; those
of the totals come from the streams' histograms summed, by pgrx's rule
(receiver.rst, "Latency statistics"; tools/pgrx-hist).
"""

from __future__ import absolute_import, division, print_function

import csv
import io
import json
import os
import sys

__metaclass__ = type

LAST_LO = 31 << 30	# the table's last bucket: [31 x 2^30, 2^35) and above
LAST_WIDTH = 1 << 30
PERCENTILES = (('p50', 500), ('p99', 990), ('p999', 999))
CSV_KEYS = ('kind', 'host', 'stream', 'sent', 'tx_errors', 'received', 'lost',
            'loss_pct', 'p50_ns', 'p99_ns', 'p999_ns', 'max_ns')


def _mid(lo, hi):
    return lo + (LAST_WIDTH if lo == LAST_LO else hi - lo) // 2


def percentile(hist, per_mille, lo_clamp, hi_clamp):
    """pgrx's rule: the middle of the first bucket where the cumulative
    count reaches ceil(n x p), clamped into [min, max]; 0 if empty."""
    n = sum(c for _, _, c in hist)
    if not n:
        return 0
    rank = max(1, -(-n * per_mille // 1000))
    seen = 0
    for lo, hi, c in sorted(hist):
        seen += c
        if seen >= rank:
            return min(max(_mid(lo, hi), lo_clamp), hi_clamp)
    return hi_clamp


def sum_histograms(hists):
    acc = {}
    for h in hists:
        for lo, hi, c in h:
            acc[(lo, hi)] = acc.get((lo, hi), 0) + c
    return [[lo, hi, c] for (lo, hi), c in sorted(acc.items())]


def _loss_pct(received, lost):
    return round(100.0 * lost / (received + lost), 6) if received + lost else 0.0


def merge(docs):
    """The report of DOCS (one per host)."""
    hosts, streams, starts = [], [], []
    tot = {'sent': 0, 'tx_bytes': 0, 'tx_errors': 0, 'received': 0, 'rx_bytes': 0,
           'lost': 0, 'devices': 0, 'streams': 0}
    all_hist, lat_min, lat_max = [], None, 0
    for doc in sorted(docs, key=lambda d: (d['host'], d.get('netns') or '')):
        host = doc['host']
        devs = doc.get('pgstats') or []
        row = {'host': host, 'netns': doc.get('netns') or '',
               'devices': len(devs),
               'sent': sum(d.get('pkts_sofar', 0) for d in devs),
               'tx_bytes': sum(d.get('tx_bytes', 0) for d in devs),
               'tx_errors': sum(d.get('errors', 0) for d in devs),
               'received': 0, 'rx_bytes': 0, 'lost': 0, 'streams': 0}
        for d in devs:
            if d.get('start_at_ns'):
                starts.append({'host': host, 'device': d['device'],
                               'start_at_ns': d['start_at_ns'],
                               'started_real_ns': d.get('started_real_ns', 0),
                               'late_ns': d.get('started_real_ns', 0) - d['start_at_ns']})
        rx = doc.get('pgrx') or {}
        for s in rx.get('streams', []) if isinstance(rx.get('streams'), list) else []:
            row['received'] += s.get('rx_packets', 0)
            row['rx_bytes'] += s.get('rx_bytes', 0)
            row['lost'] += s.get('lost', 0)
            row['streams'] += 1
            hist = s.get('histogram') or []
            all_hist.append(hist)
            if s.get('latency_samples'):
                lat_min = s['latency_min_ns'] if lat_min is None else \
                    min(lat_min, s['latency_min_ns'])
                lat_max = max(lat_max, s.get('latency_max_ns', 0))
            srow = {'host': host, 'netns': row['netns'], 'stream': s.get('stream', ''),
                    'received': s.get('rx_packets', 0), 'lost': s.get('lost', 0),
                    'loss_pct': _loss_pct(s.get('rx_packets', 0), s.get('lost', 0)),
                    'reordered': s.get('reordered', 0), 'duplicates': s.get('duplicates', 0),
                    'latency_samples': s.get('latency_samples', 0),
                    'max_ns': s.get('latency_max_ns', 0)}
            for name, _ in PERCENTILES:
                srow[name + '_ns'] = s.get('latency_%s_ns' % name, 0)
            streams.append(srow)
        row['loss_pct'] = _loss_pct(row['received'], row['lost'])
        hosts.append(row)
        for k in tot:
            tot[k] += row[k]
    tot['loss_pct'] = _loss_pct(tot['received'], tot['lost'])
    tot['unaccounted'] = tot['sent'] - tot['received'] - tot['lost']
    hist = sum_histograms(all_hist)
    tot['latency_samples'] = sum(c for _, _, c in hist)
    for name, pm in PERCENTILES:
        tot[name + '_ns'] = percentile(hist, pm, lat_min or 0, lat_max)
    tot['max_ns'] = lat_max
    spread = None
    if starts:
        real = [s['started_real_ns'] for s in starts]
        spread = {'devices': len(starts), 'spread_ns': max(real) - min(real),
                  'worst_late_ns': max(s['late_ns'] for s in starts),
                  'targets': sorted({s['start_at_ns'] for s in starts})}
    return {'version': 1, 'hosts': hosts, 'total': tot, 'streams': streams,
            'starts': starts, 'start': spread}


def csv_text(rep):
    """One row per host, one for the total, one per stream."""
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=CSV_KEYS, extrasaction='ignore', restval='',
                       lineterminator='\n')
    w.writeheader()
    for h in rep['hosts']:
        w.writerow(dict(h, kind='host'))
    w.writerow(dict(rep['total'], kind='total', host='all'))
    for s in rep['streams']:
        w.writerow(dict(s, kind='stream'))
    return out.getvalue()


def png(rep, path):
    """Sent/received/lost per host and in total, latency p50/p99/p99.9
    per stream.  ImportError without matplotlib."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel

    fig, (a1, a2) = plt.subplots(2, 1, figsize=(9, 8))
    names = [h['host'] + ('/' + h['netns'] if h['netns'] else '') for h in rep['hosts']]
    rows = rep['hosts'] + [rep['total']]
    names.append('total')
    x = range(len(rows))
    for i, (key, label) in enumerate((('sent', 'sent'), ('received', 'received'),
                                      ('lost', 'lost'))):
        a1.bar([j + (i - 1) * 0.27 for j in x], [r[key] for r in rows], 0.27, label=label)
    a1.set_xticks(list(x))
    a1.set_xticklabels(names)
    a1.set_ylabel('packets')
    a1.set_title('pktgen: per host and total (loss %.4f %%)' % rep['total']['loss_pct'])
    a1.legend()
    st = rep['streams']
    if st:
        st = st + [dict(rep['total'], host='all', stream='streams')]
        sx = range(len(st))
        for i, (name, _) in enumerate(PERCENTILES):
            a2.bar([j + (i - 1) * 0.27 for j in sx],
                   [max(s[name + '_ns'], 1) / 1000.0 for s in st], 0.27,
                   label=name.replace('p999', 'p99.9'))
        a2.set_xticks(list(sx))
        a2.set_xticklabels(['%s\n%s' % (s['host'], s['stream']) for s in st],
                           fontsize=7)
        a2.set_yscale('log')
        a2.legend()
    else:
        a2.text(0.5, 0.5, 'no pgrx stream', ha='center', va='center')
    a2.set_ylabel('latency (us)')
    a2.set_title('pgrx latency per stream')
    fig.tight_layout()
    fig.savefig(path, format='png')
    plt.close(fig)


def write_report(docs, outdir, plot=True):
    """merge() DOCS into OUTDIR/report.json, report.csv and report.png;
    the report, with 'png' false when matplotlib is missing."""
    rep = merge(docs)
    with open(os.path.join(outdir, 'report.json'), 'w') as f:
        json.dump(rep, f, indent=1)
        f.write('\n')
    with open(os.path.join(outdir, 'report.csv'), 'w') as f:
        f.write(csv_text(rep))
    rep['png'] = False
    if plot:
        try:
            png(rep, os.path.join(outdir, 'report.png'))
            rep['png'] = True
        except ImportError:
            pass
    return rep


def main(argv):
    if len(argv) < 3:
        sys.stderr.write('usage: pktgen_report.py OUTDIR HOST.json...\n')
        return 2
    docs = []
    for name in argv[2:]:
        with open(name) as f:
            docs.append(json.load(f))
    rep = write_report(docs, argv[1])
    return 0 if rep['png'] else 6


if __name__ == '__main__':
    sys.exit(main(sys.argv))
