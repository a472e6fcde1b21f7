#!/usr/bin/python3
"""What the plugin makes dearer in a suite's own work, beyond its start-up and its hooks: the
garbage collector's time (the plugin's objects move when Python collects, and a full
collection can fall during the tests rather than at import) and the price of each audit event
(with any audit hook in, CPython builds every event's arguments: each id(), sys._getframe(),
object.__getattr__ pays it).

`python -m pytest -p no:cacheprovider ARGS` in the current directory, bare and with
`-p testfence`, RUNS rounds interleaved after one warm-up round, each in a fresh process. A
probe plugin loaded first (from a temp dir) times every collection (gc.callbacks) and, at exit
(the plugin's hook still in), one id() and one sys._getframe() call. Printed per mode: the
collector's time (minimum, median), the full collections of each round and their median time,
and the two calls' ns; then the audit events the bare suite raises, by name (one more bare run
with a counting hook, not timed). It stops, with the run's output, when a run exits 2 to 5
(pytest: interrupted, internal error, usage error, no tests), when the two modes end
differently (exit status, or any test's outcome: the probe compares them), or when the plugin
did not fence the run (the probe asks it). Linux (libtestfence.so);
PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 in both modes, so a suite that needs an installed plugin is
measured without it.

usage: bench/plugin_effects.py [RUNS] [BUILD_DIR] [-- PYTEST_ARGS...]   (from a suite's
       checkout, its own PYTHONPATH set; RUNS default 5; BUILD_DIR, relative to the current
       directory, default this checkout's build; PYTHONDONTWRITEBYTECODE as the caller has it;
       the plugin byte-compiled first, as pip and Debian install it)
"""
import compileall, os, shutil, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "python")
PROBE = r'''"""bench/plugin_effects.py's probe, loaded before testfence (-p order)."""
import atexit, collections, gc, hashlib, os, sys, time, timeit

_FD = int(os.environ["EFFECTS_FD"])
_gc = {"start": 0.0, "all": 0.0, "full": [], "n": 0}
_events = collections.Counter()
_outcomes = {}  # nodeid -> its phases' outcomes that were not "passed", or "passed"


def pytest_runtest_logreport(report):
    seen = _outcomes.setdefault(report.nodeid, "passed")
    if report.outcome != "passed":
        mark = report.when + ":" + report.outcome
        _outcomes[report.nodeid] = mark if seen == "passed" else seen + "," + mark


def _verdicts():
    """The tests' outcomes, as a count and a digest: the two modes must have the same."""
    lines = sorted("%s %s" % kv for kv in _outcomes.items())
    failing = sum(1 for _, o in _outcomes.items() if o != "passed")
    return "%d/%d:%s" % (failing, len(lines),
                         hashlib.sha1("\n".join(lines).encode()).hexdigest()[:12])


def _fenced():
    state = sys.modules.get("_testfence.state")
    return int(getattr(getattr(state, "_state", None), "mode", None) == "fenced")


def _collected(phase, info):
    if phase == "start":
        _gc["start"] = time.perf_counter()
        return
    d = (time.perf_counter() - _gc["start"]) * 1e3
    _gc["all"] += d
    _gc["n"] += 1
    if info["generation"] == 2:
        _gc["full"].append(d)


def _ns(stmt):
    return min(timeit.repeat(stmt, setup="import sys", number=100000, repeat=5)) / 100000 * 1e9


def _say():
    if os.environ.get("EFFECTS_COUNT"):
        out = "events %d %s" % (sum(_events.values()),
                                " ".join("%s=%d" % kv for kv in _events.most_common(6)))
    else:
        gc.callbacks.remove(_collected)
        full = ",".join("%.2f" % d for d in _gc["full"]) or "-"
        out = ("gc_ms=%.2f collections=%d full_ms=%s id_ns=%.1f getframe_ns=%.1f fenced=%d "
               "tests=%s") % (
            _gc["all"], _gc["n"], full, _ns("id(0)"), _ns("sys._getframe()"), _fenced(),
            _verdicts())
    os.write(_FD, (out + "\n").encode())


if os.environ.get("EFFECTS_COUNT"):
    sys.addaudithook(lambda event, _: _events.update((event,)))
else:
    gc.callbacks.append(_collected)
atexit.register(_say)
'''


def fail(why, log=None):
    tail = ""
    if log:
        with open(log, errors="replace") as f:
            tail = "\n" + "".join(f.readlines()[-15:])
    sys.exit("plugin_effects.py: %s%s" % (why, tail))


