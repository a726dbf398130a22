# SPDX-License-Identifier: GPL-2.0
"""Filters turning a pktgen.lab scenario (YAML vars) into module arguments.

    pktgen_scenario | pktgen.lab.sender_config(inventory_hostname)
        [{netns, thread, add_device, devices}] for pktgen_config, one per
        (netns, thread) of the host's flows;
    pktgen_scenario | pktgen.lab.receiver_config(inventory_hostname)
        [{netns, commands}] for pktgen_rx, one per receiver of the host.

The scenario format is Documentation/many-hosts.rst's ("The Ansible
collection"); an error in a flow or receiver raises AnsibleFilterError
naming it.  A scenario that is not a dict is an empty one here (linters
template the roles with placeholder values): the roles assert that
pktgen_scenario is a mapping before they use these filters.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible.errors import AnsibleFilterError

_FLOW_KEYS = {'name', 'sender', 'netns', 'device', 'thread', 'streams', 'dst', 'dst_mac',
              'src', 'src_mac', 'udp_src', 'udp_dst', 'pkt_size', 'rate_pps', 'count',
              'duration_s', 'commands', 'flags'}
_MAC = re.compile(r'^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$')


def _int(flow, key, val, lo=0):
    if isinstance(val, bool) or not isinstance(val, int) or val < lo:
        raise AnsibleFilterError('flow %s: %s must be an integer >= %d, not %r'
                                 % (flow, key, lo, val))
    return val


def _flows(scenario):
    if not isinstance(scenario, dict):
        return []
    flows = scenario.get('flows') or []
    if not isinstance(flows, list):
        raise AnsibleFilterError('flows must be a list')
    defaults = scenario.get('defaults') or {}
    out = []
    for i, f in enumerate(flows):
        if not isinstance(f, dict):
            raise AnsibleFilterError('flow %d: not a dict' % i)
        f = dict(defaults, **f)
        name = f.get('name', str(i))
        bad = set(f) - _FLOW_KEYS
        if bad:
            raise AnsibleFilterError('flow %s: unknown keys %s' % (name, ', '.join(sorted(bad))))
        for k in ('sender', 'device', 'dst', 'dst_mac'):
            if not f.get(k):
                raise AnsibleFilterError('flow %s: %s is required' % (name, k))
        if not _MAC.match(str(f['dst_mac'])):
            raise AnsibleFilterError('flow %s: dst_mac %r is not a MAC address'
                                     % (name, f['dst_mac']))
        if ('count' in f) == ('duration_s' in f):
            raise AnsibleFilterError('flow %s: give count or duration_s (one of them)' % name)
        f['name'] = name
        out.append(f)
    return out


def _stream_commands(f):
    c = []
    if 'count' in f:
        c.append('count %d' % _int(f['name'], 'count', f['count']))
    else:
        d = f['duration_s']
        if isinstance(d, bool) or not isinstance(d, (int, float)) or d <= 0:
            raise AnsibleFilterError('flow %s: duration_s must be a number of seconds '
                                     'above 0, not %r' % (f['name'], d))
        c += ['count 0', 'duration %dms' % max(1, int(round(d * 1000)))]
    c.append('pkt_size %d' % _int(f['name'], 'pkt_size', f.get('pkt_size', 60), 1))
    c += ['dst %s' % f['dst'], 'dst_mac %s' % f['dst_mac']]
    if f.get('src'):
        c.append('src_min %s' % f['src'])
        c.append('src_max %s' % f['src'])
    if f.get('src_mac'):
        c.append('src_mac %s' % f['src_mac'])
    if f.get('udp_src') is not None:
        c += ['udp_src_min %d' % f['udp_src'], 'udp_src_max %d' % f['udp_src']]
    if f.get('udp_dst') is not None:
        c += ['udp_dst_min %d' % f['udp_dst'], 'udp_dst_max %d' % f['udp_dst']]
    if f.get('rate_pps'):
        c.append('ratep %d' % _int(f['name'], 'rate_pps', f['rate_pps'], 1))
    # the stream id extension: each pktgen device is one pgrx stream
    c += ['flag %s' % x for x in ['NS_TIMESTAMP'] + list(f.get('flags') or [])]
    c += [str(x) for x in f.get('commands') or []]
    return c


def sender_config(scenario, host):
    """pktgen_config's arguments for HOST's flows: devices IFNAME@N, N
    counting the host's stream devices per namespace from 0."""
    groups = {}
    tags = {}
    for f in _flows(scenario):
        if f['sender'] != host:
            continue
        ns = f.get('netns') or ''
        thread = _int(f['name'], 'thread', f.get('thread', 0))
        g = groups.setdefault((ns, thread), {'netns': ns, 'thread': thread,
                                             'rem_device_all': True,
                                             'add_device': [], 'devices': {}})
        for _ in range(_int(f['name'], 'streams', f.get('streams', 1), 1)):
            n = tags.get(ns, 0)
            tags[ns] = n + 1
            dev = '%s@%d' % (f['device'], n)
            g['add_device'].append(dev)
            g['devices'][dev] = _stream_commands(f)
    return [groups[k] for k in sorted(groups)]


def receiver_config(scenario, host):
    """pktgen_rx's arguments for HOST's receivers: a fresh receiver
    (rx_disable, rx_reset), its statistics and sampling, rx on each device."""
    out = []
    if not isinstance(scenario, dict):
        return out
    for r in scenario.get('receivers') or []:
        if not isinstance(r, dict) or not r.get('host') or not r.get('devices'):
            raise AnsibleFilterError('a receiver needs host and devices: %r' % (r,))
        if r['host'] != host:
            continue
        c = ['rx_disable', 'rx_reset', 'statistics %s' % r.get('statistics', 'time')]
        if r.get('copies'):
            c.append('copies %d' % r['copies'])
        if r.get('sample'):
            c.append('sample %d' % r['sample'])
        c += ['rx %s' % d for d in r['devices']]
        out.append({'netns': r.get('netns') or '', 'commands': c})
    return out


def scenario_namespaces(scenario, host):
    """Every netns HOST uses in the scenario (senders and receivers), '' first."""
    ns = set()
    for f in _flows(scenario):
        if f['sender'] == host:
            ns.add(f.get('netns') or '')
    for r in scenario.get('receivers') or [] if isinstance(scenario, dict) else []:
        if isinstance(r, dict) and r.get('host') == host:
            ns.add(r.get('netns') or '')
    return sorted(ns)


class FilterModule(object):
    def filters(self):
        return {'sender_config': sender_config, 'receiver_config': receiver_config,
                'scenario_namespaces': scenario_namespaces}
