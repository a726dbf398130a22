#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""prom_query.py URL QUERY: a Prometheus instant query (/api/v1/query).

Prints one line per series: its labels as k=v,k=v (sorted, __name__
left out) then a space and the value; exit 1 on an HTTP or query error.
tests/exporter.sh compares what Prometheus scraped with /proc by it.
"""
import json
import sys
import urllib.parse
import urllib.request


def main():
    url, query = sys.argv[1], sys.argv[2]
    q = urllib.parse.urlencode({'query': query})
    try:
        with urllib.request.urlopen(f'{url}/api/v1/query?{q}', timeout=20) as r:
            data = json.load(r)
    except OSError as e:
        print(f'query {query}: {e}', file=sys.stderr)
        return 1
    if data.get('status') != 'success':
        print(f'query {query}: {data}', file=sys.stderr)
        return 1
    for s in data['data']['result']:
        lab = ','.join(f'{k}={v}' for k, v in sorted(s['metric'].items()) if k != '__name__')
        print(f'{lab} {s["value"][1]}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
