# SPDX-License-Identifier: GPL-2.0
"""The method of pktgen-rfc2544, apart from pktgen: what a trial is
asked for and what is concluded from the trials.

Nothing here touches /proc.  A test is a function of a `trial` callable
(a rate or a burst length in, a Trial out), so the searches run the same
against a device under test driven by pktgen and against a model of one
(tests/host/rfc2544.sh).  Rates are packets per second; frame sizes are
Ethernet frames with the 4-byte FCS, as RFC 2544 and pktgen-sweep count
them (pktgen's pkt_size is 4 less).
"""

import csv
import io
import json

FCS = 4
L1_OVERHEAD = 20		# preamble 7, start delimiter 1, inter-frame gap 12
RFC2544_SIZES = (64, 128, 256, 512, 1024, 1280, 1518)
# the simple IMIX: 64, 594 and 1518-byte frames (with FCS; IP packets of
# 46, 576 and 1500 bytes) weighted 7:4:1
IMIX = ((64, 7), (594, 4), (1518, 1))
LATENCY_KEYS = ('min', 'avg', 'max', 'p50', 'p90', 'p99', 'p999', 'jitter')
LATENCY_LOADS = (10.0, 50.0, 90.0, 100.0)	# percent of the throughput found
DURATION = 60.0		# s a trial, RFC 2544 section 24
QUICK_DURATION = 10.0	# s a trial, --quick
FIELDS = ['test', 'frame_size', 'accept_loss_pct', 'load_pct', 'offered_pps',
          'throughput_pps', 'throughput_mbps', 'line_pct', 'loss_pct', 'back_to_back',
          'trials'] + [f'latency_{k}_ns' for k in LATENCY_KEYS]


class Trial:
    """One trial: `offered` frames at `rate` pps (or a burst), `tx` sent,
    `rx` received once each; latency figures (ns) when measured, and
    pgrx's histogram ([lo_ns, hi_ns, count] buckets) when read."""

    def __init__(self, rate, offered, tx, rx, tx_pps=None, latency=None, elapsed=0.0,
                 histogram=None):
        self.rate, self.offered, self.tx, self.rx = rate, offered, tx, rx
        self.tx_pps = tx_pps if tx_pps is not None else rate
        self.latency = latency or {}
        self.elapsed = elapsed
        self.histogram = histogram

    @property
    def lost(self):
        return max(0, self.tx - self.rx)

    @property
    def loss_pct(self):
        return 100.0 * self.lost / self.tx if self.tx else 100.0

    def passes(self, accept_pct):
        """At most accept_pct percent lost (0: none), and something sent."""
        return self.tx > 0 and self.lost <= accept_pct / 100.0 * self.tx + 1e-9

    def as_dict(self):
        d = {'rate_pps': self.rate, 'offered': self.offered, 'tx': self.tx, 'rx': self.rx,
             'tx_pps': self.tx_pps, 'lost': self.lost, 'loss_pct': round(self.loss_pct, 4),
             'elapsed': round(self.elapsed, 3)}
        d.update({f'latency_{k}' if k == 'samples' else f'latency_{k}_ns': v
                  for k, v in self.latency.items()})
        return d


# ------------------------------------------------------------------ sizes
def parse_sizes(text):
    """'64,512,imix' -> [64, 512, 'imix']; ValueError on anything else."""
    out = []
    for s in text.split(','):
        s = s.strip().lower()
        if s == 'imix':
            out.append('imix')
            continue
        try:
            n = int(s)
        except ValueError:
            raise ValueError(f'{s!r}: not a frame size (an integer, or imix)') from None
        if n < 64:
            raise ValueError(f'{n}: frames with FCS are 64 bytes or more')
        out.append(n)
    return out


def mean_size(size):
    """The mean frame size (with FCS) of a size or of 'imix'."""
    if size == 'imix':
        return sum(s * w for s, w in IMIX) / sum(w for _, w in IMIX)
    return float(size)


def line_pps(size, line_mbps):
    """The most frames per second a line of line_mbps (L1) carries."""
    return line_mbps * 1e6 / ((mean_size(size) + L1_OVERHEAD) * 8)


def rate_pps(spec, size, line_mbps=None):
    """The packet rate of a parse_rate() spec at size, never above the
    line's (when known) nor below 1."""
    kind, v = spec
    if kind == 'pct':
        pps = line_pps(size, line_mbps) * v / 100
    else:
        pps = v if kind == 'pps' else v / (mean_size(size) * 8)
        if line_mbps:
            pps = min(pps, line_pps(size, line_mbps))
    return max(1, int(pps))


def mbps(pps, size):
    """L2 rate in Mb/s of pps frames of size (FCS included)."""
    return pps * mean_size(size) * 8 / 1e6


