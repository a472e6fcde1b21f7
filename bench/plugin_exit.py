#!/usr/bin/python3
"""Where the plugin's fixed cost falls in a pytest's life: bare pytest and the plugin of one or
more trees, interleaved RUNS rounds, each run stamped by the probe plugin (plugin_exit/tfprobe.py,
loaded first in every mode). Prints per mode the medians and the means (ms; the means of the
stretches add up to the mean wall) of: before the probe's import (interpreter, `import
pytest`), the stretches between its stamps, from its exit handler (the last to run) to the
parent's wait4 (the interpreter's finalization and exit), wall and CPU.

usage: bench/plugin_exit.py RUNS MODE...      in a project (a copy of a realsuites checkout)
       MODE: bare, or PYTHON_DIR:LIBRARY (a tree's python/ and its build's libtestfence.so)
       PYTEST_DISABLE_PLUGIN_AUTOLOAD and PYTHONDONTWRITEBYTECODE as the caller has them; any
       PYTHONPATH of the caller's (src) is kept after the plugin's.
"""
import os, statistics, subprocess, sys, time

PROBE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plugin_exit")


def once(mode):
    env = dict(os.environ)
    path = [PROBE]
    args = [sys.executable, "-m", "pytest", "-q", "-p", "tfprobe"]
    if mode != "bare":
        pydir, lib = mode.split(":")
        path.append(pydir)
        env["TESTFENCE_LIBRARY"] = lib
        args += ["-p", "testfence"]
    env["PYTHONPATH"] = os.pathsep.join(path + [p for p in [env.get("PYTHONPATH")] if p])
    t0 = time.perf_counter()
    p = subprocess.Popen(args + ["tests"], env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    err = p.stderr.read().decode(errors="replace")
    _, status, ru = os.wait4(p.pid, 0)
    t1 = time.perf_counter()
    line = [l for l in err.splitlines() if l.startswith("TFPROBE ")]
    if os.waitstatus_to_exitcode(status) != 0 or not line:
        sys.exit("plugin_exit.py: %s failed:\n%s" % (mode, err))
    marks = [(k, float(v)) for k, v in (w.split("=") for w in line[-1].split()[1:])]
    out = {"pre": marks[0][1] - t0}
    out.update(("%s..%s" % (a[0], b[0]), b[1] - a[1]) for a, b in zip(marks, marks[1:]))
    out.update({"finalize": t1 - marks[-1][1], "wall": t1 - t0,
                "cpu": ru.ru_utime + ru.ru_stime})
    return out


def main():
    runs, modes = int(sys.argv[1]), sys.argv[2:] or ["bare"]
    got = {m: [] for m in modes}
    for r in range(runs + 1):  # round 0 warms up
        for m in modes[r % len(modes):] + modes[:r % len(modes)]:
            t = once(m)
            if r:
                got[m].append(t)
    for m in modes:
        keys = got[m][0].keys()
        print(m)
        for name, f in (("median", statistics.median), ("mean", statistics.mean)):
            print("   %-6s " % name + "  ".join("%s %.1f" % (k, 1e3 * f([t[k] for t in got[m]]))
                                              for k in keys))


if __name__ == "__main__":
    main()
