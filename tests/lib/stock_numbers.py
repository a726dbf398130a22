#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""The stock module's numbering of clone_skb copies (tests/rx-copies.sh):
the capture's IPv4 pktgen frames from the (SKIP+1)th, N of them, are
numbered 1, 1, ..., 1 + K, ... (each K copies share one number), and each
copy is byte-identical to the one before it but for its stamp: the sender
stamps a copy as it sends it where the copy's data is its own
(Documentation/receiver.rst, "The clock"), so a copy's stamp is the one
before's or later.

    stock_numbers.py FILE SKIP K N

Exits 0, or with the first difference found.
"""

import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rx_capture  # noqa: E402

path, skip, k, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
fr = [f for _, f, _ in rx_capture.records(path)
      if len(f) >= 50 and f[12:14] == b"\x08\x00" and f[42:46] == b"\xbe\x9b\xe9\x55"]
fr = fr[skip:skip + n]
seqs = [struct.unpack("!I", f[46:50])[0] for f in fr]
want = [1 + k * (i // k) for i in range(n)]
if seqs != want:
    sys.exit("numbers %s ... (%d), want %s ... (%d)" % (seqs[:9], len(seqs), want[:9], n))


def stamp(f):
    """The stamp's bytes cut out: tv_sec, tv_usec; the extension's
    tv_nsec and flags.  Returns (the rest, the stamp in ns)."""
    sec, usec = struct.unpack("!II", f[50:58])
    if f[58:62] == b"\xbe\x9b\xe9\x56":
        nsec = struct.unpack("!I", f[66:70])[0]
        return f[:50] + f[58:66] + f[74:], sec * 10**9 + nsec
    return f[:50] + f[58:], sec * 10**9 + usec * 1000


for i in range(1, n):
    if i % k:
        (a, ta), (b, tb) = stamp(fr[i - 1]), stamp(fr[i])
        if a != b or tb < ta:
            sys.exit("frame %d differs from the copy before it (but a later stamp)" % i)