def parse_rate(text):
    """'8000', '8k', '1.5M' packets per second, 'N%' of the line, or a
    bit rate of frames with FCS (L2, as throughput_mbps counts them) in
    tc's units: '3.9mbit', '500kbit', '1gbit', '64000bit'.  Returns
    ('pps', value), ('pct', value) or ('bps', value)."""
    t = text.strip().lower()
    for unit, mult in (('gbit', 1e9), ('mbit', 1e6), ('kbit', 1e3), ('bit', 1)):
        if t.endswith(unit):
            v = float(t[:-len(unit)]) * mult
            if v <= 0:
                raise ValueError(f'{text}: more than 0 bit/s')
            return 'bps', v
    t = t.removesuffix('pps')
    if t.endswith('%'):
        v = float(t[:-1])
        if not 0 < v <= 100:
            raise ValueError(f'{text}: a percentage in (0, 100]')
        return 'pct', v
    mult = {'k': 1e3, 'm': 1e6, 'g': 1e9}.get(t[-1:], 1)
    v = float(t[:-1] if mult != 1 else t) * mult
    if v < 1:
        raise ValueError(f'{text}: at least 1 packet per second')
    return 'pps', v


def parse_loads(text):
    """'10,50,90,100' -> [10.0, 50.0, 90.0, 100.0]: percentages in
    (0, 100], in the order given, each once; ValueError otherwise."""
    out = []
    for s in text.split(','):
        s = s.strip().removesuffix('%')
        try:
            v = float(s)
        except ValueError:
            raise ValueError(f'{s!r}: not a load (a percentage)') from None
        if not 0 < v <= 100:
            raise ValueError(f'{s}: a load is a percentage in (0, 100]')
        if v not in out:
            out.append(v)
    return out


# ------------------------------------------------------------------ searches
def throughput(trial, max_rate, resolution, accepts=(0.0,), report=None, left=None):
    """RFC 2544 26.1 by binary search: for each acceptable loss (percent;
    0 is the no-drop rate, NDR, a higher one a partial-drop rate, PDR)
    the highest rate in [1, max_rate] pps whose trial lost at most that.

    The first trial is at max_rate; after a failure the rate halves the
    interval between the highest rate that passed (0 at first) and the
    lowest that failed, until it is at most `resolution` (a fraction of
    max_rate, at least 1 pps) wide.  A rate is tried once and its trial
    reused by every acceptance; a larger acceptance starts from the rate
    the smaller one found (loss assumed not to fall as the rate rises).

    left(n), after every step, gets the most trials the search may still
    run (for Progress).

    Returns {accept: (rate or None, Trial or None)}: None when no rate
    passed (no NDR: the device loses frames however slowly it is fed)."""
    max_rate = int(max_rate)
    step = max(1, resolution * max_rate)
    cache = {}
    accepts = sorted(accepts)

    def tell(i, lo, hi):
        if left:
            left(halvings(hi - lo, step) +
                 (len(accepts) - 1 - i) * halvings(max_rate - lo, step))

    def run(rate, acc):
        if rate not in cache:
            cache[rate] = trial(rate)
        t = cache[rate]
        if report:
            report(acc, t)
        return t

    out, lo, best = {}, 0, None
    for i, acc in enumerate(accepts):
        hi = max_rate
        t = run(max_rate, acc)
        if t.passes(acc):
            out[acc] = (max_rate, t)
            lo, best = max_rate, t
            tell(i, lo, hi)
            continue
        tell(i, lo, hi)
        while hi - lo > step:
            mid = (lo + hi) // 2
            if mid <= lo or mid >= hi:
                break
            t = run(mid, acc)
            if t.passes(acc):
                lo, best = mid, t
            else:
                hi = mid
            tell(i, lo, hi)
        out[acc] = (lo, best) if best is not None else (None, None)
    if left:
        left(0)
    return out


def back_to_back(trial, max_frames, resolution, report=None, left=None):
    """RFC 2544 26.4: the longest burst (frames sent back to back at the
    maximum rate) with no loss, by binary search on the length in
    [1, max_frames]: the first trial is max_frames, the search stops when
    the interval is at most `resolution` x its upper end (at least 1
    frame) wide: relative to the answer, which may be far below the
    longest burst tried.  left(n) as throughput()'s.  Returns (frames,
    Trial), (0, None) if even 1 frame is lost."""
    max_frames = int(max_frames)
    t = trial(max_frames)
    if report:
        report(0.0, t)
    if t.passes(0):
        if left:
            left(0)
        return max_frames, t
    lo, hi, best = 0, max_frames, None
    while hi - lo > max(1, resolution * hi):
        if left:		# the stop only grows: res x hi > res x lo
            left(halvings(hi - lo, max(1, resolution * lo)))
        mid = (lo + hi) // 2
        if mid <= lo:
            break
        t = trial(mid)
        if report:
            report(0.0, t)
        if t.passes(0):
            lo, best = mid, t
        else:
            hi = mid
    if left:
        left(0)
    return lo, best


