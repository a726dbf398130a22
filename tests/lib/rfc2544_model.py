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
import re
import struct
import sys
import tempfile

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tools')
sys.path.insert(0, TOOLS)
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
                                         'p50': 18, 'p90': 40, 'p99': 80, 'p999': 90,
                                         'jitter': 4}),
          m.Trial(1, 1, 1, 1, latency={'samples': 5, 'min': 12, 'avg': 30, 'max': 70,
                                         'p50': 22, 'p90': 50, 'p99': 60, 'p999': 70,
                                         'jitter': 6}),
          m.Trial(1, 1, 1, 0)]
    lat = m.latency_summary(ts)
    check(f'latency summary {lat}', lat == {'min': 10, 'max': 90, 'avg': 25, 'p50': 20,
                                            'p90': 45, 'p99': 70, 'p999': 80, 'jitter': 5})
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

    plan_checks()
    try:
        tool_checks()
    except Exception as e:	# a broken tool: a failure, not a traceback
        import traceback
        where = traceback.extract_tb(e.__traceback__)[-1]
        check('the tool on the model ran', False,
              f'{type(e).__name__}: {e} at {os.path.basename(where.filename)}:{where.lineno}')
    print('\n'.join(results))
    return 0


# ------------------------------------------------------------------ the tool
def load_tool():
    """tools/pktgen-rfc2544 as a module (its file name has no .py)."""
    import importlib.machinery
    import importlib.util
    path = os.path.join(TOOLS, 'pktgen-rfc2544')
    loader = importlib.machinery.SourceFileLoader('pktgen_rfc2544', path)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


OVERHEAD = 0.25		# model seconds a trial takes beyond sending


def model_latency(rate):
    """The model DUT's latency at rate (ns): p50 grows with the rate, so
    a row measured at the wrong load shows it."""
    p50 = 10000 + rate
    return {'min': p50 - 2000, 'avg': p50 + 500, 'max': p50 + 9000, 'p50': p50,
            'p90': p50 + 1000, 'p99': p50 + 5000, 'p999': p50 + 8000, 'jitter': 300}


def model_histogram(rate, n):
    """n latencies in three buckets around model_latency(rate)'s p50."""
    p50 = model_latency(rate)['p50']
    a = n // 10
    c = n // 10
    return [b for b in ([p50 - 2000, p50 - 1000, a], [p50 - 1000, p50 + 1000, n - a - c],
                        [p50 + 1000, p50 + 9001, c]) if b[2]]


def model_bench(tool, ndr, bucket, loss=0.0):
    """A Bench whose pktgen and pgrx are a DUT model: per frame size a
    shaper of ndr[size] pps that lets a burst of bucket[size] frames
    through whole, losing `loss` of every trial besides; its clock is the
    model's (a trial takes its frames / rate + OVERHEAD seconds)."""

    class ModelBench(tool.Bench):
        def __init__(self, a):
            super().__init__(a)
            self.now = 1000.0
            self.clock = lambda: self.now
            self.json_reads = 0

        def rx_start(self):
            pass

        def cleanup(self):
            pass

        def stop(self):
            pass

        def exchange(self, size, pps, frames, histogram):
            pps = max(1, int(pps))
            self.now += frames / pps + OVERHEAD
            r = ndr[size]
            rx = frames if pps <= r or frames <= bucket[size] else int(frames * r / pps)
            rx -= int(rx * loss)
            kv = {'rx_packets': rx, 'duplicates': 0}
            if rx:
                kv['latency_samples'] = rx
                for k, v in model_latency(pps).items():
                    kv['jitter_ns' if k == 'jitter' else f'latency_{k}_ns'] = v
            res = {'pkts': frames, 'pps': pps}
            if not histogram:
                return res, kv, None
            self.json_reads += 1
            return res, kv, model_histogram(pps, rx)
    return ModelBench


class Capture(io.StringIO):
    """Standard error, as a file (isatty False) or as a terminal."""

    def __init__(self, tty=False):
        super().__init__()
        self.tty = tty

    def isatty(self):
        return self.tty


def run_tool(tool, argv, bench, tty=False):
    """The tool's main() on a model: (exit code, standard error, JSON
    document or None, CSV rows or None, the bench)."""
    made = []

    def make(a):
        made.append(bench(a))
        return made[-1]
    err = Capture(tty)
    saved = sys.stderr
    with tempfile.TemporaryDirectory() as d:
        js, cs = os.path.join(d, 'r.json'), os.path.join(d, 'r.csv')
        sys.stderr = err
        try:
            rc = tool.main(['-i', 'lo', '--rx-dev', 'lo', '-l', '1000', '--json', js,
                            '--csv', cs] + argv, make)
        except SystemExit as e:
            rc = e.code
        finally:
            sys.stderr = saved
        doc = rows = None
        if os.path.exists(js):
            with open(js) as f:
                doc = json.load(f)
            with open(cs, newline='') as f:
                rows = list(csv.DictReader(f))
    return rc, err.getvalue(), doc, rows, made[0] if made else None


