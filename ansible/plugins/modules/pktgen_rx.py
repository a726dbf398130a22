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
  netns:
    description: Network namespace (C(/run/netns/NAME)); absent, the module's own.
    type: str
  proc_dir:
    description: The pktgen directory. Only tests change it.
    type: path
    default: /proc/net/pktgen
notes:
  - Supports check mode.
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
    path = os.path.join(proc, 'pgrx')
    if not os.path.exists(path):
        raise pp.PktgenError('no %s: load the module (modprobe pktgen)' % path, 2)
    if check:
        return [{'file': 'pgrx', 'command': c, 'result': None} for c in cmds]
    done = []
    try:
        for c in cmds:
            done.append({'file': 'pgrx', 'command': c, 'result': pp.pgset(path, c)})
    except pp.PktgenError as e:
        e.done = done
        raise
    return done


def main():
    module = AnsibleModule(
        argument_spec=dict(
            commands=dict(type='list', elements='str', required=True),
            netns=dict(type='str'),
            proc_dir=dict(type='path', default=pp.PROC),
        ),
        supports_check_mode=True,
    )
    p = module.params
    for c in p['commands']:
        why = pp.check_command(c)
        if why:
            module.fail_json(msg='"%s": %s' % (c, why), writes=[])
    try:
        writes = pp.in_netns(p['netns'], lambda: work(p['proc_dir'], p['commands'],
                                                      module.check_mode))
    except pp.PktgenError as e:
        module.fail_json(**pp.fail_args(e))
    module.exit_json(changed=bool(writes), writes=writes)


if __name__ == '__main__':
    main()
