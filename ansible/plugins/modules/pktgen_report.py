#!/usr/bin/python
# SPDX-License-Identifier: GPL-2.0
"""pktgen.lab.pktgen_report: merge collected runs into one report."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: pktgen_report
short_description: Merge every host's pgstats and pgrx JSON into one report
description:
  - Reads the per-host documents the C(collect) role fetched
    (C(HOST.json) in O(src)) and writes O(dest)/report.json,
    report.csv and report.png (matplotlib; per host and in total the
    packets sent, received and lost, and the latency p50, p99 and p99.9
    per stream).
  - Meant for the controller (C(delegate_to localhost)). The merge is
    module_utils/pktgen_report.py, which tests call on fixtures.
  - "C(changed): always, it writes the three files. Check mode writes nothing."
version_added: 1.0.0
author: pktgen project
options:
  src:
    description: Directory of the collected C(*.json) documents.
    type: path
    required: true
  dest:
    description: Directory for the report (created).
    type: path
    required: true
  png:
    description: Also draw report.png (fails without matplotlib).
    type: bool
    default: true
notes:
  - Supports check mode.
requirements:
  - matplotlib (Debian's python3-matplotlib) for the PNG
'''

EXAMPLES = r'''
- name: One report of the run
  pktgen.lab.pktgen_report:
    src: results/run1/hosts
    dest: results/run1
  delegate_to: localhost
'''

RETURN = r'''
total:
  description: The totals (sent, received, lost, loss_pct, unaccounted, p50_ns, p99_ns, p999_ns ...).
  returned: success
  type: dict
start:
  description: The start spread of a start_at run (spread_ns, worst_late_ns), null without one.
  returned: success
  type: dict
files:
  description: The files written.
  returned: success
  type: list
  elements: str
'''

import glob
import json
import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.pktgen.lab.plugins.module_utils import pktgen_report as pr


def main():
    module = AnsibleModule(
        argument_spec=dict(
            src=dict(type='path', required=True),
            dest=dict(type='path', required=True),
            png=dict(type='bool', default=True),
        ),
        supports_check_mode=True,
    )
    p = module.params
    docs = []
    for name in sorted(glob.glob(os.path.join(p['src'], '*.json'))):
        try:
            with open(name) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            module.fail_json(msg='%s: %s' % (name, e))
        if not isinstance(doc, dict) or 'host' not in doc:
            module.fail_json(msg='%s: not a collected host document' % name)
        docs.append(doc)
    if not docs:
        module.fail_json(msg='%s: no *.json document' % p['src'])
    if module.check_mode:
        rep = pr.merge(docs)
        module.exit_json(changed=True, total=rep['total'], start=rep['start'], files=[])
    try:
        os.makedirs(p['dest'], exist_ok=True)
        rep = pr.write_report(docs, p['dest'], plot=p['png'])
    except OSError as e:
        module.fail_json(msg='%s: %s' % (p['dest'], e))
    files = [os.path.join(p['dest'], 'report.' + x) for x in ('json', 'csv')]
    if p['png']:
        if not rep['png']:
            module.fail_json(msg='no PNG: matplotlib is missing (JSON and CSV written)',
                             files=files)
        files.append(os.path.join(p['dest'], 'report.png'))
    module.exit_json(changed=True, total=rep['total'], start=rep['start'], files=files)


if __name__ == '__main__':
    main()
