#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Decode a classic pcap file (tcpdump -w, linktype EN10MB).

Prints one JSON object per frame (or, with --summary, one JSON object that
describes the whole capture).  Per-frame keys:

  n          frame number (from 1)
  len        captured length; wire_len: original length
  dst, src   Ethernet addresses, lower-case, colon separated
  ethertype  int (after any 802.1Q/802.1ad tags; 0x8847 with MPLS);
             vlans: list of {"tpid", "pcp", "dei", "vid"} (outermost
             first), if any
  mpls       if ethertype is 0x8847/0x8848: the label stack down to the
             first word with the S bit, outermost first, each {"word",
             "label", "tc", "s", "ttl"}; the IP header after it is decoded
             by its version nibble
  ip         IPv4 only: version, ihl, tos, tot_len, id, frag (the whole
             16-bit flags+offset field), df, mf, frag_off, ttl, proto,
             csum, csum_ok, src, dst, options (hex, "" if none)
  ip6        IPv6 only: version, tc, flow, plen, nh, hlim, src, dst
             (RFC 5952 text, as %pI6c prints them)
  udp        sport, dport, len, csum, csum_ok (null when csum is 0),
             pseudo (the folded pseudo-header sum, which is what a
             CHECKSUM_PARTIAL skb carries in the field); IPv4 or IPv6
  pktgen     if the UDP payload starts with magic be9be955: seq, tv_sec,
             tv_usec, pad_zero (every padding byte is 0), pad_len;
             ext: if the 16 bytes after the header start with be9be956
             (NS_TIMESTAMP): {"stream", "tv_nsec", "zero"} (the 4 fields
             are magic, stream id, tv_nsec, reserved) and the padding
             starts after it
  payload_len  length of the UDP payload (if UDP)

--summary keys: frames, ethertypes {hex: count}, lens {len: count}, and for
pktgen frames: pktgen, seq_first, seq_last, seq_in_order (each seq is one
more than the previous), seq_unique, src/dst/sport/dport value counts.

