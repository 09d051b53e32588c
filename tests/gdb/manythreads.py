#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""manythreads.py SRC DST N: a crafted bundle of N threads (issue #15 items
3 and 8) from bundle SRC of one thread: DST is SRC with N - 1 more threads
in the same process (tids 1000001...), each a copy of the first one's PT
stream, without register snapshots.  Threads a recorder could produce
(every stream is a real one); only their number is unusual."""
import json
import os
import shutil
import sys


def main():
    src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if os.path.exists(dst):
        shutil.rmtree(dst)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns('index'))
    with open(os.path.join(src, 'manifest.json')) as f:
        m = json.load(f)
    if len(m['threads']) != 1:
        sys.exit('manythreads: %s: one thread expected' % src)
    first = m['threads'][0]
    data = open(os.path.join(src, first['pt']), 'rb').read()
    for i in range(1, n):
        tid = 1000000 + i
        rel = 'pt/%d.pt' % tid
        with open(os.path.join(dst, rel), 'wb') as f:
            f.write(data)
        m['threads'].append({'pid': first['pid'], 'tid': tid, 'pt': rel})
        m['files'].append({'path': rel, 'kind': 'pt', 'size': len(data)})
    with open(os.path.join(dst, 'manifest.json'), 'w') as f:
        json.dump(m, f, indent=2)
        f.write('\n')


main()