PROGRESS = re.compile(r'^progress: (.*), trial (\d+) of at most (\d+): (\d+):(\d\d):(\d\d) '
                      r'elapsed, (\d+):(\d\d):(\d\d) left$')
PROGRESS_END = re.compile(r'^progress: done, (\d+) trials: (\d+):(\d\d):(\d\d) elapsed, '
                          r'0:00:00 left$')


def secs(h, mi, s):
    return int(h) * 3600 + int(mi) * 60 + int(s)


def progress_of(err):
    """The progress lines of a run: [(what, n, of, elapsed, left)] and the
    final line's (trials, elapsed) or None."""
    lines, end = [], None
    for line in err.splitlines():
        g = PROGRESS.match(line)
        if g:
            lines.append((g[1], int(g[2]), int(g[3]), secs(*g.groups()[3:6]),
                          secs(*g.groups()[6:9])))
        g = PROGRESS_END.match(line)
        if g:
            end = (int(g[1]), secs(*g.groups()[1:4]))
    return lines, end


def tool_checks():
    tool = load_tool()
    ndr = {64: 6000, 1518: 700}
    bucket = {64: 500, 1518: 80}
    loads = [10.0, 50.0, 90.0, 100.0]

    # 10. all four tests, default duration and loads, on the model
    rc, err, doc, rows, b = run_tool(tool, ['--max-rate', '10000', '-r', '1', '--pdr', '5',
                                            '--frame-size', '64,1518', 'all'],
                                     model_bench(tool, ndr, bucket))
    check(f'tool on the model: exit {rc}, JSON and CSV written', rc == 0 and doc is not None,
          err[-300:])
    if doc is None:
        return
    check(f'default duration: duration_s {doc["duration_s"]} = 60 (RFC 2544 section 24)',
          doc['duration_s'] == 60)
    sent = [(t['rate_pps'], t['offered']) for t in doc['trials'] if t['test'] != 'back-to-back']
    check(f'default duration: every trial offers 60 s of frames ({len(sent)} trials)',
          sent and all(o == round(r * 60) for r, o in sent), f'{sent[:4]}')
    check(f'default loads: latency_loads_pct {doc["latency_loads_pct"]}',
          doc['latency_loads_pct'] == loads)
    for size in (64, 1518):
        res = [r for r in doc['results'] if r['frame_size'] == size]
        found = next((r['throughput_pps'] for r in res if r['test'] == 'throughput-ndr'), None)
        lat = [r for r in res if r['test'] == 'latency']
        want = [(p, int(found * p / 100)) for p in loads] if isinstance(found, int) else []
        got = [(r.get('load_pct'), r.get('offered_pps')) for r in lat]
        check(f'{size}: one latency result per load at load x NDR {found}: {got}',
              want and got == want, f'want {want}')
        tr = [(t['rate_pps'], t.get('note')) for t in doc['trials']
              if t['test'] == 'latency' and t['frame_size'] == size]
        check(f'{size}: one latency trial per load, at its rate: {tr}',
              [r for r, _ in tr] == [r for _, r in want] and
              [n for _, n in tr] == [f'load {p:g}%' for p in loads])
        ok = True
        for r in lat:
            mod = model_latency(r['offered_pps'])
            ok = ok and all(r.get(f'latency_{k}_ns') == mod[k]
                            for k in ('min', 'avg', 'max', 'p50', 'p90', 'p99', 'p999'))
        check(f'{size}: each load min/avg/max, p50/p90/p99/p99.9 measured at its rate',
              lat and ok, f'{lat[:1]}')
        rx = {t['rate_pps']: t['rx'] for t in doc['trials']
              if t['test'] == 'latency' and t['frame_size'] == size}
        sums = [(sum(n for _, _, n in r.get('latency_histogram', [])), rx.get(r['offered_pps']),
                 r.get('latency_samples')) for r in lat]
        check(f'{size}: histogram buckets sum to the frames received: {sums}',
              lat and all(s == n == k and n > 0 for s, n, k in sums))
        shapes = [r.get('latency_histogram', []) for r in lat]
        check(f'{size}: histograms of [lo, hi, count], non-empty, ascending',
              shapes and all(h and all(len(x) == 3 and x[0] < x[1] and x[2] > 0 for x in h)
                             and h == sorted(h) for h in shapes))
    c = [r for r in rows if r['test'] == 'latency']
    check('CSV: latency_p90_ns column, 8 latency rows with load_pct and p90',
          'latency_p90_ns' in rows[0] and len(c) == 8 and
          all(r['latency_p90_ns'] and r['load_pct'] for r in c) and
          'latency_histogram' not in rows[0])
    table = [ln for ln in err.splitlines() if ln.split()[:1] == ['size'] and 'p90' in ln]
    check('text table: a p90 column', len(table) == 1, err[-300:])

    # progress: a line before every trial and one at the end; the time
    # left falls to 0; it is never less than the time the run really
    # still took (the plan's counts are upper bounds), from the second
    # trial on (the first knows no overhead yet)
    lines, end = progress_of(err)
    n = len(doc['trials'])
    total = b.now - 1000.0
    check(f'progress: {len(lines)} lines for {n} trials, then done',
          len(lines) == n and end is not None and end[0] == n, err[:300])
    if lines and end:
        left = [x[4] for x in lines]
        check(f'progress: the time left decreases ({left[0]} ... {left[-1]} s), then 0',
              all(x > y for x, y in zip(left, left[1:])), f'{left}')
        check(f'progress: trial numbers 1..{n}, "of at most" {lines[0][2]} shrinking to {n} '
              'as the searches end early', [x[1] for x in lines] == list(range(1, n + 1)) and
              all(x[2] >= y[2] for x, y in zip(lines, lines[1:])) and lines[0][2] > n and
              lines[-1][2] == n, f'{[x[2] for x in lines]}')
        within = {x[0] for x, y in zip(lines, lines[1:]) if x[0] == y[0] and x[2] > y[2]}
        check(f'progress: "of at most" shrinks within a search: {sorted(within)}',
              {'64 throughput', '64 back-to-back'} <= within)
        short = [(x[3], x[4], total - x[3]) for x in lines[1:] if x[4] + 1 < total - x[3]]
        check('progress: the time left at least what the run still took', not short,
              f'(elapsed, left, still) {short[:3]}')
        check(f'progress: elapsed at the end {end[1]} s = the model\'s clock {total:.0f} s',
              abs(end[1] - total) <= 1)
        what = [x[0] for x in lines]
        check('progress: names size and test (64 throughput, 1518 latency 50%, '
              '64 loss, 1518 back-to-back)',
              all(w in what for w in ('64 throughput', '1518 latency 50%', '64 loss',
                                      '1518 back-to-back')), f'{sorted(set(what))}')

    # 11. on a terminal the progress line is rewritten in place
    rc, err, doc, rows, b = run_tool(tool, ['--max-rate', '10000', '-r', '10', '-D', '5',
                                            '--frame-size', '64', 'throughput'],
                                     model_bench(tool, ndr, bucket), tty=True)
    prog = [p for p in err.split('\r\033[K') if p.startswith('progress:')]
    check(f'terminal: {len(prog)} progress texts, each rewritten by \\r, no newline '
          'but after the last', rc == 0 and len(prog) == len(doc['trials']) + 1 and
          all('\n' not in p for p in prog[:-1]) and prog[-1].startswith('progress: done')
          and '\nprogress' not in err, repr(err[:200]))

    # 12. -q: neither trial lines nor progress
    rc, err, doc, rows, b = run_tool(tool, ['-q', '--max-rate', '10000', '-r', '10', '-D', '5',
                                            '--frame-size', '64', 'throughput'],
                                     model_bench(tool, ndr, bucket))
    check('-q: no progress line', rc == 0 and 'progress' not in err and doc['trials'],
          err[:200])

    # 13. --quick: 10 s trials; with -D: refused; the old --latency-load
    rc, err, doc, rows, b = run_tool(tool, ['--quick', '--max-rate', '10000', '-r', '10',
                                            '--frame-size', '64', '--latency-load', '90',
                                            'throughput', 'latency'],
                                     model_bench(tool, ndr, bucket))
    offered = {t['offered'] / t['rate_pps'] for t in doc['trials']} if doc else set()
    check(f'--quick: duration_s {doc and doc["duration_s"]}, trials of {sorted(offered)} s',
          doc and doc['duration_s'] == 10 and all(abs(x - 10) < 0.01 for x in offered))
    lat = [(r['load_pct'], r['offered_pps']) for r in doc['results'] if r['test'] == 'latency']
    ndr64 = next(r['throughput_pps'] for r in doc['results'] if r['test'] == 'throughput-ndr')
    check(f'--latency-load 90 (one load): {lat}', lat == [(90, int(ndr64 * 0.9))])
    rc, err, doc, rows, b = run_tool(tool, ['--quick', '-D', '3'], model_bench(tool, ndr, bucket))
    check(f'--quick with -D: exit {rc} (usage)', rc == 2 and 'not allowed with' in err, err)
    for bad in ('0', '101', 'ten', '50,'):
        rc, err, doc, rows, b = run_tool(tool, ['--latency-loads', bad],
                                         model_bench(tool, ndr, bucket))
        check(f'--latency-loads {bad!r}: exit {rc} (usage)', rc == 2 and doc is None, err)

    # 14. loads of --rate; a DUT without NDR: every load skipped, the run ends
    rc, err, doc, rows, b = run_tool(tool, ['-D', '2', '--rate', '2000', '--latency-loads',
                                            '100,25', '--frame-size', '64', '--trials', '2',
                                            'latency'], model_bench(tool, ndr, bucket))
    res = [r for r in doc['results'] if r['test'] == 'latency']
    lat = [(r['load_pct'], r['offered_pps'], r['trials']) for r in res]
    check(f'--rate 2000 --latency-loads 100,25 --trials 2: {lat}, in that order',
          lat == [(100, 2000, 2), (25, 500, 2)])
    sums = [(sum(n for _, _, n in r['latency_histogram']),
             sum(t['rx'] for t in doc['trials'] if t['rate_pps'] == r['offered_pps']))
            for r in res]
    check(f'--trials 2: each load\'s histogram the sum of its two trials\' {sums}',
          all(h == n > 0 for h, n in sums) and len(sums) == 2)
    rc, err, doc, rows, b = run_tool(tool, ['-D', '2', '--max-rate', '1000', '-r', '10',
                                            '--frame-size', '64', 'throughput', 'latency'],
                                     model_bench(tool, ndr, bucket, loss=0.05))
    lat = [r for r in doc['results'] if r['test'] == 'latency']
    lines, end = progress_of(err)
    check(f'no NDR: {len(lat)} latency rows, none measured, no latency trial; progress '
          'done at 0', rc == 0 and len(lat) == 4 and
          not any('offered_pps' in r for r in lat) and
          not any(t['test'] == 'latency' for t in doc['trials']) and end is not None
          and end[0] == len(doc['trials']), err[-300:])