Imported as a module (sys.path.insert(0, tests/lib); import pcap), it also
gives test checkers: frames(path) (the decoded records), raw(path) (the
frame bytes), records(path) (with each frame's time: bench/gaps.py),
field(rec, "ip6.src" / "vlans.0.vid"), first_bad(), split_runs() (runs
told apart by the seq restarting) and check_runs(), the run-by-run
driver described at check_runs.
"""

import json
import socket
import struct
import sys
import traceback
from collections import Counter

PKTGEN_MAGIC = 0xBE9BE955
PKTGEN_EXT_MAGIC = 0xBE9BE956


def mac(b):
    return ":".join("%02x" % x for x in b)


def ip4(b):
    return ".".join(str(x) for x in b)


def csum16(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def records(path):
    """(timestamp in ns, frame, original length) of every record; the
    timestamps in microseconds or, with magic a1b23c4d (tcpdump
    --time-stamp-precision=nano), nanoseconds."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        raise ValueError("%s: not a pcap file (too short)" % path)
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        end = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        end = ">"
    else:
        raise ValueError("%s: not a classic pcap file" % path)
    scale = 1 if magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d") else 1000
    linktype = struct.unpack(end + "I", data[20:24])[0]
    if linktype != 1:
        raise ValueError("%s: linktype %d, not EN10MB" % (path, linktype))
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack(end + "IIII", data[off:off + 16])
        off += 16
        frame = data[off:off + incl]
        off += incl
        if len(frame) < incl:
            break  # truncated last record (capture still running)
        yield sec * 1_000_000_000 + frac * scale, frame, orig


def read_pcap(path):
    """(frame, original length) of every record."""
    for _, frame, orig in records(path):
        yield frame, orig


def decode_pktgen(payload, rec):
    if len(payload) < 16 or struct.unpack("!I", payload[:4])[0] != PKTGEN_MAGIC:
        return
    seq, sec, usec = struct.unpack("!III", payload[4:16])
    pg = {"seq": seq, "tv_sec": sec, "tv_usec": usec}
    pad = payload[16:]
    if len(pad) >= 16 and struct.unpack("!I", pad[:4])[0] == PKTGEN_EXT_MAGIC:
        stream, nsec, zero = struct.unpack("!III", pad[4:16])
        pg["ext"] = {"stream": stream, "tv_nsec": nsec, "zero": zero}
        pad = pad[16:]
    pg["pad_zero"] = not any(pad)
    pg["pad_len"] = len(pad)
    rec["pktgen"] = pg


def decode_udp(pkt, ipsrc, ipdst, rec):
    """UDP over IPv4 (4-byte addresses) or IPv6 (16-byte addresses)."""
    if len(pkt) < 8:
        return
    sport, dport, ulen, csum = struct.unpack("!HHHH", pkt[:8])
    seg = pkt[:ulen] if 8 <= ulen <= len(pkt) else pkt
    if len(ipsrc) == 4:
        pseudo = ipsrc + ipdst + struct.pack("!BBH", 0, 17, len(seg))
    else:
        pseudo = ipsrc + ipdst + struct.pack("!IxxxB", len(seg), 17)
    ok = None
    if csum != 0:
        ok = csum16(pseudo + seg) == 0xFFFF
    rec["udp"] = {"sport": sport, "dport": dport, "len": ulen,
                  "csum": csum, "csum_ok": ok, "pseudo": csum16(pseudo)}
    payload = pkt[8:ulen] if 8 <= ulen <= len(pkt) else pkt[8:]
    rec["payload_len"] = len(payload)
    decode_pktgen(payload, rec)


def decode_ipv4(pkt, rec):
    if len(pkt) < 20:
        return
    vihl, tos, tot, ident, frag, ttl, proto, csum = struct.unpack(
        "!BBHHHBBH", pkt[:12])
    ihl = vihl & 0xF
    hlen = ihl * 4
    hdr = pkt[:hlen]
    rec["ip"] = {
        "version": vihl >> 4, "ihl": ihl, "tos": tos, "tot_len": tot,
        "id": ident, "frag": frag, "df": bool(frag & 0x4000),
        "mf": bool(frag & 0x2000), "frag_off": frag & 0x1FFF,
        "ttl": ttl, "proto": proto, "csum": csum,
        "csum_ok": len(hdr) == hlen and csum16(hdr) == 0xFFFF,
        "src": ip4(pkt[12:16]), "dst": ip4(pkt[16:20]),
        "options": pkt[20:hlen].hex(),
    }
    body = pkt[hlen:tot] if hlen <= tot <= len(pkt) else pkt[hlen:]
    if proto == 17 and (frag & 0x1FFF) == 0:
        decode_udp(body, pkt[12:16], pkt[16:20], rec)


def ip6(b):
    return socket.inet_ntop(socket.AF_INET6, bytes(b))


def decode_ipv6(pkt, rec):
    if len(pkt) < 40:
        return
    word, plen, nh, hlim = struct.unpack("!IHBB", pkt[:8])
    rec["ip6"] = {
        "version": word >> 28, "tc": (word >> 20) & 0xFF,
        "flow": word & 0xFFFFF, "plen": plen, "nh": nh, "hlim": hlim,
        "src": ip6(pkt[8:24]), "dst": ip6(pkt[24:40]),
    }
    body = pkt[40:40 + plen] if 40 + plen <= len(pkt) else pkt[40:]
    if nh == 17:
        decode_udp(body, pkt[8:24], pkt[24:40], rec)


def decode_ip(pkt, rec):  # by the version nibble (after MPLS)
    if pkt and pkt[0] >> 4 == 4:
        decode_ipv4(pkt, rec)
    elif pkt and pkt[0] >> 4 == 6:
        decode_ipv6(pkt, rec)


def decode_mpls(pkt, rec):
    stack, off = [], 0
    while off + 4 <= len(pkt):
        word = struct.unpack("!I", pkt[off:off + 4])[0]
        off += 4
        stack.append({"word": word, "label": word >> 12, "tc": (word >> 9) & 7,
                      "s": (word >> 8) & 1, "ttl": word & 0xFF})
        if word & 0x100:
            break
    rec["mpls"] = stack
    decode_ip(pkt[off:], rec)


def decode(frame, orig, n):
    rec = {"n": n, "len": len(frame), "wire_len": orig}
    if len(frame) < 14:
        return rec
    rec["dst"] = mac(frame[0:6])
    rec["src"] = mac(frame[6:12])
    off = 12
    etype = struct.unpack("!H", frame[off:off + 2])[0]
    vlans = []
    while etype in (0x8100, 0x88A8) and len(frame) >= off + 6:
        tci = struct.unpack("!H", frame[off + 2:off + 4])[0]
        vlans.append({"tpid": etype, "pcp": tci >> 13, "dei": (tci >> 12) & 1,
                      "vid": tci & 0xFFF})
        off += 4
        etype = struct.unpack("!H", frame[off:off + 2])[0]
    if vlans:
        rec["vlans"] = vlans
    rec["ethertype"] = etype
    if etype == 0x0800:
        decode_ipv4(frame[off + 2:], rec)
    elif etype == 0x86DD:
        decode_ipv6(frame[off + 2:], rec)
    elif etype in (0x8847, 0x8848):
        decode_mpls(frame[off + 2:], rec)
    return rec


def pktgen_seq(frame):
    """The pktgen seq of an Ethernet (802.1Q/802.1ad tags skipped) IPv4 or
    IPv6 UDP frame, else None: what decode() finds as pktgen.seq, without
    building its record and checksums, for captures of 10^5 frames under
    TCG (bench/gaps.py)."""
    off = 12
    while frame[off:off + 2] in (b"\x81\x00", b"\x88\xa8"):
        off += 4
    etype, ip = frame[off:off + 2], off + 2
    if etype == b"\x08\x00" and len(frame) >= ip + 20:
        if frame[ip + 9] != 17 or struct.unpack("!H", frame[ip + 6:ip + 8])[0] & 0x1FFF:
            return None
        udp = ip + (frame[ip] & 0xF) * 4
    elif etype == b"\x86\xdd" and len(frame) >= ip + 40:
        if frame[ip + 6] != 17:
            return None
        udp = ip + 40
    else:
        return None
    hdr = frame[udp + 8:udp + 24]
    if len(hdr) < 16 or struct.unpack("!I", hdr[:4])[0] != PKTGEN_MAGIC:
        return None
    return struct.unpack("!I", hdr[4:8])[0]


def summary(recs):
    s = {"frames": len(recs),
         "ethertypes": Counter("%04x" % r.get("ethertype", 0) for r in recs),
         "lens": Counter(r["len"] for r in recs)}
    pg = [r for r in recs if "pktgen" in r]
    s["pktgen"] = len(pg)
    if pg:
        seqs = [r["pktgen"]["seq"] for r in pg]
        s["seq_first"], s["seq_last"] = seqs[0], seqs[-1]
        s["seq_in_order"] = all(b == a + 1 for a, b in zip(seqs, seqs[1:]))
        s["seq_unique"] = len(set(seqs)) == len(seqs)
        ips = [r.get("ip") or r.get("ip6") for r in pg]
        s["src"] = Counter(i["src"] for i in ips)
        s["dst"] = Counter(i["dst"] for i in ips)
        s["sport"] = Counter(r["udp"]["sport"] for r in pg)
        s["dport"] = Counter(r["udp"]["dport"] for r in pg)
        s["pad_zero"] = all(r["pktgen"]["pad_zero"] for r in pg)
    return s

# ---------------------------------------------------------------- checkers
def frames(path):
    """The decoded records of a capture."""
    return [decode(f, o, i + 1) for i, (f, o) in enumerate(read_pcap(path))]


def raw(path):
    """The frames of a capture as bytes."""
    return [f for f, _ in read_pcap(path)]


def field(rec, path):
    """rec["a"]["b"] for "a.b"; a number indexes a list ("vlans.0.vid")."""
    v = rec
    for k in path.split("."):
        v = v[int(k)] if isinstance(v, list) else v[k]
    return v


def lookup(rec, path):
    """field(), but None where there is no such field."""
    try:
        return field(rec, path)
    except (KeyError, IndexError, TypeError):
        return None


def first_bad(frs, pred, what):
    """None if pred(f) holds for every frame, else why the first fails."""
    for f in frs:
        try:
            ok, why = pred(f), what
        except (KeyError, IndexError, TypeError, ValueError) as e:
            ok, why = False, "%s (missing %s)" % (what, e)
        if not ok:
            return "frame %d: %s: %s" % (f["n"], why, json.dumps(f))
    return None if frs else "no frames"


def layout_ok(f):
    """Every length field agrees with the frame size, padding is zero,
    an IPv4 header checksum is valid."""
    tags = 4 * (len(f.get("vlans", [])) + len(f.get("mpls", [])))
    if "ip" in f:
        ulen = f["ip"]["tot_len"] - 4 * f["ip"]["ihl"]
        ok = f["ip"]["csum_ok"] and f["ip"]["tot_len"] == f["len"] - 14 - tags
    else:
        ulen = f["ip6"]["plen"]
        ok = ulen == f["len"] - 14 - tags - 40
    pg = f["pktgen"]
    hdr = 32 if "ext" in pg else 16
    return (ok and f["udp"]["len"] == ulen and pg["pad_zero"] and
            pg["pad_len"] == ulen - 8 - hdr and f["wire_len"] == f["len"])


def split_runs(frs):
    """The frames that are not pktgen's, and the pktgen ones cut into runs
    where the seq restarts at 1 (one capture of runs sent one after the
    other: wire-ipv4.sh, wire-ranges.sh)."""
    other, parts = [], []
    for f in frs:
        if "pktgen" not in f:
            other.append(f)
        elif f["pktgen"]["seq"] == 1 or not parts:
            parts.append([f])
        else:
            parts[-1].append(f)
    return other, parts


class Run:
    """PASS/FAIL/SKIP lines for one run: "PASS <lab>: <name>",
    "FAIL <lab>: <name>|<why>" (tests/lib/lib.sh ktap_report)."""

    def __init__(self, lab):
        self.lab = lab

    def check(self, name, why):
        if why is None:
            print("PASS %s: %s" % (self.lab, name))
        else:
            print("FAIL %s: %s|%s" % (self.lab, name, str(why).replace("\n", " ")))

    def skip(self, name, why):
        print("SKIP %s: %s|%s" % (self.lab, name, why))

    def each(self, name, frs, pred, what="unexpected"):
        self.check(name, first_bad(frs, pred, what))


def _streams(rep, fr, r):
    key, n, k = r.get("key", "udp.sport"), r["n"], r.get("streams", 1)
    groups = {}
    for f in fr:
        groups.setdefault(field(f, key), []).append(f["pktgen"]["seq"])
    want = list(range(1, n + 1))
    why = None
    if len(groups) != k:
        why = "%d streams by %s: %s" % (len(groups), key, sorted(groups))
    for g, seqs in sorted(groups.items()):
        if k > 1:  # streams from several CPUs may interleave out of order
            seqs = sorted(seqs)
        if why is None and seqs != want:
            why = "%s=%s: %d frames, seqs %s" % (key, g, len(seqs), seqs[:20])
    what = "%d frames, seq 1..%d" % (n, n)
    rep.check(what if k == 1 else what + " in each of %d streams" % k, why)


def _fields(rep, fr, r):
    def same(f, want):
        bad = [(p, lookup(f, p), v) for p, v in want.items() if lookup(f, p) != v]
        if bad:
            raise ValueError("(field, got, want): %s" % bad)
        return True
    for name, want in r.get("all", []):
        rep.each(name, fr, lambda f, w=want: same(f, w))
    for path, v in r.get("eq", {}).items():
        rep.each("%s %s" % (path, v), fr, lambda f, p=path, v=v: field(f, p) == v, path)
    for path, vals in r.get("seq", {}).items():
        got = [field(f, path) for f in fr]
        want = [vals[k % len(vals)] for k in range(len(got))]
        rep.check("%s sequence %s ..." % (path, ", ".join(map(str, vals))),
                  None if got and got == want else "got %s" % got[:40])
    for path, vals in r.get("set", {}).items():
        got = [field(f, path) for f in fr]
        out = sorted(set(str(v) for v in got if v not in vals))
        miss = sorted(set(str(v) for v in vals if v not in got))
        why = None
        if out or miss or not got:
            why = "outside: %s; never seen: %s" % (out, miss)
        rep.check("%s within %s, each seen" % (path, vals), why)
    for path, k in r.get("distinct", {}).items():
        got = set(str(field(f, path)) for f in fr)
        rep.check("%s takes at least %d distinct values" % (path, k),
                  None if len(got) >= k else "only %s" % sorted(got))


RUN_FRAMES = {}  # check_runs: label -> (capture path, the run's frames)


def hw_csum(rep, fr, r):
    """Case for UDPCSUM on a device that offloads it: the frame carries
    the pseudo-header sum (CHECKSUM_PARTIAL), as the driver received it."""
    rep.each("udp checksum = pseudo-header sum (CHECKSUM_PARTIAL)", fr,
             lambda f: f["udp"]["csum"] == f["udp"]["pseudo"])


# cases every checker has, by name
SHARED_CASES = {"hw_csum": hw_csum}


def check_runs(argv, cases=None):
    """Driver for a test's frame checker: argv = [captures JSON, runs JSON].

    captures: {"name": "file.pcap", ...}.  runs: a list of {"lab", "cap"
    (a capture name), "n", "port" (the udp dport that marks the run's
    frames; pktgen frames only), optional "skip" (reason: one SKIP line),
    "streams" (k streams of n frames each, told apart by "key",
    default udp.sport; each has the seqs 1..n in any order; a run of one
    stream is checked in the order sent: its frames sorted by seq, so
    the seq check finds losses and duplicates, not reordering), "all" [[name, {path: value, ...}], ...] (one
    check per group: every frame has every value; null: no such field),
    "eq" {path: value},
    "seq" {path: [values...] repeated}, "set" {path: [values]: all
    inside, all seen}, "distinct" {path: k}, "case" (name of a function
    in cases: fn(Run, frames, run) for what does not fit the above)}.
    Every run gets the seq check and the layout check (layout_ok).  A case
    finds other runs' frames in RUN_FRAMES (by label)."""
    caps, runs = json.loads(argv[0]), json.loads(argv[1])
    cases = dict(SHARED_CASES, **(cases or {}))
    byport = {}
    for name, path in caps.items():
        for f in frames(path):
            if "pktgen" in f and "udp" in f:
                byport.setdefault((name, f["udp"]["dport"]), []).append(f)
    for r in runs:
        if not r.get("skip"):
            fr = byport.get((r["cap"], r["port"]), [])
            if r.get("streams", 1) == 1:
                # in the order sent: a veth peer with NAPI (GRO on, several
                # queues) may hand frames to the capture out of order
                fr.sort(key=lambda f: f["pktgen"]["seq"])
            RUN_FRAMES[r["lab"]] = (caps[r["cap"]], fr)
    for r in runs:
        rep = Run(r["lab"])
        if r.get("skip"):
            rep.skip("on the wire", r["skip"])
            continue
        fr = RUN_FRAMES[r["lab"]][1]
        try:
            _streams(rep, fr, r)
            rep.each("lengths agree with the frame size, zero padding, "
                     "IPv4 header checksum", fr, layout_ok, "layout")
            _fields(rep, fr, r)
            if r.get("case"):
                cases[r["case"]](rep, fr, r)
        except Exception:  # a checker bug must show, not end the report
            rep.check("checker", traceback.format_exc())


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("-")]
    if "-h" in argv or "--help" in argv or len(args) != 1:
        print("usage: pcap.py [--summary] FILE\n" + __doc__)
        return 0 if len(args) == 1 or "-h" in argv or "--help" in argv else 2
    try:
        recs = [decode(f, o, i + 1) for i, (f, o) in
                enumerate(read_pcap(args[0]))]
    except (OSError, ValueError) as e:
        print("pcap.py: %s" % e, file=sys.stderr)
        return 1
    if "--summary" in argv:
        print(json.dumps(summary(recs), sort_keys=True))
    else:
        for r in recs:
            print(json.dumps(r, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
