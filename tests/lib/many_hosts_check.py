#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The checks of tests/many-hosts.sh: pktgen.lab's merged report against
what the host read itself from each guest's /proc after the playbook.

    many_hosts_check.py SPEC.json

SPEC: {"results": DIR (report.json, report.csv of the report role),
       "own": {HOST: {"pgstats": FILE, "pgrx": FILE or null}} (pgstats'
              text; pgrx's text in "display script"),
       "flows": [{"name", "sender", "count", "streams", "pkt_size",
                  "lossy": bool}],
       "receiver": HOST, "start_at_ns": the value the playbook wrote (or
       null when none was seen), "start_bound_ns": N,
       "offsets": {HOST: ns, guest clock minus the host's}}

Prints one line per check, "ok<TAB>NAME" or "not ok<TAB>NAME<TAB>WHY"
(WHY's lines joined by " | "), always the same checks in the same order
(CHECKS), and "#<TAB>TEXT" diagnostics.  Exit 0 if every check passed.
A stream is matched to its flow by its packets' size (rx_bytes /
rx_packets nearest the flow's pkt_size, within 64 bytes): pgrx's stream ids are random per
sending device and pgstats does not show them.
"""

import csv
import json
import os
import sys

PCTS = ('p50', 'p99', 'p999')


def parse_kv(text):
    """key=value lines (pgstats' blocks, pgrx's display script)."""
    out = []
    cur = {}
    for line in text.splitlines():
        if not line.strip():
            if cur:
                out.append(cur)
            cur = {}
            continue
        k, sep, v = line.partition('=')
        if not sep:
            continue
        cur[k.strip()] = int(v) if v.strip().isdigit() else v.strip()
    if cur:
        out.append(cur)
    return out


def pgstats_devices(text):
    return [b for b in parse_kv(text) if 'device' in b]


def pgrx_script(text):
    """{'streams': N, 'list': [{name: value} per stream]} of display script."""
    kv = {}
    for b in parse_kv(text):
        kv.update(b)
    n = kv.get('streams')
    if not isinstance(n, int):
        raise ValueError('no streams= line in pgrx display script')
    streams = []
    for i in range(n):
        p = 's%d_' % i
        streams.append({k[len(p):]: v for k, v in kv.items() if k.startswith(p)})
    return {'streams': n, 'list': streams}


class Checker:
    def __init__(self, spec):
        self.spec = spec
        res = spec['results']
        with open(os.path.join(res, 'report.json')) as f:
            self.rep = json.load(f)
        with open(os.path.join(res, 'report.csv')) as f:
            self.csv = list(csv.DictReader(f))
        self.tx = {}
        self.rx = None
        for host, own in spec['own'].items():
            with open(own['pgstats']) as f:
                self.tx[host] = pgstats_devices(f.read())
            if own.get('pgrx'):
                with open(own['pgrx']) as f:
                    self.rx = pgrx_script(f.read())
        self.flows = spec['flows']

    def flow_of(self, s):
        """The flow of a pgrx stream (own reading), by packet size."""
        if not s.get('rx_packets'):
            return None
        size = s['rx_bytes'] // s['rx_packets']
        # pgrx's bytes are a little more than pkt_size (74 a packet for
        # pkt_size 60 on virtio_net): the nearest flow, within 64 bytes
        f = min(self.flows, key=lambda f: abs(f['pkt_size'] - size))
        return f if abs(f['pkt_size'] - size) <= 64 else None

    # ---- the checks: each returns a list of problems (empty: ok)
    def sent(self):
        bad = []
        rows = {h['host']: h for h in self.rep['hosts']}
        for host, devs in self.tx.items():
            row = rows.get(host)
            if row is None:
                bad.append('%s: no host row in report.json' % host)
                continue
            own = sum(d.get('pkts_sofar', 0) for d in devs)
            if row['sent'] != own:
                bad.append('%s: report sent %d, pgstats pkts_sofar sum %d'
                           % (host, row['sent'], own))
            if row['devices'] != len(devs):
                bad.append('%s: report %d devices, pgstats %d' % (host, row['devices'], len(devs)))
            want = sum(f['count'] * f['streams'] for f in self.flows if f['sender'] == host)
            if own != want:
                bad.append('%s: pgstats sent %d, the scenario %d' % (host, own, want))
        rxrow = rows.get(self.spec['receiver'])
        if rxrow is None:
            bad.append('no row for the receiver %s' % self.spec['receiver'])
        elif self.rx is not None:
            own = sum(s.get('rx_packets', 0) for s in self.rx['list'])
            if rxrow['received'] != own:
                bad.append('%s: report received %d, pgrx %d' % (rxrow['host'], rxrow['received'],
                                                               own))
        tot = self.rep['total']
        if tot['sent'] != sum(sum(d.get('pkts_sofar', 0) for d in v) for v in self.tx.values()):
            bad.append('total sent %d is not the sum of pgstats' % tot['sent'])
        return bad

    def streams(self):
        bad = []
        if self.rx is None:
            return ['no pgrx reading of the receiver']
        want = sum(f['streams'] for f in self.flows)
        if self.rx['streams'] != want:
            bad.append('pgrx has %d streams, the scenario %d' % (self.rx['streams'], want))
        rep = {s['stream']: s for s in self.rep['streams']}
        csvs = {r['stream']: r for r in self.csv if r['kind'] == 'stream'}
        if len(rep) != self.rx['streams']:
            bad.append('report.json has %d streams, pgrx %d' % (len(rep), self.rx['streams']))
        for s in self.rx['list']:
            name = s.get('stream')
            r = rep.get(name)
            if r is None:
                bad.append('stream %s: not in report.json' % name)
                continue
            pairs = [('received', 'rx_packets'), ('lost', 'lost'),
                     ('duplicates', 'duplicates'), ('reordered', 'reordered'),
                     ('max_ns', 'latency_max_ns')]
            pairs += [(p + '_ns', 'latency_%s_ns' % p) for p in PCTS]
            for rk, sk in pairs:
                if r.get(rk) != s.get(sk):
                    bad.append('stream %s: report %s %r, pgrx %s %r'
                               % (name, rk, r.get(rk), sk, s.get(sk)))
            c = csvs.get(name)
            if c is None:
                bad.append('stream %s: no CSV row' % name)
                continue
            for k in ('received', 'lost', 'p50_ns', 'p99_ns', 'p999_ns'):
                if str(r.get(k)) != c.get(k):
                    bad.append('stream %s: CSV %s %r, JSON %r' % (name, k, c.get(k), r.get(k)))
        return bad

    def accounted(self):
        """Every packet sent is received or counted lost: per flow, the
        streams' rx + lost + the head and tail pgrx cannot see (first_seq
        - 1, count - last_seq) is what the flow's devices sent."""
        bad = []
        if self.rx is None:
            return ['no pgrx reading']
        per_flow = {f['name']: 0 for f in self.flows}
        nstreams = {f['name']: 0 for f in self.flows}
        unseen = 0
        for s in self.rx['list']:
            f = self.flow_of(s)
            if f is None:
                bad.append('stream %s: no flow of its packet size (%r bytes, %r packets)'
                           % (s.get('stream'), s.get('rx_bytes'), s.get('rx_packets')))
                continue
            head = s['first_seq'] - 1
            tail = f['count'] - s['last_seq']
            if head < 0 or tail < 0:
                bad.append('stream %s: seq %d..%d outside 1..%d'
                           % (s['stream'], s['first_seq'], s['last_seq'], f['count']))
            if s.get('duplicates'):
                bad.append('stream %s: %d duplicates' % (s['stream'], s['duplicates']))
            per_flow[f['name']] += s['rx_packets'] + s['lost'] + head + tail
            nstreams[f['name']] += 1
            unseen += head + tail
        for f in self.flows:
            sent = sum(d.get('pkts_sofar', 0) for d in self.tx.get(f['sender'], [])
                       if d.get('pkt_size') == f['pkt_size'])
            if nstreams[f['name']] != f['streams']:
                bad.append('flow %s: %d streams at the receiver, %d sent'
                           % (f['name'], nstreams[f['name']], f['streams']))
            if per_flow[f['name']] != sent:
                bad.append('flow %s: received + lost + unseen = %d, sent %d'
                           % (f['name'], per_flow[f['name']], sent))
        if self.rep['total']['unaccounted'] != unseen:
            bad.append("report's unaccounted %d, the streams' unseen head and tail %d"
                       % (self.rep['total']['unaccounted'], unseen))
        return bad

    def loss(self):
        bad = []
        if self.rx is None:
            return ['no pgrx reading']
        seen = {f['name']: 0 for f in self.flows}
        for s in self.rx['list']:
            f = self.flow_of(s)
            if f is not None:
                seen[f['name']] += 1
        bad += ['flow %s: no stream at the receiver' % n for n, c in seen.items() if not c]
        for s in self.rx['list']:
            f = self.flow_of(s)
            if f is None:
                bad.append('stream %s: no flow' % s.get('stream'))
            elif f['lossy'] and not s['lost']:
                bad.append('stream %s of lossy flow %s: nothing lost' % (s['stream'], f['name']))
            elif not f['lossy'] and s['lost']:
                bad.append('stream %s of flow %s: %d lost' % (s['stream'], f['name'], s['lost']))
        return bad

    def _starts(self):
        return [(h, d) for h, devs in sorted(self.tx.items()) for d in devs]

    def one_start(self):
        bad = []
        want = self.spec.get('start_at_ns')
        if not want:
            bad.append("no start_at value seen in the playbook's output")
        vals = {d.get('start_at_ns') for _, d in self._starts()}
        if len(vals) != 1:
            bad.append('start_at_ns values: %s' % sorted(vals, key=str))
        elif want and vals != {want}:
            bad.append('devices have start_at_ns %s, the playbook wrote %s' % (vals.pop(), want))
        st = self.rep.get('start') or {}
        if st.get('targets') != sorted(v for v in vals if v):
            bad.append('report start.targets %r' % st.get('targets'))
        return bad

    def lateness(self):
        bad = []
        bound = self.spec['start_bound_ns']
        for h, d in self._starts():
            if not d.get('start_at_ns') or not d.get('started_real_ns'):
                bad.append('%s %s: no start_at_ns/started_real_ns' % (h, d['device']))
                continue
            late = d['started_real_ns'] - d['start_at_ns']
            if not 0 <= late < bound:
                bad.append('%s %s: started %d ns after start_at (bound [0, %d))'
                           % (h, d['device'], late, bound))
        return bad

    def spread(self):
        bad = []
        st = self.rep.get('start') or {}
        real = [d.get('started_real_ns', 0) for _, d in self._starts()]
        late = [d.get('started_real_ns', 0) - d.get('start_at_ns', 0) for _, d in self._starts()]
        if not real or not all(real):
            return ['no sender device, or one that never started']
        if st.get('spread_ns') != max(real) - min(real):
            bad.append('report start.spread_ns %r, pgstats max - min %d'
                       % (st.get('spread_ns'), max(real) - min(real)))
        if st.get('worst_late_ns') != max(late):
            bad.append('report start.worst_late_ns %r, pgstats %d'
                       % (st.get('worst_late_ns'), max(late)))
        if st.get('devices') != len(real):
            bad.append('report start.devices %r, pgstats %d' % (st.get('devices'), len(real)))
        return bad

    def diagnostics(self):
        out = []
        offs = self.spec.get('offsets') or {}
        for h, off in sorted(offs.items()):
            out.append('clock %s: %+.3f ms from the host' % (h, off / 1e6))
        starts = self._starts()
        for h, d in starts:
            out.append('start %s %s: late %.3f ms' % (
                h, d['device'], (d.get('started_real_ns', 0) - d.get('start_at_ns', 0)) / 1e6))
        if starts:
            real = [d.get('started_real_ns', 0) for _, d in starts]
            out.append('start spread (guest clocks) %.3f ms' % ((max(real) - min(real)) / 1e6))
            if all(h in offs for h, _ in starts):
                hreal = [d.get('started_real_ns', 0) - offs[h] for h, d in starts]
                out.append('start spread (host clock, offsets removed) %.3f ms'
                           % ((max(hreal) - min(hreal)) / 1e6))
        if self.rx:
            for s in self.rx['list']:
                f = self.flow_of(s)
                out.append('stream %s (%s, %d bytes a packet): rx %d lost %d seq %d..%d '
                           'p50 %d p99 %d ns' % (
                    s.get('stream'), f['name'] if f else '?',
                    s.get('rx_bytes', 0) // max(1, s.get('rx_packets', 0)), s.get('rx_packets', 0),
                    s.get('lost', 0), s.get('first_seq', 0), s.get('last_seq', 0),
                    s.get('latency_p50_ns', 0), s.get('latency_p99_ns', 0)))
        t = self.rep['total']
        out.append('report total: sent %d received %d lost %d unaccounted %d'
                   % (t['sent'], t['received'], t['lost'], t['unaccounted']))
        return out


CHECKS = (
    ('per-host sent equals pgstats, received equals pgrx', 'sent'),
    ('per-stream received, lost, percentiles equal pgrx (JSON and CSV)', 'streams'),
    ('every packet sent is received or counted lost', 'accounted'),
    ('the lossy flow lost packets, the others none', 'loss'),
    ('one start_at for every device, the one the playbook wrote', 'one_start'),
    ('each device started within the bound after start_at', 'lateness'),
    ("the report's start spread and lateness equal pgstats'", 'spread'),
)


def main(argv):
    with open(argv[1]) as f:
        spec = json.load(f)
    try:
        c = Checker(spec)
    except (OSError, ValueError, KeyError) as e:
        for name, _ in CHECKS:
            print('not ok\t%s\tcannot read the inputs: %s' % (name, e))
        return 1
    rc = 0
    for name, meth in CHECKS:
        try:
            bad = getattr(c, meth)()
        except (KeyError, TypeError, ValueError) as e:
            bad = ['%s: %s' % (type(e).__name__, e)]
        if bad:
            rc = 1
            print('not ok\t%s\t%s' % (name, ' | '.join(bad)))
        else:
            print('ok\t%s' % name)
    for line in c.diagnostics():
        print('#\t%s' % line)
    return rc


if __name__ == '__main__':
    sys.exit(main(sys.argv))
