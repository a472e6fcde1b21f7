#!/usr/bin/python3
"""Paired timing of two commands: A and B run in turn (A B A B ...), N pairs after W warm-up
pairs; prints the median (and min, max) of each one's wall and CPU time and of the ratio A/B
taken pair by pair, which stays meaningful when the machine's speed drifts during the call.
CPU is user + system of everything the command waited for (wait4's rusage). Output is
discarded; each command runs in a process group of its own.

usage: bench/pair.py [-n N] [--warmup W] --vs 'COMMAND B' -- COMMAND A [ARG...]
       (B is split as a shell splits words, but run without a shell)
"""

import argparse
import os
import shlex
import shutil
import statistics
import sys
import time


NULL = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]


def once(cmd):
    """Wall and CPU seconds of one run (posix_spawn: little of Python's own cost in them)."""
    exe = shutil.which(cmd[0]) or sys.exit("pair.py: %s: command not found" % cmd[0])
    start = time.monotonic()
    pid = os.posix_spawn(exe, cmd, os.environ, file_actions=NULL, setsid=True)
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit("pair.py: %s exited %d" % (" ".join(cmd), code))
    return wall, ru.ru_utime + ru.ru_stime


def row(name, xs, unit):
    fmt = "%.4f" if unit == "" else "%.4f s"
    print("%-10s %s" % (name, "  ".join(fmt % x for x in (min(xs), statistics.median(xs),
                                                              max(xs)))))


def main():
    ap = argparse.ArgumentParser(usage=__doc__.split("usage: ")[1].split("\n")[0])
    ap.add_argument("-n", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--vs", required=True)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    o = ap.parse_args()
    a = o.cmd[1:] if o.cmd[:1] == ["--"] else o.cmd
    b = shlex.split(o.vs)
    if not a or not b or o.n < 1:
        ap.error("give both commands and N >= 1")
    for _ in range(o.warmup):
        once(a), once(b)
    ta, tb = [], []
    for _ in range(o.n):
        ta.append(once(a))
        tb.append(once(b))
    print("%d pairs; min  median  max" % o.n)
    row("A wall", [w for w, _ in ta], "s")
    row("B wall", [w for w, _ in tb], "s")
    row("A cpu", [c for _, c in ta], "s")
    row("B cpu", [c for _, c in tb], "s")
    row("A/B wall", [x[0] / y[0] for x, y in zip(ta, tb)], "")
    row("A/B cpu", [x[1] / y[1] for x, y in zip(ta, tb) if y[1] > 0] or [float("nan")], "")


if __name__ == "__main__":
    main()
