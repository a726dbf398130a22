#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""The packet fuzzer of the receive paths (pgrx and the ipopt classifier):
malformed and adversarial Ethernet frames from a seeded generator, sent
with an AF_PACKET socket as fast as it goes.

    rxfuzz.py IFACE DSTMAC DSTIP SEED FRAMES [SECONDS]

Every frame is drawn from one of the kinds below (the same seed gives the
same frames).  Most carry a valid IPv4 header checksum so that they pass
ip_rcv() and reach the classifier at PRE_ROUTING; the receiver's hook
sees all of them before the stack.  Prints one line per kind, then the
totals: "frames N seconds S pps P".
"""
import random
import socket
import struct
import sys
import time

from rx_inject import csum

MAGIC, EXT_MAGIC = 0xBE9BE955, 0xBE9BE956
# option types the classifier knows, and some it does not
OPT_TYPES = [0, 1, 7, 68, 130, 131, 133, 137, 148, 149, 25, 30, 94, 255]
# sequence numbers that sit on the receiver's edges
EDGE_SEQS = [0, 1, 2, 4095, 4096, 4097, 0x7FFFFFFF, 0x80000000, 0x80000001,
             0xFFFFFFFE, 0xFFFFFFFF]


class Gen:
    def __init__(self, rng, dip):
        self.r = rng
        self.dip = socket.inet_aton(dip)
        self.ep = None       # the stream episode under way
        self.in_episode = False

    # ---- pieces

    def episode(self):
        """A run of one stream: in order, with reorders, duplicates near
        and far, jumps and restarts sprinkled in at a rate of its own."""
        r = self.r
        return {"sid": r.choice([None, 1, 2, 2]), "seq": r.choice(EDGE_SEQS + [r.getrandbits(32)]),
                "left": r.choice([5, 50, 500, 5000, 9000]), "rate": r.choice([0, 0.002, 0.02, 0.2])}

    def seq_for(self):
        """(stream id, sequence number, in an episode?)"""
        r = self.r
        if r.random() < 0.3:
            # stream 2 is left to its episodes: their figures stay exact
            return r.choice([None, 1, 3, r.getrandbits(32)]), \
                r.choice(EDGE_SEQS + [r.getrandbits(32)]), False
        ep = self.ep
        if ep is None or ep["left"] <= 0:
            ep = self.ep = self.episode()
        ep["left"] -= 1
        seq = ep["seq"]
        ep["seq"] = (seq + 1) & 0xFFFFFFFF
        if r.random() < ep["rate"]:
            c = r.randrange(5)
            if c == 0:          # a copy or a straggler, near or far behind
                seq = (seq - r.choice([1, 3, 64, 4095, 4096, 4097, 5000, 1 << 31])) & 0xFFFFFFFF
            elif c == 1:        # a jump ahead
                ep["seq"] = (seq + r.choice([2, 10, 4097, 100000, 1 << 31])) & 0xFFFFFFFF
            elif c == 2:        # the sender restarted
                ep["seq"] = seq = 1
            elif c == 3:        # swapped with the next one
                seq, ep["seq"] = ep["seq"], seq
            else:               # sent twice
                ep["seq"] = seq
        return ep["sid"], seq, True

    def stamp(self):
        r = self.r
        now = time.time_ns()
        c = r.random()
        if c < 0.3:
            ns = now - r.randrange(0, 10**7)
        elif c < 0.4:
            return 0, 0                                    # NO_TIMESTAMP
        elif c < 0.55:
            ns = now + r.randrange(1, 10**18)              # the future
        elif c < 0.7:
            ns = r.randrange(0, 10**12)                    # 1970
        else:
            return r.getrandbits(32), r.getrandbits(32)    # anything, usec too
        return (ns // 10**9) & 0xFFFFFFFF, (ns % 10**9) // 1000

    def pktgen(self):
        r = self.r
        sid, seq, self.in_episode = self.seq_for()
        sec, usec = self.stamp()
        h = struct.pack("!IIII", MAGIC, seq, sec, usec)
        if sid is not None:
            nsec = r.choice([usec * 1000 % 10**9, r.getrandbits(32), 10**9, 0])
            h += struct.pack("!IIII", EXT_MAGIC if r.random() < 0.9 else r.getrandbits(32),
                             sid, nsec, r.choice([0, 0, r.getrandbits(32)]))
        return h + bytes(r.randrange(0, 64))

    def options(self):
        """IPv4 options, 0..40 bytes: TLVs with lengths 0, 1, right,
        short and over the end, and pointers anywhere."""
        r = self.r
        room = r.choice([0, 4, 8, 12, 20, 36, 40])
        o = b""
        while len(o) < room:
            t = r.choice(OPT_TYPES)
            if t in (0, 1):
                o += bytes([t])
                continue
            ln = r.choice([0, 1, 2, 3, 4, 7, 11, 39, 40, 255, r.randrange(256)])
            ptr = r.choice([0, 1, 4, 5, 9, 13, 40, 255, r.randrange(256)])
            body = bytes([t, ln, ptr]) + r.randbytes(max(0, ln - 3))
            o += body
        return o[:room] + b"\0" * (-min(len(o), room) % 4)

    def ipv4(self, payload, proto=17, opts=b"", frag=False):
        r = self.r
        ihl = 5 + len(opts) // 4
        tot = ihl * 4 + len(payload)
        c = r.random()
        if c < 0.05:
            tot = r.randrange(0, 65536)                    # a lying length
        ver_ihl = 0x40 | ihl
        if r.random() < 0.03:
            ver_ihl = r.getrandbits(8)                     # IHL 0..15, any version
        fl = 0
        if frag:
            fl = r.choice([0x2000, 0x2000 | r.randrange(1, 0x2000), r.randrange(1, 0x2000)])
        hdr = struct.pack("!BBHHHBBH4s4s", ver_ihl, 0, tot & 0xFFFF, r.getrandbits(16), fl,
                          64, proto, 0, socket.inet_aton("10.96.1.1"), self.dip) + opts
        if r.random() < 0.95:
            hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
        return 0x0800, hdr + payload

    def udp(self, payload):
        r = self.r
        ln = 8 + len(payload)
        if r.random() < 0.1:
            ln = r.choice([0, 7, 8, ln + 1, 65535])
        return struct.pack("!HHHH", 9, 9, ln & 0xFFFF, r.getrandbits(16)) + payload

    def ipv6(self, payload):
        """IPv6 with a chain of extension headers, some lying."""
        r = self.r
        chain = [r.choice([0, 43, 44, 60, 51, 59]) for _ in range(r.choice([0, 0, 1, 2, 4]))]
        body = payload
        nxt = 17
        for h in reversed(chain):
            if h == 44:
                ext = struct.pack("!BBHI", nxt, 0, r.getrandbits(16), r.getrandbits(32))
            else:
                hl = r.choice([0, 0, 1, 255])
                ext = struct.pack("!BB", nxt, hl) + r.randbytes(6 + 8 * min(hl, 2))
            body, nxt = ext + body, h
        plen = len(body) if r.random() < 0.9 else r.getrandbits(16)
        src = socket.inet_pton(socket.AF_INET6, "fe80::1")
        dst = socket.inet_pton(socket.AF_INET6, "fe80::2")
        return 0x86DD, struct.pack("!IHBB", 6 << 28, plen, nxt, 64) + src + dst + body

    def l2(self, dmac, smac, etype, l3):
        r = self.r
        tags = b""
        if self.in_episode:     # one stream: the same tags and source
            return dmac + smac + struct.pack("!H", etype) + l3
        for _ in range(r.choice([0, 0, 0, 1, 2, 3, 5])):
            tags += struct.pack("!HH", r.choice([0x8100, 0x88A8, 0x9100]), r.getrandbits(16))
        src = smac if r.random() < 0.7 else bytes([2, 0, 0, 0, r.getrandbits(8),
                                                   r.getrandbits(8)])
        return dmac + src + tags + struct.pack("!H", etype) + l3

    # ---- the kinds

    def kind_pktgen4(self):
        r = self.r
        opts = self.options() if r.random() < 0.5 else b""
        return self.ipv4(self.udp(self.pktgen()), opts=opts)

    def kind_pktgen6(self):
        return self.ipv6(self.udp(self.pktgen()))

    def kind_fragment(self):
        return self.ipv4(self.udp(self.pktgen()), frag=True)

    def kind_options(self):
        r = self.r
        proto = r.choice([17, 6, 1, 253])
        return self.ipv4(r.randbytes(r.randrange(0, 40)),
                         proto=proto, opts=self.options())

    def kind_garbage(self):
        r = self.r
        return r.choice([0x0800, 0x86DD, 0x8100, 0x88A8, 0x0806]), \
            r.randbytes(r.randrange(0, 120))

    KINDS = ["pktgen4", "pktgen6", "fragment", "options", "garbage"]
    WEIGHTS = [50, 10, 10, 20, 10]

    def frame(self, dmac, smac):
        r = self.r
        kind = r.choices(self.KINDS, self.WEIGHTS)[0]
        self.in_episode = False
        etype, l3 = getattr(self, "kind_" + kind)()
        f = self.l2(dmac, smac, etype, l3)
        if r.random() < 0.15 and not self.in_episode:
            f = f[:r.randrange(14, len(f) + 1)]            # truncated anywhere
        return kind, f + b"\0" * max(0, 60 - len(f))


def main():
    iface, dmac, dip, seed, frames = sys.argv[1], \
        bytes.fromhex(sys.argv[2].replace(":", "")), sys.argv[3], int(sys.argv[4]), \
        int(sys.argv[5])
    seconds = float(sys.argv[6]) if len(sys.argv) > 6 else 1e9
    with open("/sys/class/net/%s/address" % iface) as f:
        smac = bytes.fromhex(f.read().strip().replace(":", ""))
    gen = Gen(random.Random(seed), dip)
    # the frames first: the send loop then runs at the socket's pace
    batch = [gen.frame(dmac, smac) for _ in range(min(frames, 20000))]
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    counts = dict.fromkeys(Gen.KINDS, 0)
    sent = 0
    t0 = time.monotonic()
    while sent < frames and time.monotonic() - t0 < seconds:
        for kind, f in batch[:frames - sent]:
            try:
                s.send(f)
            except OSError:
                pass            # a frame the device refuses (too short, ...)
            counts[kind] += 1
            sent += 1
        # the next round differs: same seed, new draws
        batch = [gen.frame(dmac, smac) for _ in range(min(frames - sent, 20000))]
    dt = time.monotonic() - t0
    for k in Gen.KINDS:
        print("%s %d" % (k, counts[k]))
    print("frames %d seconds %.1f pps %d" % (sent, dt, sent / dt if dt else 0))


if __name__ == "__main__":
    main()
