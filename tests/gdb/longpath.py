#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""longpath.py SRC DST: a crafted bundle (issue #15 item 4) from SRC with
libc's recorded path made 70,000 bytes long and given XML's special
characters: the server's library list once added snprintf's would-be
length past its 64 KB buffer and sent the memory beyond it."""
import json
import os
import shutil
import sys


def main():
    src, dst = sys.argv[1], sys.argv[2]
    if os.path.exists(dst):
        shutil.rmtree(dst)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns('index'))
    with open(os.path.join(src, 'manifest.json')) as f:
        m = json.load(f)
    n = 0
    for im in m['images']:
        if im.get('path', '').endswith('/libc.so.6'):
            im['path'] = '/' + 'a' * 70000 + '/<&">libc.so.6'
            n += 1
    if n != 1:
        sys.exit('longpath: %s: no libc image' % src)
    with open(os.path.join(dst, 'manifest.json'), 'w') as f:
        json.dump(m, f, indent=2)
        f.write('\n')


main()
