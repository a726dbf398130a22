#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Send hand-made pktgen frames on a device with an AF_PACKET socket, for
the receiver tests (the sender of this release builds IPv4 without VLAN
tags or the NS_TIMESTAMP extension).

    rx_inject.py IFACE DSTMAC JSON

JSON is a list of streams, each a dict:
    ip      4 or 6                          (default 4)
    opts    IPv4 option bytes (IHL > 5)     (default 0)
    vlan    0, 1 (802.1Q vid 10) or 2 (802.1ad vid 20 + 802.1Q vid 10)
    id      stream id of the extension, or null: no extension
    seqs    list of sequence numbers, in sending order
    stamp   true: CLOCK_REALTIME stamp; false: zeros (NO_TIMESTAMP)
    magic   pktgen magic (default 0xbe9be955; another value: not pktgen)
    dst     IPv4 destination (default 10.96.1.2)
    sec_off seconds added to the stamp's tv_sec (modulo 2^32: future or past)
    usec    tv_usec as sent, even out of range         (default: the stamp's)
    nsec    the extension's tv_nsec as sent, likewise  (default: the stamp's)
Streams are sent one after the other.
"""
import json
import socket
import struct
import sys
import time


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def pktgen_hdr(st, seq):
    ns = time.time_ns() if st.get("stamp", True) else 0
    sec, nsec = divmod(ns, 10**9)
    sec += st.get("sec_off", 0)
    h = struct.pack("!IIII", st.get("magic", 0xBE9BE955), seq, sec & 0xFFFFFFFF,
                    st.get("usec", nsec // 1000) & 0xFFFFFFFF)
    if st.get("id") is not None:
        h += struct.pack("!IIII", 0xBE9BE956, st["id"], st.get("nsec", nsec) & 0xFFFFFFFF, 0)
    return h


def ip_layer(st, payload):
    udp = struct.pack("!HHHH", 9, 9, 8 + len(payload), 0) + payload
    if st.get("ip", 4) == 6:
        src = socket.inet_pton(socket.AF_INET6, "fe80::1")
        dst = socket.inet_pton(socket.AF_INET6, "fe80::2")
        return 0x86DD, struct.pack("!IHBB", 6 << 28, len(udp), 17, 64) + src + dst + udp
    opts = b"\x01" * (st.get("opts", 0) - 1) + b"\x00" if st.get("opts", 0) else b""
    ihl = 5 + len(opts) // 4
    hdr = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, ihl * 4 + len(udp), 1, 0, 64, 17, 0,
                      socket.inet_aton("10.96.1.1"),
                      socket.inet_aton(st.get("dst", "10.96.1.2"))) + opts
    hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
    return 0x0800, hdr + udp


def frame(st, seq, dmac, smac):
    etype, l3 = ip_layer(st, pktgen_hdr(st, seq))
    tags = {0: [], 1: [(0x8100, 10)], 2: [(0x88A8, 20), (0x8100, 10)]}[st.get("vlan", 0)]
    l2 = dmac + smac
    for tpid, vid in tags:
        l2 += struct.pack("!HH", tpid, vid)
    f = l2 + struct.pack("!H", etype) + l3
    return f + b"\0" * max(0, 60 - len(f))


def main():
    iface, dmac, streams = sys.argv[1], bytes.fromhex(sys.argv[2].replace(":", "")), \
        json.loads(sys.argv[3])
    with open("/sys/class/net/%s/address" % iface) as f:
        smac = bytes.fromhex(f.read().strip().replace(":", ""))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    n = 0
    for st in streams:
        for seq in st["seqs"]:
            s.send(frame(st, seq, dmac, smac))
            n += 1
    print("sent %d frames" % n)


if __name__ == "__main__":
    main()
