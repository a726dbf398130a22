#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Stateful fuzzer for pktgen: a weighted grammar over every
file and command of /proc/net/pktgen, interleaved with device, namespace,
xfrm and tc/XDP events, most commands written while devices run.

    pgstate.py [options]            run (in the netns of the test)
    pgstate.py --replay LOG ...     run the actions of LOG again, in order

Options: --seed N (else FUZZ_SEED, else random), --seconds S, --actions N,
--log FILE (the action log: one JSON line per action, replayable),
--ns1 NAME (ours), --ns2 NAME (the netns of the veth peer, where pgrx
receives), --nsim DEV
(a netdevsim device: ethtool -L), --xdp PIN (a pinned XDP program),
--tc PIN (a pinned tc program: tcx links on 6.6 and newer, else a clsact
filter), --bpfprog PATH (tests/lib/bpfprog.py, to attach and detach tcx
links), --helper PATH (lib.sh's pgwrite, for the user-namespace writers).

Every proc write is one write(2) (os.write) and its errno is recorded.
Blocking writes ("start" to pgctrl, "inject") run in child processes that
a "stop" (or SIGINT after a bound) ends; ip/ethtool/tc run with a timeout:
one that does not return means RTNL (or another lock) is held: a hang.
Exit status: 0 clean, 1 a check failed (what failed is printed with the
seed and the action log's tail), 2 usage.  The last line on stdout is
"figures: actions N writes N events N reads N starts N errnos {...}".
"""
import argparse
import ctypes
import json
import os
import random
import re
import signal
import subprocess
import sys
import time

PG = "/proc/net/pktgen"
OWN = ("pgctrl", "pgrx", "pgstats")
# the option classifier of pf_ipoption.ko, loaded beside pktgen
IPOPT_FILE = "/proc/net/ipopt"
CLONE_NEWNET = 0x40000000
PTR = re.compile(rb"ffff[0-9a-f]{12}")
HANG_S = 30             # an ip/ethtool/tc command longer than this: a hang
STOP_S = 15             # a start/inject still blocked this long after stop

DEVS = ["d0", "d1", "v0"]
STACKED = ["vl5", "br0"]
NAMES = ["d0", "d1", "v0", "x0", "pgrx", "pgctrl", "ipopt", "pgstats",
         "kpktgend_0", "kpktgend_1", "d0@1", "v0@2", "lo"]
FLAGS = ["IPV6", "IPSRC_RND", "IPDST_RND", "UDPSRC_RND", "UDPDST_RND",
         "MACSRC_RND", "MACDST_RND", "TXSIZE_RND", "MPLS_RND", "VID_RND",
         "SVID_RND", "FLOW_SEQ", "FLOW_RND", "QUEUE_MAP_RND",
         "QUEUE_MAP_CPU", "UDPCSUM", "NO_TIMESTAMP", "NS_TIMESTAMP",
         "IPSEC", "NODE_ALLOC", "SHARED"]


def devcmd(r):
    """One device command: valid mostly, edges sometimes."""
    n = r.choice([0, 1, 2, 7, 10, 64, 1000, 100000])
    pick = r.choice
    return pick([
        lambda: f"count {pick([0, 1, 10, 100, 1000, 20000, 10**9])}",
        lambda: f"pkt_size {pick([14, 42, 60, 64, 100, 1500, 1514, 9000, 65000])}",
        lambda: f"min_pkt_size {pick([60, 64, 200, 1500])}",
        lambda: f"max_pkt_size {pick([60, 200, 1500, 9000])}",
        lambda: f"frags {pick([0, 1, 2, 4, 17, 100])}",
        lambda: f"clone_skb {pick([0, 1, 10, 1000])}",
        lambda: f"burst {pick([1, 2, 8, 32, 64, 1000])}",
        lambda: f"delay {pick([0, 1000, 100000, 10**9])}",
        lambda: f"rate {pick([1, 10, 1000])}",
        lambda: f"ratep {pick([1, 100, 100000])}",
        lambda: f"xmit_mode {pick(['start_xmit', 'netif_receive', 'queue_xmit'])}",
        lambda: f"xmit_mode {pick(['start_xmit', 'netif_receive', 'queue_xmit'])}",
        lambda: f"flag {pick(['', '!'])}{pick(FLAGS)}",
        lambda: f"flag {pick(['', '!'])}{pick(FLAGS)}",
        lambda: f"dst {pick(['198.18.0.1', '10.0.0.2', '0.0.0.0'])}",
        lambda: f"dst_min 198.18.0.{pick([1, 10])}",
        lambda: f"dst_max 198.18.{pick([0, 255])}.254",
        lambda: f"src_min 10.0.0.{pick([1, 5])}",
        lambda: f"src_max 10.0.{pick([0, 3])}.254",
        lambda: f"dst6 2001:db8::{pick([1, 2])}",
        lambda: f"dst6_min 2001:db8::1",
        lambda: f"dst6_max 2001:db8::{pick(['ff', 'ffff'])}",
        lambda: f"src6 2001:db8:1::{pick([1, 2])}",
        lambda: f"dst_mac 02:00:00:00:00:{pick(['01', '09'])}",
        lambda: f"src_mac 02:00:00:00:00:02",
        lambda: f"src_mac_count {pick([0, 16])}",
        lambda: f"dst_mac_count {pick([0, 16])}",
        lambda: f"udp_src_min {pick([9, 1000])}",
        lambda: f"udp_src_max {pick([9, 1009, 65535])}",
        lambda: f"udp_dst_min {pick([9, 1000])}",
        lambda: f"udp_dst_max {pick([9, 1009])}",
        lambda: f"vlan_id {pick([100, 4095, 0xffff])}",
        lambda: f"vlan_p {pick([0, 3, 7])}",
        lambda: f"vlan_cfi {pick([0, 1])}",
        lambda: f"svlan_id {pick([200, 4095, 0xffff])}",
        lambda: f"svlan_p {pick([0, 5])}",
        lambda: f"mpls {pick(['0001000a', '0001000a,0002000b', '0', 'ffffffff'])}",
        lambda: f"imix_weights {pick(['64,7 576,4 1500,1', '60,1', '9000,1 60,1', ''])}",
        lambda: f"queue_map_min {pick([0, 1, 3])}",
        lambda: f"flag {pick(['', '!'])}{pick(['QUEUE_MAP_RND', 'QUEUE_MAP_CPU'])}",
        lambda: f"queue_map_max {pick([0, 3, 7, 100])}",
        lambda: f"flows {pick([0, 1, 1024])}",
        lambda: f"flowlen {pick([0, 8])}",
        lambda: f"spi {pick([0, 256, 257, 0xffffffff])}",
        lambda: f"duration {pick([0, 1, 100000, 10**12])}",
        lambda: f"tos {pick([0, 10])}",
        lambda: f"traffic_class {pick([0, 20])}",
        lambda: f"skb_priority {pick([0, 7])}",
        lambda: f"node {pick([0, 1, -1])}",
        lambda: pick(["ip_opt rr:4", "ip_opt ts:3", "ip_opt ra", "ip_opt none",
                      "ip_opt lsrr:10.0.0.1,10.0.0.2", "ip_opt hex:94040000",
                      "ip_opt hex:" + "01" * 40]),
        lambda: "clear_counters",
        lambda: f"debug {pick([0, 1])}",
        lambda: f"count {n}",
    ])()


PGRX = ["rx v1", "rx v0", "rx d0", "rx d1", "rx lo", "rx_disable v1",
        "rx_disable", "rx_reset", "statistics counter", "statistics basic",
        "statistics time", "display script", "display human"]
IPOPT = ["on", "off", "reset", "verdict rr drop", "verdict ts queue:3 bypass",
         "verdict any accept", "verdict ra accept", "display script",
         "display human"]


class Fail(Exception):
    pass


class Fuzzer:
    def __init__(self, a):
        self.a = a
        self.log = open(a.log, "w") if a.log else None
        self.n = self.writes = self.events = self.reads = self.starts = 0
        self.errnos = {}
        self.resmiss = {}
        self.bg = []            # [Popen, what, stop_time or None]
        self.hist = []          # the last actions, for a failure report
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.home = os.open("/proc/self/ns/net", os.O_RDONLY)
        self.extra_ns = []      # netns this run created (and may delete)
        self.pkts = {}

    # ------------------------------------------------------------ helpers
    def record(self, act, res, t):
        self.n += 1
        now = time.monotonic()
        line = json.dumps({"i": self.n, "t": round(t - self.t0, 3),
                           "dt": round(now - t, 3), "run": len(self.bg),
                           "act": act, "res": res})
        self.hist.append(line)
        del self.hist[:-40]
        if self.log:
            self.log.write(line + "\n")
            self.log.flush()

    def setns(self, path):
        fd = os.open(path, os.O_RDONLY)
        try:
            if self.libc.setns(fd, CLONE_NEWNET):
                raise OSError(ctypes.get_errno(), "setns " + path)
        finally:
            os.close(fd)

    def pgwrite(self, ns, f, data):
        """One write(2) of DATA to PG/F (in netns NS, None: ours); errno."""
        e = 0
        try:
            if ns:
                self.setns("/run/netns/" + ns)
            fd = os.open(os.path.join(PG, f), os.O_WRONLY)
            try:
                os.write(fd, data.encode())
            except OSError as x:
                e = x.errno
            finally:
                os.close(fd)
        except OSError as x:
            e = x.errno or -1
        finally:
            if ns:
                self.libc.setns(self.home, CLONE_NEWNET)
        self.writes += 1
        self.errnos[e] = self.errnos.get(e, 0) + 1
        return e

    def pgread(self, ns, f):
        try:
            if ns:
                self.setns("/run/netns/" + ns)
            with open(os.path.join(PG, f), "rb") as fh:
                t = fh.read()
        except OSError:
            return None
        finally:
            if ns:
                self.libc.setns(self.home, CLONE_NEWNET)
        self.reads += 1
        bad = [c for c in t if not (c in (9, 10) or 32 <= c < 127)]
        if bad or PTR.search(t):
            raise Fail(f"read of {f}: not printable text or a kernel pointer: {t[:400]!r}")
        return t.decode()

    def result(self, ns, f):
        t = self.pgread(ns, f)
        if t is None:
            return None
        m = re.search(r"^Result: (.*)$", t, re.M)
        return m.group(1) if m else None

    def sample_pkts(self):
        """pkts_sofar of every run seen in pgstats (a lower bound of the
        packets sent: a run removed between two samples is missed)."""
        t = self.pgread(None, "pgstats") or ""
        for blk in t.split("\n\n")[1:]:
            kv = dict(l.split("=", 1) for l in blk.splitlines() if "=" in l)
            key = (kv.get("device"), kv.get("started_us"))
            try:
                n = int(kv.get("pkts_sofar", 0))
            except ValueError:
                continue
            self.pkts[key] = max(self.pkts.get(key, 0), n)

    def files(self, ns=None):
        try:
            if ns:
                self.setns("/run/netns/" + ns)
            return sorted(os.listdir(PG))
        except OSError:
            return []
        finally:
            if ns:
                self.libc.setns(self.home, CLONE_NEWNET)

    def pgdevs(self, ns=None):
        return [f for f in self.files(ns) if f not in OWN and not f.startswith("kpktgend_")]

    def run(self, argv, ns=None, ok=(0,), timeout=HANG_S):
        """An ip/ethtool/tc/...: a hang (lock held) fails the run."""
        if ns:
            argv = ["ip", "netns", "exec", ns] + argv
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             stdin=subprocess.DEVNULL)
        try:
            p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.slow(p, argv, timeout)
        self.events += 1
        return p.returncode

    def stacks(self, pid):
        """PID, its descendants and pktgen's threads: comm and kernel stack."""
        kids, out = {pid}, []
        procs = {}
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    st = open(f"/proc/{d}/stat").read()
                    procs[int(d)] = (int(st.rsplit(")", 1)[1].split()[1]),
                                     st.split("(", 1)[1].rsplit(")", 1)[0])
                except (OSError, ValueError, IndexError):
                    pass
        for _ in range(5):
            kids |= {q for q, (pp, _) in procs.items() if pp in kids}
        for q, (pp, comm) in sorted(procs.items()):
            if q in kids or comm.startswith("kpktgend"):
                try:
                    stk = open(f"/proc/{q}/stack").read().strip()
                except OSError:
                    stk = "?"
                out.append(f"{q} {comm}: " + " < ".join(
                    l.split("] ", 1)[-1].split("+")[0] for l in stk.splitlines()[:8]))
        return out

    def slow(self, p, argv, timeout):
        """A command past its bound: slow (a busy TCG guest) or a hang?
        A hang if `ip link show lo` (RTNL) does not return either."""
        st = self.stacks(p.pid)
        try:
            subprocess.run(["ip", "link", "show", "lo"], stdout=subprocess.DEVNULL,
                           timeout=60)
            p.wait(60)
            self.note(f"slow: {' '.join(argv)[:80]} took over {timeout} s, then returned")
            return
        except subprocess.TimeoutExpired:
            pass
        p.kill()
        raise Fail(f"hang: {' '.join(argv)} did not return in {timeout + 60} s, and "
                   "`ip link show lo` neither (RTNL held); stacks:\n  " + "\n  ".join(st))

    # ------------------------------------------------------------ background
    def running(self):
        self.bg = [b for b in self.bg if self.reap(b)]
        return len(self.bg)

    def reap(self, b):
        """Keep B (True) while its process runs; a bound on stopped ones."""
        p, what, since = b
        if p.poll() is not None:
            return False
        if since is not None and time.monotonic() - since > STOP_S:
            p.send_signal(signal.SIGINT)
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                raise Fail(f"hang: {what} still blocked {STOP_S + 10} s after "
                           "stop and SIGINT")
            self.note(f"{what}: needed SIGINT {STOP_S} s after stop")
            return False
        return True

    def bgwrite(self, ns, f, data):
        pre = ["ip", "netns", "exec", ns] if ns else []
        p = subprocess.Popen(pre + ["sh", "-c", f"printf '%s\\n' '{data}' > {os.path.join(PG, f)}"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             stdin=subprocess.DEVNULL)
        self.bg.append([p, f"{ns or 'ns'}:{f} {data}", None])
        self.starts += 1

    def stopped(self, ns):
        """A stop in NS bounds the writers of NS (not another netns's)."""
        now = time.monotonic()
        for b in self.bg:
            if b[2] is None and b[1].startswith(f"{ns or 'ns'}:"):
                b[2] = now

    def note(self, s):
        self.notes.append(s)

    # ------------------------------------------------------------ actions
    def resolve(self, act):
        """The log names the test's netns and pin as @ns2 and @xdp (a
        replay runs in a new test's)."""
        m = {"@ns1": self.a.ns1, "@ns2": self.a.ns2, "@xdp": self.a.xdp,
             "@tc": self.a.tc, "@bpfprog": self.a.bpfprog}

        def sub(y):
            if isinstance(y, str) and "@" in y:
                for k, v in m.items():
                    y = y.replace(k, v or "")
            return y
        return [[sub(y) for y in x] if isinstance(x, list) else sub(x) for x in act]

    def act(self, logact):
        act = self.resolve(logact)
        k = act[0]
        res = None
        if k in ("cmd", "read", "netns") or (k == "w" and act[3] in ("reset", "rem_device_all")):
            self.sample_pkts()
        t = time.monotonic()
        if k == "w":            # ns, file, text
            _, ns, f, text = act
            res = self.pgwrite(ns, f, text + "\n")
            if f == "pgctrl" and text in ("stop", "reset"):
                self.stopped(ns)
            if res and f not in ("pgctrl",):
                r = self.result(ns, f)
                if r is not None and not r.startswith("ERROR") and res not in (1, 13):
                    key = f"{res} {r[:60]}"
                    self.resmiss[key] = self.resmiss.get(key, 0) + 1
        elif k == "bg":         # ns, file, text: blocking (start, inject)
            self.bgwrite(act[1], act[2], act[3])
        elif k == "read":
            for f in self.files(act[1]):
                self.pgread(act[1], f)
        elif k == "cmd":        # ns, argv
            res = self.run(act[2], act[1])
        elif k == "userns":     # order, file, text: must be refused
            _, order, f, text = act
            h = self.a.helper
            if order == "Un":
                argv = ["unshare", "-U", "-r", "-n", h, os.path.join(PG, f)]
            elif order == "U":
                argv = ["unshare", "-U", "-r", h, os.path.join(PG, f)]
            else:
                argv = ["unshare", "-n", "unshare", "-U", "-r", h, os.path.join(PG, f)]
            try:
                p = subprocess.run(argv, input=(text + "\n").encode(),
                                   stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, timeout=HANG_S)
            except subprocess.TimeoutExpired:
                raise Fail(f"hang: {' '.join(argv)}")
            res = p.returncode
            self.events += 1
            # "Un": root of a user namespace in a netns of its own drives
            # pktgen there (security.sh), on its own devices only: our d0
            # is no device of its.  "U" (our netns) and "nU" (a netns of
            # the init user namespace): EPERM/EACCES, or ENOENT (a device
            # file renamed away, or not in the fresh netns).
            if order == "Un":
                if res == 0 and text.startswith("add_device") and f.startswith("kpktgend"):
                    raise Fail(f"user namespace writer ({order}) could add our {text}")
            elif res not in (1, 13, 2):
                if res == 0:
                    raise Fail(f"user namespace writer ({order}) got '{text}' "
                               f"into {f} accepted")
                self.note(f"userns {order} {f} '{text}': exit {res}")
        elif k == "netns":      # add NAME | del NAME
            _, op, name = act
            if op == "add":
                self.run(["ip", "netns", "add", name])
                self.run(["ip", "-n", name, "link", "add", "e0", "type", "dummy"])
                self.run(["ip", "-n", name, "link", "set", "e0", "up"])
                self.pgwrite(name, "kpktgend_0", "add_device e0\n")
                self.pgwrite(name, "e0", "count 0\n")
                self.bgwrite(name, "pgctrl", "start")
                self.extra_ns.append(name)
            else:
                if op == "stopdel":
                    ran = any(re.search(r"^Running: .*e0", self.pgread(name, f) or "", re.M)
                              for f in self.files(name) if f.startswith("kpktgend_"))
                    res = self.pgwrite(name, "pgctrl", "stop\n")
                    self.stopped(name)
                    res = f"stop: errno {res}, e0 ran before: {ran}"
                    for b in self.bg:
                        if b[1].startswith(name + ":"):
                            b[1] += f" (e0 ran at the stop: {ran})"
                # its writer holds the netns: bound it like a stopped one
                for b in self.bg:
                    if b[1].startswith(name + ":") and b[2] is None:
                        b[2] = time.monotonic()
                self.run(["ip", "netns", "del", name])
                if name in self.extra_ns:
                    self.extra_ns.remove(name)
        elif k == "sleep":
            time.sleep(act[1])
        self.record(logact, res, t)

    def gen(self, r):
        """The next action, from the state (what runs, which files exist)."""
        run = self.running()
        ns2 = "@ns2" if self.a.ns2 else None
        devs = self.pgdevs()
        w = r.random()
        # most commands while a device runs: start one first, mostly
        if not run and devs and r.random() < 0.6:
            if r.random() < 0.2:
                return ("bg", None, r.choice(devs), "inject")
            return ("bg", None, "pgctrl", "start")
        if w < 0.55 and devs:
            return ("w", None, r.choice(devs), devcmd(r))
        if w < 0.63:
            if r.random() < 0.3:
                return ("w", None, f"kpktgend_{r.randint(0, 1)}", "rem_device_all")
            nm = r.choice(NAMES + STACKED) if r.random() < 0.3 else \
                r.choice(DEVS) + r.choice(["", "", "@1", "@3"])
            return ("w", None, f"kpktgend_{r.randint(0, 1)}", "add_device " + nm)
        if w < 0.67:
            return ("w", None, "pgctrl", r.choice(["stop", "stop", "reset"]))
        if w < 0.71:
            return ("w", ns2 if r.random() < 0.7 else None, "pgrx", r.choice(PGRX))
        if w < 0.74:
            return ("w", None, IPOPT_FILE, r.choice(IPOPT))
        if w < 0.77:
            return ("read", r.choice([None, None, ns2]))
        if w < 0.79 and devs and run:
            return ("bg", None, r.choice(devs), "inject")
        if w < 0.88:
            return self.devevent(r)
        if w < 0.91:
            return ("userns", r.choice(["Un", "U", "nU"]),
                    r.choice(["pgctrl", "kpktgend_0", "pgrx", IPOPT_FILE, "d0"]),
                    r.choice(["reset", "start", "add_device d0", "rx v0", "on", "count 1"]))
        if w < 0.93:
            if self.extra_ns and r.random() < 0.6:
                return ("netns", r.choice(["del", "stopdel", "stopdel"]),
                        r.choice(self.extra_ns))
            return ("netns", "add", f"pgt-sf{r.randint(0, 9999):04d}")
        if w < 0.96:
            if r.random() < 0.4:
                return ("cmd", None, ["ip", "xfrm", "state", "flush"])
            spi = r.choice([256, 257, 0x1000])
            return ("cmd", None, ["ip", "xfrm", "state", "add", "src", "10.0.0.1",
                                  "dst", r.choice(["198.18.0.1", "10.0.0.2"]),
                                  "proto", "esp", "spi", str(spi), "mode", "transport",
                                  "enc", "ecb(cipher_null)", "", "auth", "hmac(sha1)",
                                  "0x0102030405060708090a0b0c0d0e0f1011121314"])
        return self.hookevent(r)

    def devevent(self, r):
        d = r.choice(DEVS + ([self.a.nsim] if self.a.nsim else []))
        c = r.choice(["down", "up", "up", "rename", "rename", "delre", "mtu",
                      "sg", "tx", "sg", "tso", "gso", "queues"])
        ip = ["ip", "link", "set", "dev"]
        if c == "down":
            return ("cmd", None, ip + [d, "down"])
        if c == "up":
            return ("cmd", None, ip + [d, "up"])
        if c == "rename":
            # to a colliding name, to one of pktgen's file names, or back
            nm = r.choice(["x0", "pgrx", "pgctrl", "ipopt", "kpktgend_0", "d1", "pgstats"])
            if r.random() < 0.5:
                return ("cmd", None, ["sh", "-c", f"ip link set dev {d} down; "
                                      f"ip link set dev {d} name {nm} && "
                                      f"ip link set dev {nm} name {d}; "
                                      f"ip link set dev {d} up"])
            return ("cmd", None, ["sh", "-c", f"ip link set dev {d} down; "
                                  f"ip link set dev {d} name {nm}; "
                                  f"ip link set dev {nm} up"])
        if c == "delre" and d in ("d0", "d1"):
            return ("cmd", None, ["sh", "-c", f"ip link del {d}; ip link add {d} type dummy; "
                                  f"sysctl -qw net.ipv6.conf.{d}.disable_ipv6=1; "
                                  f"ip link set {d} up"])
        if c == "mtu":
            return ("cmd", None, ip + [d, "mtu", str(r.choice([68, 576, 1280, 1500, 9000]))])
        if c in ("sg", "tx", "tso", "gso"):
            return ("cmd", None, ["ethtool", "-K", d, c, r.choice(["on", "off"])])
        if c == "queues" and self.a.nsim and r.random() < 0.5:
            return ("cmd", None, ["ethtool", "-L", self.a.nsim, "combined",
                                  str(r.choice([1, 2, 3, 4]))])
        if c == "queues":       # the veth has 4 queues each way
            n = str(r.choice([1, 2, 3, 4]))
            return ("cmd", None, ["ethtool", "-L", "v0", "rx", n, "tx", n])
        # a name a rename left behind comes back (one ip call)
        have = set(os.listdir("/sys/class/net"))
        gone = [x for x in DEVS + ([self.a.nsim] if self.a.nsim else []) if x not in have]
        left = [x for x in ("x0", "pgrx", "pgctrl", "ipopt", "kpktgend_0", "pgstats")
                if x in have]
        if gone and left:
            n, g = r.choice(left), r.choice(gone)
            return ("cmd", None, ["sh", "-c", f"ip link set dev {n} down; "
                                  f"ip link set dev {n} name {g}; ip link set dev {g} up"])
        return ("cmd", None, ["ip", "link", "set", "dev", d, "up"])

    def stackevent(self, r):
        """Devices stacked on ours, qdiscs, moves between netns."""
        d = r.choice(["d0", "d1", "v0"])
        c = r.choice(["vlan", "novlan", "bridge", "nobridge", "netem", "tbf",
                      "fq_codel", "pfifo", "noqdisc", "move", "moveback"])
        if c == "vlan":
            return ("cmd", None, ["sh", "-c", "ip link add link d0 name vl5 type vlan id 5 "
                                  "&& ip link set vl5 up"])
        if c == "novlan":
            return ("cmd", None, ["ip", "link", "del", "vl5"])
        if c == "bridge":
            return ("cmd", None, ["sh", "-c", "ip link add br0 type bridge 2>/dev/null; "
                                  "ip link set br0 up; ip link set d1 master br0"])
        if c == "nobridge":
            return ("cmd", None, ["ip", "link", "set", "d1", r.choice(["nomaster", "down"])]
                    if r.random() < 0.5 else ["ip", "link", "del", "br0"])
        if c == "netem":
            return ("cmd", None, ["tc", "qdisc", "replace", "dev", d, "root", "netem",
                                  "delay", r.choice(["1ms", "20ms"]), "limit", "10000"])
        if c == "tbf":
            return ("cmd", None, ["tc", "qdisc", "replace", "dev", d, "root", "tbf",
                                  "rate", r.choice(["1mbit", "100mbit"]), "burst", "32k",
                                  "latency", "50ms"])
        if c in ("pfifo", "fq_codel"):
            return ("cmd", None, ["tc", "qdisc", "replace", "dev", d, "root", c])
        if c == "noqdisc":
            return ("cmd", None, ["tc", "qdisc", "del", "dev", d, "root"])
        if c == "move" and self.a.ns1:
            return ("cmd", None, ["ip", "link", "set", "dev", r.choice(["d1", "vl5"]),
                                  "netns", "@ns2"])
        return ("cmd", None, ["sh", "-c", "for d in d1 vl5; do ip -n @ns2 link set dev $d "
                              "netns @ns1 && ip link set $d up; done"])

    def hookevent(self, r):
        if r.random() < 0.5:
            return self.stackevent(r)
        d = r.choice(["d0", "d1", "v0"])
        c = r.choice(["clsact", "noclsact", "u32", "xdp", "noxdp", "tcx", "notcx"])
        if c == "clsact":
            return ("cmd", None, ["tc", "qdisc", "add", "dev", d, "clsact"])
        if c == "noclsact":
            return ("cmd", None, ["tc", "qdisc", "del", "dev", d, "clsact"])
        if c == "u32":
            return ("cmd", None, ["tc", "filter", "add", "dev", d,
                                  r.choice(["ingress", "egress"]), "protocol", "ip",
                                  "u32", "match", "u32", "0", "0", "action", "pass"])
        if c == "xdp" and self.a.xdp:
            return ("cmd", None, ["ip", "link", "set", "dev", d, "xdpgeneric",
                                  "pinned", "@xdp"])
        # tcx: a link per device, pinned beside the program (6.6 and newer)
        if c in ("tcx", "notcx") and self.a.tc and self.a.bpfprog:
            verb = ["tcx-link", "@tc", d] if c == "tcx" else ["link-detach"]
            return ("cmd", None, ["python3", "-S", "@bpfprog"] + verb + [f"@tc-{d}"])
        return ("cmd", None, ["ip", "link", "set", "dev", d, "xdpgeneric", "off"])

    # ------------------------------------------------------------ main
    def main(self):
        a = self.a
        self.notes = []
        self.t0 = time.monotonic()
        end = self.t0 + a.seconds
        r = random.Random(a.seed)
        print(f"pgstate: seed {a.seed}, {a.seconds} s, at most {a.actions} actions",
              flush=True)
        rc = 0
        try:
            if a.replay:
                with open(a.replay) as fh:
                    acts = [json.loads(l)["act"] for l in fh if l.strip()]
                for act in acts:
                    self.act(act)
            else:
                while self.n < a.actions and time.monotonic() < end:
                    self.act(self.gen(r))
            # the end: stop everything, every blocked writer must return
            self.act(("w", None, "pgctrl", "stop"))
            for ns in list(self.extra_ns):
                self.act(("netns", "stopdel", ns))
            t = time.monotonic()
            while self.running():
                if time.monotonic() - t > STOP_S + 15:
                    raise Fail("hang: writers still blocked after the final stop")
                time.sleep(0.2)
            self.act(("read", None))
        except Fail as e:
            rc = 1
            print(f"FAIL: {e}", flush=True)
            print(f"FAIL: seed {a.seed}; the last actions:", flush=True)
            for l in self.hist[-25:]:
                print("  " + l)
        for b in self.bg:
            b[0].kill()
        for ns in self.extra_ns:
            subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL)
        for s in self.notes[:20]:
            print("note: " + s)
        for k, v in sorted(self.resmiss.items(), key=lambda x: -x[1])[:15]:
            print(f"result after a failed write not ERROR: {v}x errno {k}")
        print(f"figures: actions {self.n} writes {self.writes} events {self.events} "
              f"reads {self.reads} starts {self.starts} packets "
              f"{sum(self.pkts.values())} seconds "
              f"{time.monotonic() - self.t0:.0f} errnos "
              f"{json.dumps(dict(sorted(self.errnos.items())))}", flush=True)
        return rc


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int,
                   default=int(os.environ.get("FUZZ_SEED") or random.SystemRandom().randrange(1 << 32)))
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--actions", type=int, default=10**9)
    p.add_argument("--log")
    p.add_argument("--replay")
    p.add_argument("--ns1")
    p.add_argument("--ns2")
    p.add_argument("--nsim")
    p.add_argument("--xdp")
    p.add_argument("--tc")
    p.add_argument("--bpfprog")
    p.add_argument("--helper", default="/tmp/pktgen-lib/pgwrite")
    a = p.parse_args()
    sys.exit(Fuzzer(a).main())


if __name__ == "__main__":
    main()