def plan_checks():
    # 15. the plan's bounds hold the searches' trials
    for r, top, res in ((6250, 9000, 0.02), (248, 400, 0.02), (1000, 100000, 0.01),
                        (8999, 9000, 0.01), (1, 100000, 0.001)):
        for accepts in ((0.0,), (0.0, 5.0)):
            dut = Model(lambda rate, frames, r=r: frames if rate <= r else
                        frames - int(frames * (rate - r) / rate) - 1)
            m.throughput(dut, top, res, accepts)
            bound = m.throughput_trials_max(top, res, accepts)
            check(f'plan: throughput max {top} at {res:g}, accepts {accepts}: '
                  f'{dut.trials} trials <= {bound}', dut.trials <= bound)
    limit = 1
    while 9000 / 2 ** limit > 180:
        limit += 1
    check(f'plan: throughput 9000 at 2%: bound {m.throughput_trials_max(9000, 0.02)} '
          f'= {limit + 1} (log2(1/resolution) + 1)', m.throughput_trials_max(9000, 0.02) ==
          limit + 1)
    for b, top, res in ((173, 5000, 0.0), (1, 100, 0.0), (0, 64, 0.0), (1234, 10000, 0.01),
                        (4999, 5000, 0.0)):
        dut = Model(lambda rate, n, b=b: min(n, b))
        m.back_to_back(dut.burst, top, res)
        bound = m.back_to_back_trials_max(top)
        check(f'plan: back-to-back bucket {b} of {top}: {dut.trials} trials <= {bound}',
              dut.trials <= bound)
    check('plan: frame loss at 10% steps: 10 trials at most',
          m.frame_loss_trials_max(10) == 10 and
          len(m.frame_loss(Model(shaper(1)), 1000, 10)) <= 10)
    check('loads: "10, 50,90%,100,50" -> 10, 50, 90, 100',
          m.parse_loads('10, 50,90%,100,50') == [10, 50, 90, 100])
    h = m.merge_histograms([[[10, 11, 2], [20, 22, 1]], [[10, 11, 3], [5, 6, 4]], None])
    check(f'histograms merged: {h}', h == [[5, 6, 4], [10, 11, 5], [20, 22, 1]])
    check('clock text: 3725.4 s is 1:02:05', m.clock_text(3725.4) == '1:02:05')


if __name__ == '__main__':
    sys.exit(main())