def frame_loss(trial, rate, step_pct=10, full=False, report=None, left=None):
    """RFC 2544 26.3: trials at 100 %, 100 - step, ... of rate down to
    step percent, stopping after two successive trials without loss
    (every step with full).  left(n) as throughput()'s.  Returns
    [(load_pct, Trial)]."""
    out, clean = [], 0
    n = int(round(100 / step_pct))
    for k in range(n, 0, -1):
        pct = k * step_pct
        t = trial(max(1, int(round(rate * pct / 100))))
        if report:
            report(pct, t)
        out.append((pct, t))
        clean = clean + 1 if t.lost == 0 else 0
        if clean >= 2 and not full:
            break
        if left:
            left(k - 1)
    if left:
        left(0)
    return out


def latency_summary(trials):
    """The latency of several trials at one rate (RFC 2544 26.2 reports
    their average): min of the minimums, max of the maximums, the mean of
    the others; None without samples."""
    lats = [t.latency for t in trials if t.latency.get('samples')]
    if not lats:
        return None
    out = {'min': min(x['min'] for x in lats), 'max': max(x['max'] for x in lats)}
    for k in ('avg', 'p50', 'p90', 'p99', 'p999', 'jitter'):
        out[k] = round(sum(x.get(k, 0) for x in lats) / len(lats))
    return out


def merge_histograms(hists):
    """pgrx histograms ([lo_ns, hi_ns, count] lists, display json) added
    bucket by bucket: the non-empty buckets, ascending."""
    acc = {}
    for h in hists:
        for lo, hi, n in h or ():
            acc[(lo, hi)] = acc.get((lo, hi), 0) + n
    return [[lo, hi, n] for (lo, hi), n in sorted(acc.items()) if n]


# ------------------------------------------------------------------ plan
def halvings(width, stop):
    """The most bisections that take an interval `width` wide to at most
    `stop` (each leaves at most the larger half, ceil(width / 2))."""
    n, width = 0, int(width)
    while width > max(1, stop):
        width -= width // 2
        n += 1
    return n


def throughput_trials_max(max_rate, resolution, accepts=(0.0,)):
    """The most trials throughput() runs: the maximum once, then for each
    acceptance at most the bisections of [0, max_rate] down to the step."""
    max_rate = int(max_rate)
    return 1 + len(accepts) * halvings(max_rate, max(1, resolution * max_rate))


def back_to_back_trials_max(max_frames):
    """The most trials back_to_back() runs: the longest burst, then the
    bisections of [0, max_frames] down to 1 frame."""
    return 1 + halvings(max_frames, 1)


def frame_loss_trials_max(step_pct):
    """The most trials frame_loss() runs: every step."""
    return int(round(100 / step_pct))


def clock_text(s):
    s = int(round(max(0.0, s)))
    return f'{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}'


class Progress:
    """The time elapsed and an estimate of the time left, from a plan of
    phases (key, the most trials it may need, seconds each): before each
    trial, the trials not run yet of the phase under way and of those
    after it, each at its seconds plus the mean overhead (settling,
    setting up) the trials so far took beyond their nominal time.  A
    phase left for the next gives up the trials it did not need, so the
    estimate shrinks as the searches end early.  write(text, final) gets
    one line a trial and a last one with 0 left."""

    def __init__(self, phases, clock, write):
        self.phases = [[k, int(n), float(s), 0] for k, n, s in phases]
        self.clock, self.write = clock, write
        self.t0 = clock()
        self.cur = 0
        self.over, self.count = 0.0, 0

    def begin(self, key):
        """Phase `key` starts: those before it are over."""
        for i in range(self.cur, len(self.phases)):
            if self.phases[i][0] == key:
                break
            self.phases[i][1] = self.phases[i][3]
        else:
            raise KeyError(key)
        self.cur = i

    def left(self):
        over = self.over / self.count if self.count else 0.0
        return sum((n - done) * (s + over) for _, n, s, done in self.phases[self.cur:])

    def planned(self):
        return sum(p[1] for p in self.phases)

    def done(self):
        return sum(p[3] for p in self.phases)

    def trial(self, what):
        """A trial of the current phase starts: the line for it."""
        p = self.phases[self.cur]
        if p[3] >= p[1]:		# more than planned: the plan grows
            p[1] = p[3] + 1
        left = self.left()
        p[3] += 1
        self.write(f'progress: {what}, trial {self.done()} of at most {self.planned()}: '
                   f'{clock_text(self.clock() - self.t0)} elapsed, {clock_text(left)} left',
                   False)

    def search_left(self, n):
        """The phase under way needs at most n more trials."""
        p = self.phases[self.cur]
        p[1] = min(p[1], p[3] + n)

    def trial_done(self, nominal, took):
        self.over += max(0.0, took - nominal)
        self.count += 1

    def finish(self):
        for p in self.phases:
            p[1] = p[3]
        self.cur = len(self.phases)
        self.write(f'progress: done, {self.done()} trials: '
                   f'{clock_text(self.clock() - self.t0)} elapsed, {clock_text(0)} left', True)


