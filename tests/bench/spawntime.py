#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The wall-clock part of scripts/bench-real (issue #19): the plain libipt
loop (iptraw) against `ptrec import raw` + `ptrec info` (the first open), as
a user runs them: two processes, the bundle made new each time.

Each process is started with posix_spawn() and timed from just before the
spawn to its exit (waitpid), so no shell, date(1) or time(1) start falls
inside a timed span: on Unzip, a 6-7 ms plain loop, the `date` calls and
the time(1) wrapper the script used before added about 3 ms, 1 of it to
ptrec's side only.  The three jobs take turns, RUNS times; prints the best
of each (seconds): plain loop, ptrec on 1 core (PTREC_INDEX_THREADS=1),
ptrec on 2 cores (--workers2: "default" for the worker count ptrec chooses
on this machine, or a number for PTREC_INDEX_THREADS).  The last outputs
are left in TMP/base.out and TMP/info.out for the script's
instruction-count check.  Not the peak RSS: a child spawned with
CLONE_VM is charged this Python's resident size until its exec, so the
script takes it from time(1), in a run of its own.
"""
import argparse
import os
import shutil
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    for a in ("runs", "tmp", "iptraw", "ptrec", "pt", "images", "cpu",
              "workers2"):
        ap.add_argument("--" + a, required=True)
    o = ap.parse_args()
    null = os.open(os.devnull, os.O_WRONLY)

    def spawn(argv, env, out):
        acts = [(os.POSIX_SPAWN_DUP2, out, 1),
                (os.POSIX_SPAWN_DUP2, null, 2)]
        t0 = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, env, file_actions=acts)
        _, status = os.waitpid(pid, 0)
        t = time.perf_counter() - t0
        if status:
            sys.exit("spawntime: %s exited with status %#x" %
                     (" ".join(argv), status))
        return t

    def out(name):
        return os.open(os.path.join(o.tmp, name),
                       os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)

    env1 = dict(os.environ, PTREC_INDEX_THREADS="1")
    env2 = dict(os.environ)
    env2.pop("PTREC_INDEX_THREADS", None)
    if o.workers2 != "default":
        env2["PTREC_INDEX_THREADS"] = o.workers2
    bundle = os.path.join(o.tmp, "b")
    best = {"base": [], 1: [], 2: []}
    for _ in range(int(o.runs)):
        fd = out("base.out")
        t = spawn([o.iptraw, o.pt, o.images, o.cpu], os.environ, fd)
        os.close(fd)
        best["base"].append(t)
        for w, env in ((2, env2), (1, env1)):
            shutil.rmtree(bundle, ignore_errors=True)
            ti = spawn([o.ptrec, "import", "raw", "-o", bundle, "--pt",
                           o.pt, "--images", o.images, "--cpu", o.cpu],
                          os.environ, null)
            fd = out("info.out")
            tn = spawn([o.ptrec, "info", bundle], env, fd)
            os.close(fd)
            best[w].append(ti + tn)
    print("%.6f %.6f %.6f" % (min(best["base"]), min(best[1]),
                              min(best[2])))


if __name__ == "__main__":
    main()
