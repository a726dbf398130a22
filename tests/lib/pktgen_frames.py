#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""How many frames of a capture carry pktgen's magic and are SIZE bytes
on the wire (tests/regress-crashes.sh).

    pktgen_frames.py FILE SIZE
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcap  # noqa: E402

size = int(sys.argv[2])
print(sum(1 for f in pcap.frames(sys.argv[1]) if f.get("pktgen") and f["wire_len"] == size))
