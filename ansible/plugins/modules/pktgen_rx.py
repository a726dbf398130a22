#!/usr/bin/python
# SPDX-License-Identifier: GPL-2.0
"""pktgen.lab.pktgen_rx: commands to pgrx, pktgen's receiver."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: pktgen_rx
short_description: Configure pgrx, pktgen's receiver (/proc/net/pktgen/pgrx)
description:
  - Writes pgrx commands (C(rx IFNAME), C(rx_disable), C(rx_reset),
    C(statistics time), C(copies K), C(display json), C(sample N)), one
    write(2) each and in order, in the initial network namespace or in
    C(netns), and fails on a refused write (with its errno) or a Result
    that is not C(OK) (pgrx's C(Result:) line, or the C(result) member
    of its JSON view).
  - pgrx's state is not compared (an C(rx) on a device already received
    on is refused with C(EBUSY)); write C(rx_disable) and C(rx_reset)
    first for a fresh receiver. C(changed) whenever a command was written;
    check mode writes nothing.
version_added: 1.0.0
author: pktgen project
options:
  commands:
    description: The pgrx commands, in order.
    type: list
    elements: str
    required: true
extends_documentation_fragment:
  - pktgen.lab.pktgen
'''

EXAMPLES = r'''
- name: A fresh receiver on eth1 with latency statistics
  pktgen.lab.pktgen_rx:
    commands: [rx_disable, rx_reset, statistics time, rx eth1]
'''

RETURN = r'''
writes:
  description: Every command written, with its Result.
  returned: always
  type: list
  elements: dict
'''

import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.pktgen.lab.plugins.module_utils import pktgen_proc as pp


def work(proc, cmds, check):
    pp.need(os.path.join(proc, 'pgrx'), 'load the module (modprobe pktgen)')
    if check:
        return [{'file': 'pgrx', 'command': c, 'result': None} for c in cmds]
    return pp.write_each(proc, [('pgrx', c) for c in cmds], pp.pgset)


def main():
    module = AnsibleModule(
        argument_spec=pp.argument_spec(
            commands=dict(type='list', elements='str', required=True),
        ),
        supports_check_mode=True,
    )
    p = module.params
    for c in p['commands']:
        why = pp.check_command(c)
        if why:
            module.fail_json(msg='"%s": %s' % (c, why), writes=[])
    writes = pp.run_module(module, lambda: work(p['proc_dir'], p['commands'],
                                                module.check_mode))
    module.exit_json(changed=bool(writes), writes=writes)


if __name__ == '__main__':
    main()
