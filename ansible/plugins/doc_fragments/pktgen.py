# SPDX-License-Identifier: GPL-2.0
"""The options every pktgen.lab module shares (netns, proc_dir)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # pylint: disable=too-few-public-methods

    DOCUMENTATION = r'''
options:
  netns:
    description:
      - Network namespace (a name of C(ip netns), C(/run/netns/NAME)).
        The work runs in a forked child that enters it with setns(2).
      - Empty or absent is the module's own namespace.
    type: str
  proc_dir:
    description: The pktgen directory. Only tests change it.
    type: path
    default: /proc/net/pktgen
notes:
  - Supports check mode.
'''
