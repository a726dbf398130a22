#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise bench/guest.sh's runs.csv: stock pktgen.ko against ours.

    report.py [--meta FILE]... [--md OUT] [--csv OUT] [--png OUT] RUNS.CSV
    report.py --half-pps CELL RUNS.CSV

Prints the Markdown report (throughput with median, min-max and the ratio
ours/stock per cell, and where the cell has one the floor, bench/floor's
cheapest send on the device, with stock and ours as a percentage of it;
scaling from one to two threads; rate accuracy) and
optionally saves it, a summary CSV (one line per cell) and a PNG bar chart
of the ratios (tools/pgplot.py, matplotlib).  --meta
files hold key=value lines (guest.sh writes one, run.sh another).
--half-pps prints half the slower module's median pps of CELL.
"""

import argparse
import csv
import os
import statistics
import sys

MODULES = ("stock", "ours")
# bench/floor/pg_floor.ko's rows: the device's cheapest send, no pktgen
FLOOR = "floor"
# bench/afp_send.c's rows: user space's fastest send (AF_PACKET, qdisc
# bypassed, sendmmsg), in the xmit 1t cells
AFP = "afpacket"
# how the first module is named in the report: "stock", or the baseline
# revision of bench/run.sh --baseline (then both modules are ours)
BASE = "stock"


def load_runs(path):
    """{cell: {module: [row, ...]}} in the order cells first appear."""
    cells = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            cells.setdefault(row["cell"], {m: [] for m in MODULES + (FLOOR, AFP)})
            cells[row["cell"]].setdefault(row["module"], []).append(row)
    return cells


def load_meta(paths):
    meta = {}
    for p in paths or ():
        with open(p) as f:
            for line in f:
                k, sep, v = line.rstrip("\n").partition("=")
                if sep:
                    meta[k] = v
    return meta


class Stat:
    """Median, min and max of one module's successful runs of a cell."""

    def __init__(self, rows, key="pps", scale=1.0):
        ok = [r for r in rows if r["status"] == "ok"]
        vals = [float(r[key]) / scale for r in ok]
        self.n = len(vals)
        self.median = statistics.median(vals) if vals else None
        self.min = min(vals) if vals else None
        self.max = max(vals) if vals else None
        bad = [r for r in rows if r["status"] != "ok"]
        self.note = f"{bad[0]['status']}: {bad[0]['note']}" if bad else ""

    def text(self, unit=""):
        if self.median is None:
            return self.note or "no runs"
        s = f"{num(self.median)}{unit}"
        if self.n > 1:
            s += f" ({num(self.min)}-{num(self.max)})"
        if self.note:
            s += f" [{self.note}]"
        return s


def num(v):
    return f"{v:.0f}" if v >= 100 else f"{v:.3g}"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt_ratio(r):
    return "n/a" if r is None else f"{r:.2f}"


def pct(a, floor):
    """a as a percentage of the floor, or None"""
    r = ratio(a, floor)
    return None if r is None else r * 100


def fmt_pct(p):
    return "" if p is None else f"{p:.1f}%"


def split(cell):
    dev, mode, size, threads = cell.split("/")
    return dev, mode, size, threads


def is_rate(cell):
    return split(cell)[1].startswith("rate")


