#!/usr/bin/python3
"""Time one real suite bare, under `testfence run` and with the plugin, interleaved.
Called by bench/suites.sh, which says what is measured and why; prints one markdown row per mode.

    suites.py BUILD SUITE BYTECODE RUNS LOGDIR     (BYTECODE: 1 or unset)
"""

import glob
import os
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "realsuites"))
import realsuites as rs  # noqa: E402  the manifest, its commands and environments

# Ours, and realsuites.py's for it. plugin-noreexec (asked for in MODES) tells the plugin's own
# start-up from its second start of pytest with the shim (docs/plugin.md, "What happens", 2).
# plugin-env loads it as an installed plugin is loaded, without "-p": PYTEST_PLUGINS=testfence.
# With autoload off (as here), "-p NAME" makes pytest search every installed package's entry
# points for NAME first (2.9 ms on this machine), which the bare run does not; with autoload
# on (pytest's default, and how pip installs the plugin) bare pytest pays that search too.
# bare-ep and plugin-ep measure the plugin as `pip install` leaves it, found by its pytest11
# entry point in plain `pytest`: autoload on in both (both pay pytest's entry-point scan), the
# machine's other pytest plugins blocked in both (-p no:NAME), testfence blocked in bare-ep;
# their ratios are to bare-ep. run-ep is `testfence run -- pytest` where the plugin is so
# installed: the plugin loads in that pytest, checks the fence and joins the run (a CI that
# uses testfence run on a machine where pip installed testfence); its ratios are to bare-ep.
# plugin-ctypes: the plugin through ctypes in place of its compiled binding
# (TESTFENCE_BINDING=ctypes), where the build has one.
KNOWN = {"bare": "bare", "run": "fenced", "plugin": "plugin", "plugin-noreexec": "plugin",
         "plugin-env": "plugin", "plugin-ctypes": "plugin", "bare-ep": "plugin", "plugin-ep": "plugin", "run-ep": "plugin"}
MODES = os.environ.get("MODES", "bare,run,plugin").split(",")
if (MODES[0] != "bare" or not set(MODES) <= KNOWN.keys()
        or ({"plugin-ep", "run-ep"} & set(MODES) and "bare-ep" not in MODES)):
    sys.exit("suites.py: MODES is bare, then any of run, plugin, plugin-noreexec, plugin-env, "
             "plugin-ctypes, "
             "bare-ep, plugin-ep, run-ep (comma-separated; plugin-ep and run-ep with bare-ep)")
# What the plugin says when it has fenced pytest (plugin modes), or joined testfence run's
# fence (run-ep): a mode whose output lacks it measured something else, and stops the script.
SAYS = {"plugin": "testfence: fenced (", "run-ep": "testfence: already fenced by `testfence run`"}


def run_once(cmd, cwd, env, log, timeout):
    """Wall seconds, CPU seconds (user + system of everything the run started: testfence
    reaps its namespace's init, whose rusage holds the command's) and exit code of one run,
    and what it printed."""
    with open(log, "wb") as out:
        start = time.monotonic()
        p = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out,
                             stderr=subprocess.STDOUT, start_new_session=True)
        killer = threading.Timer(timeout, os.killpg, (p.pid, signal.SIGKILL))
        killer.start()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - start
        killer.cancel()
        killer.join()
    if os.waitstatus_to_exitcode(status) == -signal.SIGKILL:
        sys.exit("suites.py: %s: killed after %ds" % (" ".join(cmd), timeout))
    with open(log, errors="replace") as f:
        return wall, ru.ru_utime + ru.ru_stime, os.waitstatus_to_exitcode(status), f.read()


def installed(name, cmd, env, blocked, logdir):
    """CMD and ENV changed so that pytest finds the plugin as pip installs it: by a pytest11
    entry point (a dist-info written into LOGDIR, on the path, with a RECORD naming the
    plugin's files as pip's does: pytest reads it to mark packages for assertion rewriting),
    autoload on; every other installed pytest plugin blocked, and testfence too when BLOCKED.
    A pytest the suite starts inside its tests loads them all: its own arguments do not say."""
    if cmd[1:3] != ["-m", "pytest"]:
        sys.exit("suites.py: %s: not a pytest suite: the -ep modes are pytest's" % name)
    ep = os.path.join(logdir, "entry-point")
    info = os.path.join(ep, "testfence-0.dist-info")
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\nName: testfence\nVersion: 0\n")
    with open(os.path.join(info, "entry_points.txt"), "w") as f:
        f.write("[pytest11]\ntestfence = testfence\n")
    with open(os.path.join(info, "RECORD"), "w") as f:
        f.write("testfence.py,,\n_testfence/__init__.py,,\n_testfence/hooks.py,,\n")
    env = dict(env, PYTHONPATH=os.pathsep.join([ep, env["PYTHONPATH"]]))
    env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    names = subprocess.run(
        [cmd[0], "-c", "import importlib.metadata as m\n"
         "print(' '.join(sorted({e.name for e in m.entry_points(group='pytest11')})))"],
        env=env, capture_output=True, text=True, check=True).stdout.split()
    if "testfence" not in names:
        sys.exit("suites.py: the entry point written in %s is not found" % ep)
    at = cmd.index("testfence")
    if any(w.startswith("-p") for w in cmd[at + 1:]):
        sys.exit("suites.py: %s names pytest plugins (-p) that the -ep modes block: measure "
                 "it with the other modes" % name)
    blocks = [w for n in names if blocked or n != "testfence" for w in ("-p", "no:" + n)]
    return cmd[:at - 1] + blocks + cmd[at + 1:], env


