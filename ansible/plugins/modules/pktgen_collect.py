#!/usr/bin/python
# SPDX-License-Identifier: GPL-2.0
"""pktgen.lab.pktgen_collect: every device's pgstats and pgrx's JSON."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: pktgen_collect
short_description: Read pktgen's pgstats and pgrx's JSON view
description:
  - Reads C(/proc/net/pktgen/pgstats) (one object per device, the keys
    and numbers of C(pgstats --json)) and, when C(pgrx) exists and
    O(pgrx) is true, pgrx's JSON view (written C(display json) first,
    as pktgen-exporter does; Documentation/receiver.rst has its schema),
    in the initial network namespace or in C(netns).
  - Changes no pktgen figure. It reports C(changed) when it wrote
    C(display json) to pgrx (which changes what a person reading pgrx
    sees); never in check mode, where pgrx is read as it is and its
    JSON only returned if pgrx is already in C(display json).
version_added: 1.0.0
author: pktgen project
options:
  pgrx:
    description: Also read pgrx (when the file exists).
    type: bool
    default: true
extends_documentation_fragment:
  - pktgen.lab.pktgen
'''

EXAMPLES = r'''
- name: Read this host's figures
  pktgen.lab.pktgen_collect:
  register: pg
'''

RETURN = r'''
pgstats:
  description: One dict per pktgen device (pgstats' keys; numbers as numbers).
  returned: always
  type: list
  elements: dict
pgrx:
  description: pgrx's JSON view (version 1), null without pgrx.
  returned: always
  type: dict
'''

import json
import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.pktgen.lab.plugins.module_utils import pktgen_proc as pp


def work(proc, want_rx, check):
    stats = os.path.join(proc, 'pgstats')
    pp.need(stats, "not this project's pktgen, or not loaded")
    out = {'pgstats': pp.parse_pgstats(pp.read(stats)), 'pgrx': None, 'wrote': False}
    rx = os.path.join(proc, 'pgrx')
    if want_rx and os.path.exists(rx):
        if not check:
            pp.pgset(rx, 'display json')
            out['wrote'] = True
        text = pp.read(rx)
        if text.lstrip().startswith('{'):
            try:
                out['pgrx'] = json.loads(text)
            except ValueError as e:
                raise pp.PktgenError('%s: not JSON: %s' % (rx, e))
    return out


def main():
    module = AnsibleModule(
        argument_spec=pp.argument_spec(
            pgrx=dict(type='bool', default=True),
        ),
        supports_check_mode=True,
    )
    p = module.params
    out = pp.run_module(module, lambda: work(p['proc_dir'], p['pgrx'], module.check_mode))
    module.exit_json(changed=out['wrote'], pgstats=out['pgstats'], pgrx=out['pgrx'])


if __name__ == '__main__':
    main()
