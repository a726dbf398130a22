#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""The searches of tools/rfc2544.py (pktgen-rfc2544) against simulated
devices under test whose answers are known, without pktgen: prints
"PASS name" / "FAIL name|why" lines for ktap_report (tests/host/rfc2544.sh).

Models: a shaper (no loss up to R pps, the excess lost above it), a
device losing a fixed fraction at any rate (no NDR), a perfect one,
a shaper whose bucket takes B frames of a burst, a device whose loss
grows with the rate (PDR between NDR and the maximum), and the sizes,
rates, CSV, JSON and PNG helpers.
"""

import csv
import io
import json
import os
import random
import struct
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tools'))
import rfc2544 as m  # noqa: E402

DURATION = 1.0
results = []


def check(name, cond, why=''):
    results.append(f'PASS {name}' if cond else f'FAIL {name}|{why}')


class Model:
    """A DUT as a function of (rate pps, frames) -> frames received;
    counts the trials asked of it."""

    def __init__(self, fn):
        self.fn, self.trials, self.rates = fn, 0, []

    def __call__(self, rate):
        self.trials += 1
        self.rates.append(rate)
        frames = max(1, int(rate * DURATION))
        return m.Trial(rate, frames, frames, self.fn(rate, frames))

    def burst(self, n):
        self.trials += 1
        return m.Trial(0, n, n, self.fn(None, n))


def shaper(r):
    return lambda rate, frames: frames if rate <= r else int(frames * r / rate)


def lossy(p, seed=1):
    rnd = random.Random(seed)
    return lambda rate, frames: sum(rnd.random() >= p for _ in range(frames))


def main():
    # 1. a shaper of R: NDR in (R - resolution x max, R], every tried rate
    # passing at most R and failing above it, log2(1/resolution) + 1 trials
    for r, top, res in ((6250, 9000, 0.02), (248, 400, 0.02), (1000, 100000, 0.01),
                        (8999, 9000, 0.01)):
        dut = Model(shaper(r))
        got = m.throughput(dut, top, res)[0.0][0]
        ok = got is not None and r - max(1, res * top) <= got <= r
        check(f'shaper {r} pps, max {top}, resolution {res:g}: NDR {got}', ok,
              f'want {r - res * top:.0f}..{r}')
        limit = 1
        while top / 2 ** limit > max(1, res * top):
            limit += 1
        check(f'shaper {r}: {dut.trials} trials (at most {limit + 1})', dut.trials <= limit + 1,
              f'rates {dut.rates}')

    # 2. the maximum passes: one trial, NDR = max
    dut = Model(shaper(10 ** 9))
    got = m.throughput(dut, 5000, 0.01)[0.0]
    check('perfect DUT: NDR = max after one trial', got[0] == 5000 and dut.trials == 1,
          f'{got[0]} after {dut.trials}')

    # 3. 10 % loss at every rate: no NDR; PDR at 20 % is the maximum; the
    # PDR search reuses the maximum's trial
    dut = Model(lossy(0.10))
    got = m.throughput(dut, 8000, 0.02, accepts=(0.0, 20.0))
    check('10% loss everywhere: NDR none', got[0.0] == (None, None), f'{got[0.0]}')
    check('10% loss everywhere: PDR(20%) = max 8000, loss 5..15%',
          got[20.0][0] == 8000 and 5 < got[20.0][1].loss_pct < 15, f'{got[20.0][0]}')
    check(f'10% loss: the maximum tried once ({dut.rates.count(8000)})',
          dut.rates.count(8000) == 1, f'{dut.rates}')

    # 4. loss growing with the rate: none up to 2000, then (rate - 2000) /
    # rate: PDR(5%) near 2000 / 0.95 = 2105, between NDR and the maximum
    def grow(rate, frames):
        return frames if rate <= 2000 else frames - int(frames * (rate - 2000) / rate)
    dut = Model(grow)
    got = m.throughput(dut, 10000, 0.005, accepts=(0.0, 5.0))
    ndr, pdr = got[0.0][0], got[5.0][0]
    check(f'growing loss: NDR {ndr} in 1950..2000', ndr is not None and 1950 <= ndr <= 2000)
    check(f'growing loss: PDR(5%) {pdr} in 2055..2105, loss <= 5%',
          pdr is not None and 2055 <= pdr <= 2105 and got[5.0][1].loss_pct <= 5)
    check('growing loss: every rate tried once', len(dut.rates) == len(set(dut.rates)),
          f'{dut.rates}')

    # 5. back-to-back: a bucket of B frames; exact with a 1-frame resolution
    for b, top in ((173, 5000), (1, 100), (5000, 5000)):
        dut = Model(lambda rate, n, b=b: min(n, b))
        got, _ = m.back_to_back(dut.burst, top, 0.0)
        check(f'back-to-back: bucket {b}, up to {top}: {got}', got == b, f'want {b}')
    dut = Model(lambda rate, n: 0)
    check('back-to-back: nothing passes: 0', m.back_to_back(dut.burst, 64, 0.0)[0] == 0)
    dut = Model(lambda rate, n: min(n, 1234))
    got, _ = m.back_to_back(dut.burst, 10000, 0.01)
    check(f'back-to-back: resolution 1%, up to 10000: {got} in 1222..1234 ({dut.trials} trials)',
          1222 <= got <= 1234 and dut.trials <= 12)
    dut = Model(lambda rate, n: min(n, 31))
    got, _ = m.back_to_back(dut.burst, 2000, 0.032)
    check(f'back-to-back: 31 of up to 2000 at 3.2%: {got} in 30..31 ({dut.trials} trials)',
          30 <= got <= 31)

    # 6. frame loss: 100, 90, ... until two clean steps; --loss-full: all
    dut = Model(shaper(5000))
    steps = m.frame_loss(dut, 10000, 10)
    got = [(p, round(t.loss_pct)) for p, t in steps]
    want = [(100, 50), (90, 44), (80, 38), (70, 29), (60, 17), (50, 0), (40, 0)]
    check(f'frame loss of a 5000 pps shaper at 10000: {got}', got == want, f'want {want}')
    steps = m.frame_loss(Model(shaper(5000)), 10000, 10, full=True)
    check('frame loss --loss-full: 10 steps, the last at 10%',
          len(steps) == 10 and steps[-1][0] == 10 and steps[-1][1].rate == 1000)
    steps = m.frame_loss(Model(shaper(10 ** 9)), 1000, 25)
    check('frame loss, no loss at all: 100% and 75% only', [p for p, _ in steps] == [100, 75])

    # 7. latency of several trials: min of mins, max of maxes, mean of the rest
    ts = [m.Trial(1, 1, 1, 1, latency={'samples': 5, 'min': 10, 'avg': 20, 'max': 90,
                                         'p50': 18, 'p99': 80, 'p999': 90, 'jitter': 4}),
          m.Trial(1, 1, 1, 1, latency={'samples': 5, 'min': 12, 'avg': 30, 'max': 70,
                                         'p50': 22, 'p99': 60, 'p999': 70, 'jitter': 6}),
          m.Trial(1, 1, 1, 0)]
    lat = m.latency_summary(ts)
    check(f'latency summary {lat}', lat == {'min': 10, 'max': 90, 'avg': 25, 'p50': 20,
                                            'p99': 70, 'p999': 80, 'jitter': 5})
    check('latency summary of no samples: None', m.latency_summary(ts[2:]) is None)

    # 8. sizes, rates, line rate
    check('sizes: 64,512,imix', m.parse_sizes('64, 512,IMIX') == [64, 512, 'imix'])
    try:
        m.parse_sizes('60')
        check('sizes: 60 refused', False, 'accepted')
    except ValueError:
        check('sizes: 60 refused', True)
    check('imix mean 361.83', abs(m.mean_size('imix') - 4342 / 12) < 1e-9)
    check('line 10000 Mb/s at 64: 14880952 pps', int(m.line_pps(64, 10000)) == 14880952)
    check('line 1000 Mb/s at 1518: 81274 pps', int(m.line_pps(1518, 1000)) == 81274)
    check('rates: 8k, 1.5M, 50%, 3.9mbit', m.parse_rate('8k') == ('pps', 8000) and
          m.parse_rate('1.5Mpps') == ('pps', 1.5e6) and m.parse_rate('50%') == ('pct', 50) and
          m.parse_rate('3.9mbit') == ('bps', 3.9e6))
    check('rate at a size: 3.9mbit at 64 and 1518, 50% of 1000 Mb/s at 64, 8k under a line',
          m.rate_pps(('bps', 3.9e6), 64) == 7617 and m.rate_pps(('bps', 3.9e6), 1518) == 321
          and m.rate_pps(('pct', 50), 64, 1000) == 744047
          and m.rate_pps(('pps', 8000), 1518, 10) == 812)
    check('Trial: 100 sent, 90 received: 10% lost, passes 10, fails 9.9',
          m.Trial(1, 100, 100, 90).passes(10) and not m.Trial(1, 100, 100, 90).passes(9.9))
    check('Trial: duplicates never make loss negative', m.Trial(1, 10, 10, 12).lost == 0)

    # 9. outputs: CSV and JSON rows, a PNG that decodes
    rows = [m.row('throughput-ndr', 64, accept_loss_pct=0, **m.rate_fields(6000, 64, 10)),
            m.row('throughput-ndr', 1518, accept_loss_pct=0, **m.rate_fields(None, 1518, 10)),
            m.row('latency', 64, offered_pps=6000, latency_min_ns=1000, latency_avg_ns=2000,
                  latency_max_ns=9000, latency_p50_ns=1800, latency_p99_ns=5000,
                  latency_p999_ns=8000, latency_jitter_ns=300)]
    back = list(csv.DictReader(io.StringIO(m.to_csv(rows))))
    check('CSV: header and 3 rows, 64 bytes 6000 pps 3.072 Mb/s, 1518 none',
          len(back) == 3 and back[0]['throughput_mbps'] == '3.072' and
          back[1]['throughput_pps'] == 'none' and list(back[0]) == m.FIELDS)
    doc = json.loads(m.to_json(rows, [], {'tool': 'x'}))
    check('JSON: results without empty fields', doc['results'][2]['latency_p99_ns'] == 5000 and
          'back_to_back' not in doc['results'][0])
    # the PNG: matplotlib's (tests/host/tools.sh checks its axes), or
    # without matplotlib (python3 -S) the one-line NoPlot, exit code 6
    import pgplot
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'model.png')
        try:
            m.plot(path, rows, 10, 'model', 'sub')
            with open(path, 'rb') as f:
                png = f.read()
            w, h = struct.unpack('>II', png[16:24])
            check(f'PNG {w}x{h}: signature, IHDR',
                  png[:8] == b'\x89PNG\r\n\x1a\n' and png[12:16] == b'IHDR' and w > 0 < h)
        except pgplot.NoPlot as e:
            check('no matplotlib: NoPlot, exit code 6, one line',
                  e.code == 6 and '\n' not in str(e))

    print('\n'.join(results))
    return 0


if __name__ == '__main__':
    sys.exit(main())