def reset(p, dest):
    """Every setting starts from the same state: no bytecode, no caches, no old runs."""
    for d in glob.glob(os.path.join(dest, "**", "__pycache__"), recursive=True):
        shutil.rmtree(d, ignore_errors=True)
    for d in rs.artifacts_dirs(p) + [os.path.join(dest, ".pytest_cache")]:
        shutil.rmtree(d, ignore_errors=True)
    rs.write_config(p, dest)


def outcome(code, text):
    failing, counts = rs.parse_pytest(text)
    return (code, tuple(sorted(counts.items())), tuple(failing))


def said(o):
    code, counts, failing = o
    what = ", ".join("%d %s" % (n, k) for k, n in counts) + "; exit %d" % code
    return what + ("; failing: " + ", ".join(failing) if failing else "")


def main():
    build, name, bytecode, runs, logdir = sys.argv[1:6]
    build, runs = os.path.abspath(build), int(runs)
    plugin = os.path.join(os.path.dirname(HERE), "python")
    p = rs.pick(rs.load_manifest(), [name])[0]
    dest = os.path.join(rs.EXT, name)
    reset(p, dest)
    jobs = {}
    for m in MODES:
        env = rs.suite_env(p, KNOWN[m], False, build, plugin)  # PYTHONDONTWRITEBYTECODE unset
        if bytecode == "1":
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        cmd = rs.command(p, KNOWN[m], build, False)
        if m == "plugin-noreexec":
            cmd.insert(cmd.index("testfence") + 1, "--testfence-reexec=off")
        if m == "plugin-ctypes":
            env["TESTFENCE_BINDING"] = "ctypes"
        if m == "plugin-env":
            at = cmd.index("testfence")
            del cmd[at - 1:at + 1]  # "-p", "testfence"
            env["PYTEST_PLUGINS"] = "testfence"
        if m.endswith("-ep"):
            cmd, env = installed(name, cmd, env, m == "bare-ep", logdir)
        if m == "run-ep":
            cmd = [os.path.join(build, "testfence"), "run", "--"] + cmd
        jobs[m] = (cmd, env)
    times = {m: [] for m in MODES}
    seen = {m: {} for m in MODES}
    for r in range(runs + 1):  # round 0 is the warm-up
        order = MODES[r % len(MODES):] + MODES[:r % len(MODES)]  # none always first or after bare
        for m in order:
            cmd, env = jobs[m]
            log = os.path.join(logdir, "%s.%s.%s.log" % (name, bytecode, m))
            wall, cpu, code, text = run_once(cmd, dest, env, log, p.get("timeout", 1800))
            says = SAYS.get(m, SAYS["plugin"] if m.startswith("plugin") else None)
            if says and says not in text:
                sys.exit("suites.py: %s: mode %s: the plugin did not say %r: see %s"
                         % (name, m, says, log))
            o = outcome(code, text)
            if o not in seen[m]:  # each different outcome's output is kept
                seen[m][o] = log + ".%d" % len(seen[m])
                shutil.copy(log, seen[m][o])
            if r:
                times[m].append((wall, cpu))
    table(name, bytecode, times, seen)


def table(name, bytecode, times, seen):
    med = statistics.median
    for m in MODES:
        t, base = times[m], times["bare-ep" if m.endswith("-ep") else "bare"]
        wall, rw = med(w for w, _ in t), ratio([a[0] / b[0] for a, b in zip(t, base)])
        cpu, rc = med(c for _, c in t), ratio([a[1] / b[1] for a, b in zip(t, base)])
        if m in ("bare", "bare-ep"):
            rw = rc = "1"
        if m != "bare" and seen[m].keys() == seen["bare"].keys():
            what = "same"
        else:
            what = " / ".join(said(o) for o in seen[m])
            if len(seen[m]) > 1 or m != "bare":
                what += " (DIFFERENT; outputs: %s)" % " ".join(seen[m].values())
        print("| %s | %s | %s | %.2f s | %s | %s | %s | %s |" % (
            name, "=1" if bytecode == "1" else "unset", m, wall,
            "%.2f s" % cpu, rw, rc, what), flush=True)


def ratio(xs):
    """The median, and the middle half of the rounds: on a busy machine that spread is wide."""
    if len(xs) < 2:
        return "%.3f" % xs[0]
    q1, _, q3 = statistics.quantiles(xs, n=4)
    return "%.3f (%.2f–%.2f)" % (statistics.median(xs), q1, q3)


if __name__ == "__main__":
    main()
