#!/usr/bin/python3
"""What the plugin makes dearer in a suite's own work, beyond its start-up and its hooks: the
garbage collector's time (the plugin's objects move when Python collects, and a full
collection can fall during the tests rather than at import) and the price of each audit event
(with any audit hook in, CPython builds every event's arguments: each id(), sys._getframe(),
object.__getattr__ pays it). Runs pytest.main() in the current directory bare and with
`-p testfence`, RUNS rounds interleaved, each in a fresh process; prints per mode the minimum
and median of the collector's time, the number of collections, the time of full ones, and
the ns of one id() call timed after the session (the hook is still in); then the number of
audit events the bare suite raises, by name (counted in one more bare run, with a hook of its
own: that run is not timed).

usage: bench/plugin_effects.py [RUNS] [BUILD_DIR] [-- PYTEST_ARGS...]   (from a suite's
       checkout, its own PYTHONPATH set; defaults 5, build; PYTHONDONTWRITEBYTECODE as the
       caller has it)
"""
import os, statistics, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "python")
CHILD = r"""import gc, os, sys, time, timeit, collections, pytest
mode, args = sys.argv[1], sys.argv[2:]
gct = {"start": 0.0, "all": 0.0, "full": 0.0, "n": 0}
def collected(phase, info):
    if phase == "start":
        gct["start"] = time.perf_counter()
        return
    d = time.perf_counter() - gct["start"]
    gct["all"] += d
    gct["n"] += 1
    gct["full"] += d if info["generation"] == 2 else 0
events = collections.Counter()
if mode == "count":
    sys.addaudithook(lambda event, _: events.update((event,)))
else:
    gc.callbacks.append(collected)
code = pytest.main(["-q", "-p", "no:cacheprovider"] + args)
gc.callbacks.clear()
if mode == "count":
    out = "events %d %s" % (sum(events.values()), " ".join("%s=%d" % kv for kv in events.most_common(6)))
else:
    per_id = min(timeit.repeat("id(0)", number=100000, repeat=5)) / 100000 * 1e9
    out = "gc %.2f %d %.2f id %.1f exit %d" % (gct["all"] * 1e3, gct["n"], gct["full"] * 1e3, per_id, code)
os.write(int(os.environ["EFFECTS_FD"]), (out + "\n").encode())
"""


def once(mode, args, env):
    r, w = os.pipe()
    extra = ["-p", "testfence"] if mode == "plugin" else []
    p = subprocess.Popen([sys.executable, "-c", CHILD, mode] + extra + args, pass_fds=[w],
                         env=dict(env, EFFECTS_FD=str(w)), stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    os.close(w)
    with os.fdopen(r) as f:
        line = f.read().split()
    p.wait()
    if not line:
        sys.exit("plugin_effects.py: a %s run said nothing (exit %d)" % (mode, p.returncode))
    return line


def main():
    argv = sys.argv[1:]
    args = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    runs = int(argv[0]) if argv else 5
    build = os.path.abspath(argv[1] if len(argv) > 1 else os.path.join(HERE, "..", "build"))
    path = os.pathsep.join(p for p in (os.environ.get("PYTHONPATH"), SRC) if p)
    env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", PYTHONPATH=path,
               TESTFENCE_LIBRARY=os.path.join(build, "libtestfence.so"))
    seen = {"bare": [], "plugin": []}
    for _ in range(runs):
        for mode in seen:
            seen[mode].append(once(mode, args, env))
    for mode, rows in seen.items():
        col = lambda i: [float(r[i]) for r in rows]
        print("%-6s gc ms min %6.1f median %6.1f; collections %s; full ones ms median %6.1f; "
              "id() %4.1f ns; exit %s" % (mode, min(col(1)), statistics.median(col(1)),
                                          "/".join(sorted({r[2] for r in rows})),
                                          statistics.median(col(3)), min(col(5)),
                                          "/".join(sorted({r[7] for r in rows}))))
    print("bare's audit events: " + " ".join(once("count", args, env)[1:]))


main()
