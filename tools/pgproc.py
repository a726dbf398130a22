# SPDX-License-Identifier: GPL-2.0
"""Reading and writing /proc/net/pktgen for the pktgen tools.

Works with this project's module (which has /proc/net/pktgen/pgstats, one
key=value block per device) and with the kernel's own pktgen (no pgstats:
the device and thread files are parsed instead).  The files are those of
the caller's network namespace: run a tool under `ip netns exec NS`.
"""

import os
import re
import sys

PROC = os.environ.get('PKTGEN_PROC', '/proc/net/pktgen')
DEBUG = False		# -x: print every command written, on stderr

# Exit codes shared by the tools (Documentation/tools.rst, the man pages)
EXIT_OK = 0
EXIT_RUN = 1		# a run failed: pktgen refused a command, no Result: OK
EXIT_USAGE = 2		# bad option or value (argparse's code)
EXIT_NOTHING_RAN = 3	# pktgen-top: no device ran within --wait
EXIT_NO_PKTGEN = 4	# no /proc/net/pktgen: module not loaded, or another netns
EXIT_FILE = 5		# an input file missing or unreadable, an output not writable
EXIT_NO_PLOT = 6	# no PNG: matplotlib is missing (CSV/JSON were written)
EXIT_INTERRUPTED = 130

# "OK: 1345187(c1342694+d2493) usec, 100000 (60byte,0frags)\n
#   74339pps 35Mb/sec (35682720bps) errors: 0"
_RESULT = re.compile(r'OK: (\d+)\(c\d+\+d\d+\) usec, (\d+) \((\d+)byte,-?\d+frags\)'
                     r'\s+(\d+)pps (\d+)Mb/sec \((\d+)bps\) errors: (\d+)')


class PktgenError(Exception):
    """A write that failed or did not leave Result: OK."""


class ToolError(Exception):
    """An error the tool reports in one line, with its exit code."""

    def __init__(self, msg, code=EXIT_RUN):
        super().__init__(msg)
        self.code = code


def need_pktgen():
    """ToolError(EXIT_NO_PKTGEN) when there is no /proc/net/pktgen here."""
    if not os.path.isdir(PROC):
        raise ToolError(f'no {PROC}: load the module (modprobe pktgen) or run in '
                        'the namespace of the devices (ip netns exec NS)', EXIT_NO_PKTGEN)


def file_error(name, e):
    """The ToolError of an OSError on a file the user named."""
    return ToolError(f'{name}: {e.strerror or e}', EXIT_FILE)


def run_tool(prog, main):
    """sys.exit(main()), every expected error as one line 'prog: ...' and
    its exit code, never a traceback."""
    try:
        rc = main()
    except ToolError as e:
        print(f'{prog}: {e}', file=sys.stderr)
        rc = e.code
    except PktgenError as e:
        print(f'{prog}: {e}', file=sys.stderr)
        rc = EXIT_RUN
    except KeyboardInterrupt:
        rc = EXIT_INTERRUPTED
    except BrokenPipeError:
        rc = EXIT_OK
    sys.exit(rc)


def path(name):
    return os.path.join(PROC, name)


def read(name):
    with open(path(name), encoding='ascii', errors='replace') as f:
        return f.read()


def write(name, cmd):
    """One write(2) of "cmd\\n" (as echo does: the kernel's pgctrl drops the
    last byte) to a pktgen file; raises OSError on failure."""
    if DEBUG:
        print(f'pgset {name} "{cmd}"', file=sys.stderr, flush=True)
    fd = os.open(path(name), os.O_WRONLY)
    try:
        os.write(fd, cmd.rstrip('\n').encode() + b'\n')
    finally:
        os.close(fd)


def result(name):
    """The text after 'Result: ' in a device or thread file ('' if none)."""
    text = read(name)
    i = text.find('Result: ')
    return text[i + 8:].strip() if i >= 0 else ''


def pgset(name, cmd):
    """Like the classic pgset: the write must succeed with Result: OK."""
    try:
        write(name, cmd)
    except OSError as e:
        try:
            why = result(name)
        except OSError:
            why = ''
        raise PktgenError(f'{name}: "{cmd}": {e.strerror}' + (f': {why}' if why else '')) \
            from None
    res = result(name)
    if not res.startswith('OK'):
        raise PktgenError(f'{name}: "{cmd}": Result: {res}')


def threads():
    """The kpktgend_N file names, by CPU number."""
    names = [n for n in os.listdir(PROC) if n.startswith('kpktgend_')]
    return sorted(names, key=lambda n: int(n.split('_')[1]))


def parse_result(text):
    """dict of a device's 'OK:' Result (usec, pkts, size, pps, mbps,
    bps, errors), or None when the Result is something else."""
    m = _RESULT.search(text)
    if not m:
        return None
    usec, pkts, size, pps, mbps, bps, errors = (int(g) for g in m.groups())
    return {'usec': usec, 'pkts': pkts, 'size': size, 'pps': pps,
            'mbps': mbps, 'bps': bps, 'errors': errors}


def _thread_devices():
    """[(device, thread cpu, running)] from the thread files."""
    out = []
    for t in threads():
        cpu = int(t.split('_')[1])
        for line in read(t).splitlines():
            for state in ('Running', 'Stopped'):
                if line.startswith(state + ':'):
                    out += [(d, cpu, state == 'Running') for d in line.split()[1:]]
    return out


def _num(text, key, default=0):
    m = re.search(re.escape(key) + r':?\s+(\d+)', text)
    return int(m.group(1)) if m else default


def _stats_from_files():
    """The pgstats keys this tool needs, parsed from the classic files."""
    out = []
    for dev, cpu, running in _thread_devices():
        try:
            text = read(dev)
        except OSError:		# removed meanwhile
            continue
        size = _num(text, 'min_pkt_size')
        sofar = _num(text, 'pkts-sofar')
        res = text[text.find('Result: ') + 8:].strip() if 'Result: ' in text else ''
        out.append({'device': dev, 'thread': cpu, 'running': int(running),
                    'count': _num(text, 'count'), 'pkts_sofar': sofar,
                    'errors': _num(text, 'errors'), 'pkt_size': size,
                    'tx_bytes': sofar * size, 'result': ' '.join(res.split())})
    return out


def _parse_pgstats(text):
    out = []
    for block in text.split('\n\n')[1:]:
        d = {}
        for line in block.splitlines():
            k, _, v = line.partition('=')
            d[k] = int(v) if v.isdigit() else v
        if 'device' in d:
            out.append(d)
    return out


def stats():
    """One dict per pktgen device: device, thread, running, count,
    pkts_sofar, errors, pkt_size, tx_bytes, result (and with pgstats
    the rest of its keys)."""
    try:
        return _parse_pgstats(read('pgstats'))
    except FileNotFoundError:
        return _stats_from_files()
