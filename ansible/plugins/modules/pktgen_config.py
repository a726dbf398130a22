#!/usr/bin/python
# SPDX-License-Identifier: GPL-2.0
"""pktgen.lab.pktgen_config: configure pktgen devices through /proc/net/pktgen."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: pktgen_config
short_description: Configure pktgen threads and devices in /proc/net/pktgen
description:
  - Writes pktgen commands, one write(2) each, to the thread file
    C(kpktgend_N) (C(rem_device_all), C(add_device)) and to each device's
    file, in the initial network namespace or in C(netns).
  - After every write it reads the file's C(Result:) line and fails the
    task on a refused write (with its errno) or a Result that is not
    C(OK), showing pktgen's text. Writes done before the failing one stay
    done.
  - "Idempotence: pktgen's configuration is write-only (a device file
    shows the parameters, not the commands that set them), so the module
    does not compare; it writes every command each time and reports
    C(changed) whenever it wrote at least one command. Re-running it gives
    the same configuration: C(rem_device_all) first makes that so."
  - Check mode writes nothing; it checks that the files exist and reports
    the commands it would write, with C(changed) if there is any.
version_added: 1.0.0
author: pktgen project
options:
  reset:
    description:
      - Write C(reset) to C(pgctrl) first, so every thread of the
        namespace loses its devices (a C(start_at) starts every thread that
        has devices). pgctrl shows no Result for it; only the write's
        errno is checked.
    type: bool
    default: false
  thread:
    description:
      - The pktgen thread (CPU number) whose file C(kpktgend_N) gets
        C(rem_device_all) and C(add_device).
      - Required with O(rem_device_all) or O(add_device).
    type: int
  rem_device_all:
    description: Write C(rem_device_all) to the thread first.
    type: bool
    default: false
  add_device:
    description: Devices (C(IFNAME) or C(IFNAME@TAG)) to add to the thread, in order.
    type: list
    elements: str
    default: []
  devices:
    description:
      - Per device name, its commands, written in order.
      - A list of command strings (C(count 1000)), or a dict of
        command to argument (C(count 1000)); an argument that is a list
        repeats the command once per item (C(flag [UDPCSUM, NS_TIMESTAMP])),
        an empty argument writes the command alone.
    type: dict
    default: {}
notes:
  - Needs root (CAP_NET_ADMIN in the initial user namespace; setns needs CAP_SYS_ADMIN).
extends_documentation_fragment:
  - pktgen.lab.pktgen
'''

EXAMPLES = r'''
- name: One device on thread 0, in netns tx
  pktgen.lab.pktgen_config:
    netns: tx
    thread: 0
    rem_device_all: true
    add_device: [eth1@0]
    devices:
      eth1@0:
        count: 100000
        pkt_size: 60
        dst: 10.0.0.2
        dst_mac: "52:54:00:00:00:02"
        ratep: 10000
        flag: [UDPCSUM, NS_TIMESTAMP]
'''

RETURN = r'''
writes:
  description:
    - Every command written (or, in check mode, to be written), with its Result.
    - On failure, the commands written before the one that failed.
  returned: always
  type: list
  elements: dict
  sample: [{"file": "kpktgend_0", "command": "add_device eth1@0", "result": "OK: add_device=eth1@0"}]
errno:
  description: On failure, the errno of the refused write (0 when the write passed but the Result was not OK).
  returned: failure
  type: int
result:
  description: On failure, pktgen's Result text.
  returned: failure
  type: str
'''

import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.pktgen.lab.plugins.module_utils import pktgen_proc as pp


def device_commands(cmds):
    """The command strings of one device's O(devices) value."""
    if isinstance(cmds, (list, tuple)):
        return [str(c) for c in cmds]
    if isinstance(cmds, dict):
        out = []
        for k, v in cmds.items():
            if isinstance(v, (list, tuple)):
                out += ['%s %s' % (k, i) for i in v]
            elif v is None or v == '':
                out.append(str(k))
            elif isinstance(v, bool):
                raise ValueError('%s: a boolean is not a pktgen argument' % k)
            else:
                out.append('%s %s' % (k, v))
        return out
    raise ValueError('commands must be a list or a dict, not %s' % type(cmds).__name__)


def plan(p):
    """[(file, command)] to write, or ValueError on bad arguments."""
    out = [('pgctrl', 'reset')] if p['reset'] else []
    if (p['rem_device_all'] or p['add_device']) and p['thread'] is None:
        raise ValueError('thread is required with rem_device_all or add_device')
    if p['thread'] is not None and p['thread'] < 0:
        raise ValueError('thread must be a CPU number (0 or more)')
    tfile = 'kpktgend_%d' % p['thread'] if p['thread'] is not None else None
    if p['rem_device_all']:
        out.append((tfile, 'rem_device_all'))
    for d in p['add_device']:
        why = pp.check_device(d)
        if why:
            raise ValueError('add_device: ' + why)
        out.append((tfile, 'add_device ' + d))
    for dev, cmds in p['devices'].items():
        why = pp.check_device(dev)
        if why:
            raise ValueError('devices: ' + why)
        for c in device_commands(cmds):
            why = pp.check_command(c)
            if why:
                raise ValueError('devices: %s: "%s": %s' % (dev, c, why))
            out.append((dev, c))
    return out


def work(proc, todo, check):
    pp.need(proc, "load the module (modprobe pktgen) or give the devices' netns")
    if check:
        added = set()

        def would_write(path, c):
            # a device added by this run does not exist yet
            if os.path.basename(path) not in added:
                pp.need(path, 'not a pktgen file, nor a device this task adds')
            if c.startswith('add_device '):
                added.add(c.split(' ', 1)[1])
            return None
        return pp.write_each(proc, todo, would_write)
    return pp.write_each(proc, todo, write_one)


def write_one(path, c):
    """pgctrl shows no Result: only its write's errno counts."""
    if os.path.basename(path) != 'pgctrl':
        return pp.pgset(path, c)
    try:
        pp.write_raw(path, c)
    except OSError as e:
        raise pp.PktgenError('%s: "%s": %s' % (path, c, e.strerror or e), e.errno or 0)
    return None


def main():
    module = AnsibleModule(
        argument_spec=pp.argument_spec(
            reset=dict(type='bool', default=False),
            thread=dict(type='int'),
            rem_device_all=dict(type='bool', default=False),
            add_device=dict(type='list', elements='str', default=[]),
            devices=dict(type='dict', default={}),
        ),
        supports_check_mode=True,
    )
    p = module.params
    try:
        todo = plan(p)
    except ValueError as e:
        module.fail_json(msg=str(e), writes=[])
    writes = pp.run_module(module, lambda: work(p['proc_dir'], todo, module.check_mode))
    module.exit_json(changed=bool(writes), writes=writes)


if __name__ == '__main__':
    main()
