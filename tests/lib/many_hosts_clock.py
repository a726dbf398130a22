#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Each guest's CLOCK_REALTIME against the host's, over SSH, and (--step)
stepped onto it (tests/many-hosts.sh).

    many_hosts_clock.py [--step] SSH_CONFIG HOST...

A guest under TCG boots with its clock from the emulated RTC, whole
seconds: guests differ from the host and from each other by up to a
second, which start_at would show as a spread.  A lab runs chrony or PTP;
here the host is the reference, the way an NTP client measures: one
python3 per guest reads lines over one SSH session and answers its
clock; of SAMPLES round trips the one with the shortest round trip gives
the offset (guest - host midpoint), within +-rtt/2.  --step then steps
the guest's clock by -offset (clock_settime of its own clock plus the
step: no round trip in it) and measures again, up to three rounds while
the offset is above the round trip.

Prints one JSON object: {HOST: {"offset_ns", "rtt_ns", "stepped_ns"}}
(the offset after the step, if any).  Exit 1 when a guest does not
answer.
"""

import json
import shlex
import subprocess
import sys
import time

SAMPLES = 25
GUEST = '''
import sys, time
while True:
    line = sys.stdin.readline()
    if not line:
        break
    if line.startswith("s "):
        now = time.clock_gettime_ns(time.CLOCK_REALTIME)
        time.clock_settime_ns(time.CLOCK_REALTIME, now + int(line[2:]))
        print("ok", flush=True)
    else:
        print(time.clock_gettime_ns(time.CLOCK_REALTIME), flush=True)
'''


def ask(p, line):
    p.stdin.write(line + '\n')
    p.stdin.flush()
    ans = p.stdout.readline()
    if not ans:
        raise OSError('no answer from the guest')
    return ans.strip()


def measure(p):
    best = None
    for _ in range(SAMPLES):
        t0 = time.clock_gettime_ns(time.CLOCK_REALTIME)
        g = int(ask(p, 't'))
        t1 = time.clock_gettime_ns(time.CLOCK_REALTIME)
        if best is None or t1 - t0 < best[1]:
            best = (g - (t0 + t1) // 2, t1 - t0)
    return best


def main(argv):
    step = '--step' in argv
    args = [a for a in argv[1:] if a != '--step']
    cfg, hosts = args[0], args[1:]
    out = {}
    for h in hosts:
        # ssh hands the remote shell one string: the program quoted for it
        p = subprocess.Popen(['ssh', '-F', cfg, h,
                              '/usr/bin/python3 -u -c ' + shlex.quote(GUEST)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             universal_newlines=True)
        try:
            ask(p, 't')	# python is up: what follows measures the pipe only
            off, rtt = measure(p)
            stepped = 0
            # a few rounds: measured under TCG, one step left tens of ms
            for _ in range(3 if step else 0):
                if abs(off) <= rtt:
                    break
                ask(p, 's %d' % -off)
                stepped -= off
                off, rtt = measure(p)
            out[h] = {'offset_ns': off, 'rtt_ns': rtt, 'stepped_ns': stepped}
        except (OSError, ValueError) as e:
            sys.stderr.write('%s: %s\n' % (h, e))
            return 1
        finally:
            p.stdin.close()
            p.wait()
    print(json.dumps(out))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