def throughput(cells):
    """The table's rows; the floor's columns are empty where a cell has no
    floor rows (netif_receive, queue_xmit, 2t, a run without it), the
    AF_PACKET ones where it has no afpacket rows (all but xmit 1t)."""
    out = [f"| cell | {BASE} pps | ours pps | ours/{BASE} | floor pps "
           f"| {BASE} % of floor | ours % of floor | AF_PACKET pps "
           "| AF_PACKET % of floor |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    rows = []
    for cell, by in cells.items():
        if is_rate(cell):
            continue
        s, o, f, a = Stat(by["stock"]), Stat(by["ours"]), Stat(by[FLOOR]), Stat(by[AFP])
        r = ratio(o.median, s.median)
        ftext = f.text() if by[FLOOR] else ""
        atext = a.text() if by[AFP] else ""
        out.append(f"| {cell} | {s.text()} | {o.text()} | {fmt_ratio(r)} | {ftext} "
                   f"| {fmt_pct(pct(s.median, f.median))} "
                   f"| {fmt_pct(pct(o.median, f.median))} | {atext} "
                   f"| {fmt_pct(pct(a.median, f.median))} |")
        rows.append((cell, s, o, r, f, a))
    return out, rows


# The 2t cells of two devices (dummy2: dummy0 and dummy1) and of one
# device's two queues (dummymq) scale from dummy's 1t cells.
ONE_THREAD_OF = {"dummy2": "dummy", "dummymq": "dummy"}


def scaling(cells):
    out = [f"| 2t cell | {BASE} 1t | {BASE} 2t | {BASE} 2t/1t | ours 1t | ours 2t "
           "| ours 2t/1t |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    n = 0
    for two in cells:
        dev, mode, size, threads = split(two)
        one = f"{ONE_THREAD_OF.get(dev, dev)}/{mode}/{size}/1t"
        if threads != "2t" or one not in cells:
            continue
        line = f"| {dev}/{mode}/{size} |"
        for m in MODULES:
            a, b = Stat(cells[one][m]), Stat(cells[two][m])
            f = lambda s: "n/a" if s.median is None else num(s.median)
            line += f" {f(a)} | {f(b)} | {fmt_ratio(ratio(b.median, a.median))} |"
        out.append(line)
        n += 1
    return out if n else []


def rate_accuracy(cells):
    out = [f"| cell | requested | {BASE} achieved | {BASE} error | ours achieved "
           "| ours error |", "| --- | ---: | ---: | ---: | ---: | ---: |"]
    rows = []
    for cell, by in cells.items():
        if not is_rate(cell):
            continue
        mbps = not split(cell)[1].startswith("ratep")
        req = next((r["requested"] for m in MODULES for r in by[m]
                    if r["requested"] not in ("", "none")), None)
        unit = " Mb/s" if mbps else " pps"
        line = f"| {cell} | {req + unit if req else 'n/a'} |"
        for m in MODULES:
            st = Stat(by[m], "bps", 1e6) if mbps else Stat(by[m])
            err = None
            if req and st.median is not None:
                err = (st.median - float(req)) / float(req) * 100
            line += f" {st.text(unit)} | {'n/a' if err is None else f'{err:+.1f}%'} |"
            rows.append((cell, m, req, st, err))
        out.append(line)
    return (out if rows else []), rows


def gap_rows(by):
    """Each module's successful runs that captured gaps."""
    return {m: [r for r in by[m] if r["status"] == "ok"
                and r.get("gap_samples") not in (None, "", "0")] for m in MODULES}


def pacing(cells):
    """The gaps between consecutive packets as the veth peer captured them:
    the achieved interval and its spread, per module (median of runs)."""
    out = [f"| cell | requested gap | {BASE} gap avg | {BASE} gap stddev | ours gap avg "
           "| ours gap stddev |", "| --- | ---: | ---: | ---: | ---: | ---: |"]
    rows = []
    for cell, by in cells.items():
        runs = gap_rows(by)
        if not any(runs.values()):
            continue
        req = next((r["requested"] for m in MODULES for r in by[m]
                    if r["requested"] not in ("", "none")), None)
        line = f"| {cell} | {num(1e6 / float(req)) + ' us' if req else 'n/a'} |"
        for m in MODULES:
            avg = Stat(runs[m], "gap_avg_ns", 1000)
            sd = Stat(runs[m], "gap_sd_ns", 1000)
            line += f" {avg.text(' us')} | {sd.text(' us')} |"
            rows.append((cell, m, avg, sd))
        out.append(line)
    return (out if rows else []), rows


def header(meta):
    kv = meta.get("kernel", "?")
    what = "stock pktgen.ko" if BASE == "stock" else f"ours at {BASE}"
    lines = [f"# pktgen benchmark: {what} vs ours, {kv}", ""]
    items = [
        ("Date", meta.get("date")),
        ("Kernel", kv),
        ("Modules", f"{BASE} {meta.get('stock', '?')}; ours {meta.get('ours', '?')}"),
        ("VM", meta.get("vm", "virtme-ng") + f", {meta.get('guest_vcpus', '?')} vCPUs, "
         f"{meta.get('guest_mem', '?')} memory"),
        ("Guest CPU", meta.get("guest_cpu")),
        ("Host CPU", meta.get("host_cpu")),
        ("Host load (uptime)", meta.get("host_load")),
        ("Command", meta.get("command") and f"`{meta['command']}`"),
        ("Method", f"{meta.get('runs', '?')} runs per module and cell, "
         f"{meta.get('secs', '?')} s each (count 0, ended by `stop`), {BASE} "
         "and ours alternating per group of cells (ABBA); median (min-max) "
         "of the Result's pps; 64 and 1500 are frame sizes with FCS "
         "(pkt_size 60 and 1496)"
         + (f"; the floor (bench/floor/pg_floor.ko: one prebuilt frame straight "
            f"to the driver's start_xmit, {meta['floor'].rpartition(', ')[2]}, "
            "no accounting; the same seconds) a third in the rotation"
            if meta.get("floor") else "")
         + ("; in the xmit 1t cells AF_PACKET (bench/afp_send.c: one prebuilt "
            "frame on a PACKET_QDISC_BYPASS socket, sendmmsg batches of 32) "
            "one more" if meta.get("afpacket") else "")),
    ]
    lines += [f"- {k}: {v}" for k, v in items if v]
    return lines


def markdown(cells, meta):
    tp, tp_rows = throughput(cells)
    sc = scaling(cells)
    ra, ra_rows = rate_accuracy(cells)
    pc, pc_rows = pacing(cells)
    md = header(meta) + ["", "## Throughput", ""] + tp
    if sc:
        md += ["", "## Scaling from one to two threads (median pps)", ""] + sc
    if ra:
        md += ["", "## Rate accuracy (median achieved vs requested)", ""] + ra
    if pc:
        md += ["", "## Pacing as received (gaps between consecutive packets, "
               "captured on the veth peer; median of runs)", ""] + pc
    return "\n".join(md) + "\n", tp_rows, ra_rows, pc_rows


def write_csv(path, tp_rows, ra_rows, pc_rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["cell", "kind", "requested", "stock_median", "stock_min",
                    "stock_max", "stock_runs", "ours_median", "ours_min",
                    "ours_max", "ours_runs", "ratio", "floor_median",
                    "floor_min", "floor_max", "floor_runs", "stock_pct_floor",
                    "ours_pct_floor", "afpacket_median", "afpacket_min",
                    "afpacket_max", "afpacket_runs", "afpacket_pct_floor"])
        g = lambda v: "" if v is None else f"{v:.0f}" if v >= 100 else f"{v:.4g}"
        p = lambda v: "" if v is None else f"{v:.1f}"
        for cell, s, o, r, f, a in tp_rows:
            w.writerow([cell, "pps", "", g(s.median), g(s.min), g(s.max), s.n,
                        g(o.median), g(o.min), g(o.max), o.n,
                        "" if r is None else f"{r:.3f}",
                        g(f.median), g(f.min), g(f.max), f.n or "",
                        p(pct(s.median, f.median)), p(pct(o.median, f.median)),
                        g(a.median), g(a.min), g(a.max), a.n or "",
                        p(pct(a.median, f.median))])
        by = {}
        for cell, m, req, st, _ in ra_rows:
            by.setdefault(cell, {"req": req})[m] = st
        for cell, d in by.items():
            s, o = d["stock"], d["ours"]
            r = ratio(o.median, s.median)
            kind = "ratep" if split(cell)[1].startswith("ratep") else "rate_mbps"
            w.writerow([cell, kind, d["req"] or "", g(s.median), g(s.min),
                        g(s.max), s.n, g(o.median), g(o.min), g(o.max), o.n,
                        "" if r is None else f"{r:.3f}"] + [""] * 11)
        gaps = {}
        for cell, m, avg, sd in pc_rows:
            gaps.setdefault(cell, {})[m] = (avg, sd)
        for cell, d in gaps.items():
            for i, kind in enumerate(("gap_avg_us", "gap_stddev_us")):
                s, o = d["stock"][i], d["ours"][i]
                r = ratio(o.median, s.median)
                w.writerow([cell, kind, "", g(s.median), g(s.min), g(s.max), s.n,
                            g(o.median), g(o.min), g(o.max), o.n,
                            "" if r is None else f"{r:.3f}"] + [""] * 11)


def write_png(path, tp_rows, title):
    """A horizontal bar per cell: ours/stock, a line at 1.0.  Drawn by
    tools/pgplot.py (matplotlib); False, and why on stderr, without it."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "tools"))
    import pgplot as pg  # pylint: disable=import-outside-toplevel

    data = [(c, r) for c, _, _, r, _, _ in tp_rows if r is not None]
    if not data:
        return True
    try:
        pg.ratio_bars(path, [c for c, _ in data], [r for _, r in data],
                      f"ours / {BASE} (median packets/s, 1 = same)", title)
    except pg.NoPlot as e:
        print(f"report.py: {e}", file=sys.stderr)
        return False
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs")
    ap.add_argument("--meta", action="append")
    ap.add_argument("--md")
    ap.add_argument("--csv")
    ap.add_argument("--png")
    ap.add_argument("--half-pps", metavar="CELL")
    a = ap.parse_args()
    cells = load_runs(a.runs)
    if a.half_pps:
        by = cells.get(a.half_pps)
        meds = [Stat(by[m]).median for m in MODULES] if by else [None]
        if None in meds:
            return 1
        print(int(min(meds) / 2))
        return 0
    global BASE
    meta = load_meta(a.meta)
    BASE = meta.get("baseline", "stock")
    md, tp_rows, ra_rows, pc_rows = markdown(cells, meta)
    sys.stdout.write(md)
    if a.md:
        with open(a.md, "w") as f:
            f.write(md)
    if a.csv:
        write_csv(a.csv, tp_rows, ra_rows, pc_rows)
    ok = True
    if a.png:
        ok = write_png(a.png, tp_rows,
                       f"pktgen: ours / {BASE}, {meta.get('kernel', '')}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
