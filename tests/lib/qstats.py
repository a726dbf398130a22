#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Per-queue TX counters of a NIC, one "txN PACKETS [stop S wake W]" line
per TX queue (in the caller's network namespace).

	qstats.py DEV
	qstats.py -s	a server: "ID DEV" a line on stdin, DEV's lines and
			". ID" on stdout

The netdev netlink family's qstats (NETDEV_CMD_QSTATS_GET, scope queue:
6.9 and later; virtio_net reports its per-queue packets there and no
longer in ethtool -S), else ethtool -S's per-queue counters (virtio_net
on 6.1: tx_queue_N_packets).  Exit 1 when neither has them.
"""
import os
import re
import socket
import struct
import subprocess
import sys

NLM_F_REQUEST, NLM_F_DUMP = 1, 0x300
NLMSG_ERROR, NLMSG_DONE, GENL_ID_CTRL = 2, 3, 0x10
CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 3, 1, 2
QSTATS_GET = 12
A_IFINDEX, A_QTYPE, A_QID, A_SCOPE = 1, 2, 3, 4
A_TX_PACKETS, A_TX_STOP, A_TX_WAKE = 10, 33, 34
QTYPE_TX, SCOPE_QUEUE = 1, 1


def attr(kind, data):
    n = 4 + len(data)
    return struct.pack("HH", n, kind) + data + b"\0" * (-n % 4)


def attrs(buf):
    out, off = {}, 0
    while off + 4 <= len(buf):
        n, kind = struct.unpack_from("HH", buf, off)
        if n < 4:
            break
        out[kind & 0x3fff] = buf[off + 4:off + n]
        off += n + (-n % 4)
    return out


def uint(b):
    return int.from_bytes(b, "little")


def request(sock, family, cmd, flags, payload):
    hdr = struct.pack("IHHII", 16 + 4 + len(payload), family,
                      NLM_F_REQUEST | flags, 1, 0)
    sock.send(hdr + struct.pack("BBH", cmd, 1, 0) + payload)
    msgs = []
    while True:
        data, off = sock.recv(1 << 16), 0
        while off + 16 <= len(data):
            n, kind = struct.unpack_from("IH", data, off)
            if kind == NLMSG_DONE:
                return msgs
            if kind == NLMSG_ERROR:
                err = struct.unpack_from("i", data, off + 16)[0]
                if err:
                    raise OSError(-err, os.strerror(-err))
                return msgs
            msgs.append(attrs(data[off + 20:off + n]))
            off += n + (-n % 4)
        if not flags & NLM_F_DUMP:
            return msgs


def netlink(dev):
    idx = socket.if_nametoindex(dev)
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)
    fam = request(sock, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0,
                  attr(CTRL_ATTR_FAMILY_NAME, b"netdev\0"))
    fid = uint(fam[0][CTRL_ATTR_FAMILY_ID])
    msgs = request(sock, fid, QSTATS_GET, NLM_F_DUMP,
                   attr(A_IFINDEX, struct.pack("I", idx)) +
                   attr(A_SCOPE, struct.pack("I", SCOPE_QUEUE)))
    out = {}
    for m in msgs:
        if uint(m.get(A_IFINDEX, b"")) != idx or uint(m.get(A_QTYPE, b"\0")) != QTYPE_TX:
            continue
        if A_TX_PACKETS not in m:
            continue
        line = "%d" % uint(m[A_TX_PACKETS])
        if A_TX_STOP in m:
            line += " stop %d wake %d" % (uint(m[A_TX_STOP]), uint(m.get(A_TX_WAKE, b"")))
        out[uint(m[A_QID])] = line
    return out


def ethtool(dev):
    text = subprocess.run(["ethtool", "-S", dev], capture_output=True,
                          text=True, check=False).stdout
    return {int(q): n for q, n in
            re.findall(r"(?m)^\s*tx(?:_queue_)?(\d+)_packets: (\d+)$", text)}


def lines(dev):
    try:
        out = netlink(dev)
    except (OSError, KeyError, IndexError):
        out = {}
    if not out:
        out = ethtool(dev)
    return ["tx%d %s" % (q, out[q]) for q in sorted(out)]


def main():
    if sys.argv[1] != "-s":
        out = lines(sys.argv[1])
        print("\n".join(out))
        return 0 if out else 1
    for req in sys.stdin:
        tag, dev = req.split()
        print("\n".join(lines(dev) + [". " + tag]), flush=True)
    return 0


sys.exit(main())
