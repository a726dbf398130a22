#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Run tools/ipodump's main() once per command line, in one python
(tests/ipodump.sh: each python start costs seconds under TCG).

    ipodump_argv.py IPODUMP DIR 'NAME=ARG ARG...' ...

For each NAME: DIR/e_NAME.rc (exit status) and DIR/e_NAME.err (stderr),
as the separate runs of the test write them.  Only for command lines
that stop before opening a socket (usage errors, -I nosuch0).
"""

import io
import sys

path, out = sys.argv[1], sys.argv[2]
code = compile(open(path).read(), path, 'exec')
tool = {'__name__': 'ipodump'}
exec(code, tool)
for case in sys.argv[3:]:
    name, argv = case.split('=', 1)
    sys.argv = ['ipodump'] + argv.split(' ')
    err, sys.stderr = sys.stderr, io.StringIO()
    try:
        rc = tool['main']()
    except SystemExit as e:
        rc = e.code
    text, sys.stderr = sys.stderr.getvalue(), err
    with open('%s/e_%s.err' % (out, name), 'w') as f:
        f.write(text)
    with open('%s/e_%s.rc' % (out, name), 'w') as f:
        f.write('%s\n' % rc)