# ------------------------------------------------------------------ output
def row(test, size, **kw):
    r = dict.fromkeys(FIELDS, '')
    r.update(test=test, frame_size=size)
    r.update({k: v for k, v in kw.items() if v is not None})
    return r


def rate_fields(pps, size, line_mbps):
    if pps is None:
        return {'throughput_pps': 'none', 'throughput_mbps': 'none'}
    d = {'throughput_pps': int(pps), 'throughput_mbps': round(mbps(pps, size), 3)}
    if line_mbps:
        d['line_pct'] = round(100 * pps / line_pps(size, line_mbps), 3)
    return d


def to_csv(rows):
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=FIELDS, lineterminator='\n', extrasaction='ignore')
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def to_json(rows, trials, meta):
    def clean(r):
        return {k: v for k, v in r.items() if v != ''}
    return json.dumps({**meta, 'results': [clean(r) for r in rows], 'trials': trials},
                      indent=1) + '\n'


# ------------------------------------------------------------------ plot
def latency_series(rows, sizes):
    """The latency panel's lines, in us: at one load (or at --rate alone)
    min, p50, p99, p99.9 and max; at several, p50 and p99 of each (p99
    dashed)."""
    loads = []
    for r in rows:
        if r['test'] == 'latency' and r['load_pct'] not in loads:
            loads.append(r['load_pct'])

    def series(load, key):
        vals = []
        for s in sizes:
            v = next((r[key] for r in rows if r['test'] == 'latency' and r['frame_size'] == s
                      and r['load_pct'] == load and r[key] not in ('', 'none', None)), None)
            vals.append(float(v) / 1000.0 if v is not None else None)
        return vals
    if len(loads) <= 1:
        load = loads[0] if loads else ''
        return [('p99.9' if k == 'p999' else k, series(load, f'latency_{k}_ns'), k == 'max')
                for k in ('min', 'p50', 'p99', 'p999', 'max')]
    return [(f'{k} at {load:g}%' if load != '' else k, series(load, f'latency_{k}_ns'), k == 'p99')
            for load in loads for k in ('p50', 'p99')]


def plot(path, rows, line_mbps, title, subtitle=''):
    """A PNG at path (tools/pgplot.py, matplotlib): NDR and PDR
    (packets/s) against the frame size, with the highest rate tried and
    the line's frame rate dashed, above the latency percentiles (us).
    The size axis is numeric; imix sits at its mean frame size."""
    import pgplot
    sizes = []
    for r in rows:
        if r['frame_size'] not in sizes:
            sizes.append(r['frame_size'])
    xs = [mean_size(s) for s in sizes]
    labels = [f'imix ({mean_size(s):.0f})' if s == 'imix' else str(s) for s in sizes]

    def series(test, key, scale=1.0):
        vals = []
        for s in sizes:
            v = next((r[key] for r in rows if r['test'] == test and r['frame_size'] == s
                      and r[key] not in ('', 'none', None)), None)
            vals.append(float(v) / scale if v is not None else None)
        return vals
    tp = [('NDR', series('throughput-ndr', 'throughput_pps'), False),
          ('PDR', series('throughput-pdr', 'throughput_pps'), False),
          ('highest rate tried', series('throughput-ndr', 'offered_pps'), True)]
    notes = []
    top = max([v for _, vals, _ in tp for v in vals if v is not None] + [1])
    if line_mbps:
        line = [line_pps(s, line_mbps) for s in sizes]
        if max(line) <= 10 * top:
            tp.append(('line rate', line, True))
        else:		# it would flatten the rest: say what it is
            lo, hi = round(min(line)), round(max(line))
            notes.append(f'line rate {lo}{"-" + str(hi) if hi != lo else ""} packets/s: '
                         'off scale')
    lat = latency_series(rows, sizes)
    # a panel only for what was measured (a latency run has no throughput)
    spec = [{'ylabel': 'throughput (packets/s)', 'series': tp},
            {'ylabel': 'latency (us)', 'series': lat}]
    measured = [p for p in spec[:1] if any(v is not None for _, vals, _ in tp[:2] for v in vals)]
    if not measured:
        notes = []
    measured += [p for p in spec[1:] if any(v is not None for _, vals, _ in lat for v in vals)]
    return pgplot.panels(path, xs, measured or spec[:1], 'frame size (bytes, with FCS)',
                         title, subtitle, xticks=xs, xticklabels=labels, notes=notes)