def once(mode, args, env, tmp):
    """The probe's fields of one run (NAME=VALUE words), and its exit status."""
    r, w = os.pipe()
    log = os.path.join(tmp, "last-%s.log" % mode)
    extra = ["-p", "testfence"] if mode == "plugin" else []
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
           "-p", "tf_effects_probe"] + extra + args
    env = dict(env, EFFECTS_FD=str(w), **({"EFFECTS_COUNT": "1"} if mode == "count" else {}))
    with open(log, "w") as out:
        p = subprocess.Popen(cmd, pass_fds=[w], env=env, stdout=out, stderr=subprocess.STDOUT)
    os.close(w)
    with os.fdopen(r) as f:
        words = f.read().split()
    p.wait()
    said = dict(w.partition("=")[::2] for w in words if "=" in w)
    if p.returncode in (2, 3, 4, 5):
        fail("the %s run exited %d (pytest: interrupted, internal error, usage error or no "
             "tests): its output:" % (mode, p.returncode), log)
    if not words:
        fail("the %s run's probe said nothing (exit %d): its output:" % (mode, p.returncode), log)
    if mode == "plugin" and said.get("fenced") != "1":
        fail("the plugin did not fence the run: its output:", log)
    return (said if mode != "count" else words), p.returncode


def parse(argv):
    args = argv[argv.index("--") + 1:] if "--" in argv else []
    own = argv[:argv.index("--")] if "--" in argv else argv
    if len(own) > 2 or (own and not own[0].isdigit()) or (own and int(own[0]) < 1):
        sys.exit("usage: bench/plugin_effects.py [RUNS (1 or more)] [BUILD_DIR] "
                 "[-- PYTEST_ARGS...]")
    build = os.path.abspath(own[1] if len(own) > 1 else os.path.join(HERE, "..", "build"))
    if not os.path.exists(os.path.join(build, "libtestfence.so")):
        sys.exit("plugin_effects.py: no libtestfence.so in %s: build it (make), or name the "
                 "build dir" % build)
    return (int(own[0]) if own else 5), build, args


def show(mode, rows):
    gcs = [float(r["gc_ms"]) for r in rows]
    full = [r["full_ms"] for r in rows]
    times = [float(t) for f in full if f != "-" for t in f.split(",")]
    print("%-6s collector ms min %6.1f median %6.1f; collections %s; full ones a round %s "
          "(median %s ms); id() %.1f ns, sys._getframe() %.1f ns" % (
              mode, min(gcs), statistics.median(gcs),
              "/".join(sorted({r["collections"] for r in rows}, key=int)),
              " ".join("0" if f == "-" else str(len(f.split(","))) for f in full),
              "%.1f" % statistics.median(times) if times else "-",
              min(float(r["id_ns"]) for r in rows), min(float(r["getframe_ns"]) for r in rows)))


def main():
    runs, build, args = parse(sys.argv[1:])
    compileall.compile_dir(SRC, quiet=1)
    tmp = tempfile.mkdtemp(prefix="tf-effects-")
    try:
        with open(os.path.join(tmp, "tf_effects_probe.py"), "w") as f:
            f.write(PROBE)
        # The checkout's plugin before the suite's path: a testfence installed there is not it.
        path = os.pathsep.join(p for p in (tmp, SRC, os.environ.get("PYTHONPATH")) if p)
        env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", PYTHONPATH=path,
                   TESTFENCE_LIBRARY=os.path.join(build, "libtestfence.so"))
        seen = {"bare": [], "plugin": []}
        for r in range(runs + 1):  # round 0 is the warm-up
            ends = {}
            for mode in seen:
                said, code = once(mode, args, env, tmp)
                ends[mode] = (code, said.get("tests"))
                if r:
                    seen[mode].append(said)
            if ends["bare"] != ends["plugin"]:
                fail("bare ended %s, the plugin's run %s (exit status, failing/all tests:digest):"
                     " the fence changed the outcome; the plugin's run's output:"
                     % (ends["bare"], ends["plugin"]), os.path.join(tmp, "last-plugin.log"))
        for mode, rows in seen.items():
            show(mode, rows)
        print("every run: exit status %d, failing/all tests %s" % (ends["bare"][0],
                                                                   ends["bare"][1].split(":")[0]))
        print("bare's audit events: " + " ".join(once("count", args, env, tmp)[0][1:]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


main()
