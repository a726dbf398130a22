# SPDX-License-Identifier: GPL-2.0
"""Writing and reading /proc/net/pktgen for the pktgen.lab modules.

The vocabulary is tools/pgproc.py's: a command is one write(2) of
"cmd\\n"; after it the file's "Result:" line says whether pktgen took it
(pgrx in "display json" carries it as the "result" member).  A write
refused with an errno, or a Result that is not "OK", is a failure.

Namespaces: setns(2) changes the whole task, so the work of a module
that names a netns runs in a forked child that enters /run/netns/NAME
(os.setns from Python 3.12, else libc's through ctypes, as
tools/pktgen-exporter does) and sends its answer back over a pipe.
"""

from __future__ import absolute_import, division, print_function

import ctypes
import errno as _errno
import json
import os
import re

__metaclass__ = type

PROC = '/proc/net/pktgen'
CLONE_NEWNET = 0x40000000
CMD_MAX = 1023		# pktgen's limit for one write (E2BIG beyond)
_DEV_RE = re.compile(r'^[^/\s:]{1,15}(@[^/\s]{1,32})?$')


class PktgenError(Exception):
    """A command pktgen refused: .errno (0 if the write succeeded but the
    Result is not OK) and .result (the Result text, '' if none)."""

    def __init__(self, msg, errno=0, result='', done=None):
        super(PktgenError, self).__init__(msg)
        self.errno = errno
        self.result = result
        self.done = done or []	# what the module wrote before it failed


def check_command(cmd):
    """None if CMD can be written as one pktgen command, else why not."""
    if not isinstance(cmd, str) or not cmd.strip():
        return 'an empty command'
    if '\n' in cmd or '\0' in cmd:
        return 'a newline or NUL in a command (one command per write)'
    if len(cmd.encode()) + 1 > CMD_MAX:
        return 'longer than %d bytes' % CMD_MAX
    return None


def check_device(name):
    """None if NAME is a pktgen device name (ifname or ifname@tag, as a
    file of /proc/net/pktgen: no '/', no '.' or '..'), else why not."""
    if not isinstance(name, str) or not _DEV_RE.match(name) or name in ('.', '..'):
        return 'not a pktgen device name (IFNAME or IFNAME@TAG): %r' % (name,)
    if name in ('pgctrl', 'pgrx', 'pgstats') or name.startswith('kpktgend_'):
        return 'a pktgen control file, not a device: %r' % (name,)
    return None


def result_of(text):
    """The text after "Result: " (or pgrx JSON's "result"); None if none."""
    if text.lstrip().startswith('{'):
        try:
            res = json.loads(text).get('result')
            return res if isinstance(res, str) else None
        except ValueError:
            pass
    i = text.rfind('Result: ')
    if i < 0:
        return None
    return ' '.join(text[i + 8:].split())


def read(path):
    with open(path, encoding='ascii', errors='replace') as f:
        return f.read()


def write_raw(path, cmd):
    """One write(2) of "cmd\\n"; OSError on a refusal."""
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, cmd.encode() + b'\n')
    finally:
        os.close(fd)


def pgset(path, cmd, need_result=True):
    """Write CMD to PATH, then read its Result: the Result text, or
    PktgenError with the errno and the Result on a refused write, an
    ERROR Result or (NEED_RESULT) no Result line at all."""
    why = check_command(cmd)
    if why:
        raise PktgenError('%s: "%s": %s' % (path, cmd, why), _errno.EINVAL)
    try:
        write_raw(path, cmd)
    except OSError as e:
        try:
            res = result_of(read(path)) or ''
        except OSError:
            res = ''
        raise PktgenError('%s: "%s": %s%s' % (path, cmd, e.strerror or e,
                                               ': Result: ' + res if res else ''),
                          e.errno or 0, res)
    res = result_of(read(path))
    if res is None:
        if need_result:
            raise PktgenError('%s: "%s": no "Result:" line after the write '
                              '(not a pktgen file?)' % (path, cmd))
        return ''
    if not res.startswith('OK'):
        raise PktgenError('%s: "%s": Result: %s' % (path, cmd, res), 0, res)
    return res


def parse_pgstats(text):
    """pgstats' blocks as pgstats --json gives them: one dict per device,
    numbers as numbers (the first block, pgstats_version, left out)."""
    out = []
    for block in text.split('\n\n')[1:]:
        d = {}
        for line in block.splitlines():
            k, _, v = line.partition('=')
            if k:
                d[k] = int(v) if v.isdigit() else v
        if 'device' in d:
            out.append(d)
    return out


def setns(name):
    """Enter network namespace NAME (/run/netns/NAME)."""
    fd = os.open(os.path.join('/run/netns', name), os.O_RDONLY)
    try:
        if hasattr(os, 'setns'):
            os.setns(fd, CLONE_NEWNET)
            return
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.setns(fd, CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise OSError(err, 'setns %s: %s' % (name, os.strerror(err)))
    finally:
        os.close(fd)


def in_netns(netns, func):
    """FUNC() in namespace NETNS (none: here): its JSON-able return value,
    or the PktgenError/OSError it raised, raised again here."""
    if not netns:
        return func()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            setns(netns)
            data = {'ok': func()}
        except PktgenError as e:
            data = {'error': str(e), 'errno': e.errno, 'result': e.result, 'done': e.done}
        except OSError as e:
            data = {'error': str(e), 'errno': e.errno or 0, 'result': ''}
        except Exception as e:  # pylint: disable=broad-except
            data = {'error': '%s: %s' % (type(e).__name__, e), 'errno': 0, 'result': ''}
        buf = json.dumps(data).encode()
        while buf:
            buf = buf[os.write(w, buf):]
        os._exit(0)
    os.close(w)
    chunks = []
    while True:
        b = os.read(r, 65536)
        if not b:
            break
        chunks.append(b)
    os.close(r)
    os.waitpid(pid, 0)
    try:
        data = json.loads(b''.join(chunks).decode() or '{}')
    except ValueError:
        data = {}
    if 'ok' in data:
        return data['ok']
    raise PktgenError('netns %s: %s' % (netns, data.get('error', 'the child died')),
                      data.get('errno', 0), data.get('result', ''), data.get('done'))


def argument_spec(**options):
    """OPTIONS with the options every module has (doc_fragments/pktgen.py)."""
    spec = dict(netns=dict(type='str'), proc_dir=dict(type='path', default=PROC))
    spec.update(options)
    return spec


def need(path, hint):
    """PktgenError ENOENT naming PATH and HINT if PATH does not exist."""
    if not os.path.exists(path):
        raise PktgenError('no %s: %s' % (path, hint), _errno.ENOENT)


def write_each(proc, todo, write):
    """WRITE(path, cmd) for each (file, cmd) of TODO in order: the list of
    {file, command, result} written; on a failure the PktgenError carries
    the writes done before it."""
    done = []
    try:
        for f, c in todo:
            done.append({'file': f, 'command': c, 'result': write(os.path.join(proc, f), c)})
    except PktgenError as e:
        e.done = done
        raise
    return done


def run_module(module, func, **extra):
    """FUNC() in the module's netns; on a PktgenError, fail_json with its
    errno, Result and writes (and EXTRA)."""
    try:
        return in_netns(module.params['netns'], func)
    except PktgenError as e:
        module.fail_json(**dict(extra, **fail_args(e)))
    return None		# not reached: fail_json exits


def fail_args(err):
    """The fail_json arguments of a PktgenError."""
    return {'msg': str(err), 'errno': err.errno,
            'errno_name': _errno.errorcode.get(err.errno, ''), 'result': err.result,
            'writes': err.done}
