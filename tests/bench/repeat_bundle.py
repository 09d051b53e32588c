#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""repeat_bundle.py SRC DST K: copies bundle SRC (one thread) to DST with its
trace stream repeated K times.  Each copy starts at its own PSB, so when
SRC's history ends just where it began (the benchmark records from a
function's entry to a later call of it) DST is one consistent history K
times as long.  The manifest's size of the stream is updated; the ground
truth, if any, is dropped (it would no longer match)."""
import json
import os
import shutil
import sys


def main():
    src, dst, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if os.path.exists(dst):
        shutil.rmtree(dst)
    shutil.copytree(src, dst)
    with open(os.path.join(src, 'manifest.json')) as f:
        m = json.load(f)
    if len(m['threads']) != 1:
        sys.exit('repeat_bundle: %s: one thread expected' % src)
    thread = m['threads'][0]
    data = open(os.path.join(src, thread['pt']), 'rb').read()
    with open(os.path.join(dst, thread['pt']), 'wb') as f:
        for _ in range(k):
            f.write(data)
    for entry in m.get('files', []):
        if entry.get('path') == thread['pt'] or \
                entry.get('file') == thread['pt']:
            entry['size'] = len(data) * k
    if 'truth' in thread:
        del thread['truth']
        shutil.rmtree(os.path.join(dst, 'truth'), ignore_errors=True)
    with open(os.path.join(dst, 'manifest.json'), 'w') as f:
        json.dump(m, f, indent=2)
        f.write('\n')


main()
