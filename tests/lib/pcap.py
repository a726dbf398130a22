#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Decode a classic pcap file (tcpdump -w, linktype EN10MB).

Prints one JSON object per frame (or, with --summary, one JSON object that
describes the whole capture).  Per-frame keys:

  n          frame number (from 1)
  len        captured length; wire_len: original length
  dst, src   Ethernet addresses, lower-case, colon separated
  ethertype  int (after any 802.1Q/802.1ad tags); vlans: list of
             {"tpid", "pcp", "dei", "vid"} (outermost first), if any
  ip         IPv4 only: version, ihl, tos, tot_len, id, frag (the whole
             16-bit flags+offset field), df, mf, frag_off, ttl, proto,
             csum, csum_ok, src, dst, options (hex, "" if none)
  udp        sport, dport, len, csum, csum_ok (null when csum is 0)
  pktgen     if the UDP payload starts with magic be9be955: seq, tv_sec,
             tv_usec, pad_zero (every byte after the 16-byte header is 0),
             pad_len
  payload_len  length of the UDP payload (if UDP)

--summary keys: frames, ethertypes {hex: count}, lens {len: count}, and for
pktgen frames: pktgen, seq_first, seq_last, seq_in_order (each seq is one
more than the previous), seq_unique, src/dst/sport/dport value counts.
"""

import json
import struct
import sys
from collections import Counter

PKTGEN_MAGIC = 0xBE9BE955


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


def read_pcap(path):
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
    linktype = struct.unpack(end + "I", data[20:24])[0]
    if linktype != 1:
        raise ValueError("%s: linktype %d, not EN10MB" % (path, linktype))
    off = 24
    while off + 16 <= len(data):
        _, _, incl, orig = struct.unpack(end + "IIII", data[off:off + 16])
        off += 16
        frame = data[off:off + incl]
        off += incl
        if len(frame) < incl:
            break  # truncated last record (capture still running)
        yield frame, orig


def decode_udp(pkt, ipsrc, ipdst, rec):
    if len(pkt) < 8:
        return
    sport, dport, ulen, csum = struct.unpack("!HHHH", pkt[:8])
    ok = None
    if csum != 0:
        seg = pkt[:ulen] if 8 <= ulen <= len(pkt) else pkt
        pseudo = ipsrc + ipdst + struct.pack("!BBH", 0, 17, len(seg))
        ok = csum16(pseudo + seg) == 0xFFFF
    rec["udp"] = {"sport": sport, "dport": dport, "len": ulen,
                  "csum": csum, "csum_ok": ok}
    payload = pkt[8:ulen] if 8 <= ulen <= len(pkt) else pkt[8:]
    rec["payload_len"] = len(payload)
    if len(payload) >= 16 and struct.unpack("!I", payload[:4])[0] == PKTGEN_MAGIC:
        seq, sec, usec = struct.unpack("!III", payload[4:16])
        pad = payload[16:]
        rec["pktgen"] = {"seq": seq, "tv_sec": sec, "tv_usec": usec,
                         "pad_zero": not any(pad), "pad_len": len(pad)}


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
    return rec


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
        s["src"] = Counter(r["ip"]["src"] for r in pg)
        s["dst"] = Counter(r["ip"]["dst"] for r in pg)
        s["sport"] = Counter(r["udp"]["sport"] for r in pg)
        s["dport"] = Counter(r["udp"]["dport"] for r in pg)
        s["pad_zero"] = all(r["pktgen"]["pad_zero"] for r in pg)
    return s


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
