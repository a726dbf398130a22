#!/usr/bin/python
# SPDX-License-Identifier: GPL-2.0
"""pktgen.lab.pktgen_start: start_at on pgctrl and wait for the run's end."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: pktgen_start
short_description: Start every configured pktgen thread at one CLOCK_REALTIME time
description:
  - Writes C(start_at NS) to C(pgctrl) of the namespace, so every thread
    with devices starts its run when CLOCK_REALTIME reads NS (see
    Documentation/many-hosts.rst of pktgen). Compute NS once, on the
    controller, and give the same value to every host.
  - The write blocks until every device of the namespace stopped. The
    module waits at most O(timeout) seconds; past it, it writes C(stop)
    to C(pgctrl) and fails.
  - Fails with pgctrl's C(Result:) text and the errno when pktgen
    refuses (a time in the past or more than an hour ahead, C(ERANGE);
    no device, C(ENODEV); a run going on, C(EBUSY)).
  - Always C(changed) when it wrote; check mode writes nothing.
version_added: 1.0.0
author: pktgen project
options:
  start_at:
    description:
      - The absolute CLOCK_REALTIME time in nanoseconds since 1970, or
        C(+NS) relative to the host's clock when the write arrives.
    type: str
    required: true
  timeout:
    description: Seconds to wait for the run's end, counted from the write.
    type: float
    default: 600
extends_documentation_fragment:
  - pktgen.lab.pktgen
'''

EXAMPLES = r'''
- name: Start everywhere 10 s from now (computed once on the controller)
  pktgen.lab.pktgen_start:
    start_at: "{{ pktgen_start_at_ns }}"
    timeout: 120
'''

RETURN = r'''
result:
  description: "pgctrl's Result after the run (C(OK: start_at=NS))."
  returned: success
  type: str
waited:
  description: Seconds from the write to the run's end.
  returned: success
  type: float
'''

import errno
import os
import re
import signal
import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.pktgen.lab.plugins.module_utils import pktgen_proc as pp


def run(proc, cmd, timeout):
    """Write CMD in a child (the write blocks for the whole run), wait at
    most TIMEOUT s, then read pgctrl's Result."""
    ctrl = os.path.join(proc, 'pgctrl')
    pp.need(ctrl, 'load the module (modprobe pktgen)')
    r, w = os.pipe()
    t0 = time.time()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            pp.write_raw(ctrl, cmd)
            code = 0
        except OSError as e:
            code = e.errno or 255
        os.write(w, str(code).encode())
        os._exit(0)
    os.close(w)
    timed_out = False
    while True:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.time() - t0 > timeout:
            timed_out = True
            try:
                pp.write_raw(ctrl, 'stop')
            finally:
                os.kill(pid, signal.SIGINT)	# the writer's Ctrl-C stops too
                os.waitpid(pid, 0)
            break
        time.sleep(0.05)
    code = int(os.read(r, 16) or b'255')
    os.close(r)
    waited = time.time() - t0
    res = pp.result_of(pp.read(ctrl)) or ''
    if timed_out:
        raise pp.PktgenError('%s: "%s": no end of the run after %g s: stopped'
                             % (ctrl, cmd, timeout), errno.ETIMEDOUT, res)
    if code:
        raise pp.PktgenError('%s: "%s": %s%s' % (ctrl, cmd, os.strerror(code),
                                                 ': Result: ' + res if res else ''), code, res)
    if not res.startswith('OK'):
        raise pp.PktgenError('%s: "%s": Result: %s' % (ctrl, cmd, res or '(none)'), 0, res)
    return {'result': res, 'waited': round(waited, 3)}


def main():
    module = AnsibleModule(
        argument_spec=pp.argument_spec(
            start_at=dict(type='str', required=True),
            timeout=dict(type='float', default=600),
        ),
        supports_check_mode=True,
    )
    p = module.params
    at = str(p['start_at']).strip()
    if not re.match(r'^\+?[0-9]{1,20}$', at):
        module.fail_json(msg='start_at: %r is not NS or +NS (decimal nanoseconds)' % at)
    if p['timeout'] <= 0:
        module.fail_json(msg='timeout must be above 0')
    cmd = 'start_at ' + at
    if module.check_mode:
        module.exit_json(changed=True, command=cmd)
    out = pp.run_module(module, lambda: run(p['proc_dir'], cmd, p['timeout']), command=cmd)
    module.exit_json(changed=True, command=cmd, **out)


if __name__ == '__main__':
    main()
