#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""The stock module's numbering of clone_skb copies (tests/rx-copies.sh):
the capture's IPv4 pktgen frames from the (SKIP+1)th, N of them, are
numbered 1, 1, ..., 1 + K, ... (each K copies share one number), and each
copy is byte-identical to the one before it.

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
for i in range(1, n):
    if i % k and fr[i] != fr[i - 1]:
        sys.exit("frame %d differs from the copy before it" % i)
