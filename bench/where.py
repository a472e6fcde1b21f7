#!/usr/bin/python3
"""What pointing at the line (issue 32) costs: a suite whose tests make many ALLOWED writes
(open/write/close, mkdir, rename, rmdir in tmp_path), one that starts processes, and one whose
tests make BLOCKED writes (swallowed), timed with two builds in the same rounds, interleaved,
each in a fresh process: the plugin fencing pytest (kernel backend, the shim loaded into it),
and pytest under `testfence run` (the plugin joined to supply frames). Timed is the CPU time
(time.process_time) of the pytest process from the end of collection to the end of the
session; start-up and collection are outside it (a child's own time is not in it). Then, deterministic, the Python calls the
test loop makes (sys.setprofile): frames taken on an allowed write would show there.

usage: bench/where.py [RUNS] [WRITES] [BUILD_DIR] [BASE_DIR]
       (defaults 9, 20000, build; BASE_DIR: a tree of the version to compare, built:
       `git archive main | tar -x -C /tmp/base && cmake -S /tmp/base -B /tmp/base/build &&
       cmake --build /tmp/base/build`; its python/ and build/ are used)
"""
import compileall, os, shutil, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from plugin_pertest import CHILD  # the timed pytest: plugin_pertest's, given -p testfence
ALLOWED = """import os

N = {n}


def helper(path, i):
    with open(path / ("f%d" % (i % 50)), "w") as f:
        f.write("x")


def test_files(tmp_path):
    for i in range(N):
        helper(tmp_path, i)


def test_dirs(tmp_path):
    for i in range(N // 10):
        d = tmp_path / ("d%d" % i)
        os.mkdir(d)
        os.rename(d, tmp_path / ("e%d" % i))
        os.rmdir(tmp_path / ("e%d" % i))
"""
SPAWNS = """import subprocess

N = {n}


def test_children():
    for i in range(N):
        subprocess.run(["true"], check=True)
"""
BLOCKED = """from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
N = {n}


def helper(i):
    try:
        open(ROOT / ("out%d.toml" % (i % 50)), "w")
    except OSError:
        pass


def test_blocked():
    for i in range(N):
        helper(i)
"""


def project(root, n, text):
    os.makedirs(os.path.join(root, ".git"))
    os.makedirs(os.path.join(root, "tests"))
    with open(os.path.join(root, "pyproject.toml"), "w") as f:
        f.write('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    with open(os.path.join(root, "tests", "test_w.py"), "w") as f:
        f.write(text.format(n=n))


def once(root, build, env, under_run, what="time"):
    cmd = [sys.executable, "-c", CHILD, what, "-p", "testfence"]
    if under_run:
        cmd = [os.path.join(build, "testfence"), "run", "--allow-violations", "--"] + cmd
    r = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True)
    lines = [l for l in r.stderr.splitlines() if l.startswith("TT ")]
    if not lines or lines[-1].split()[2] not in ("0", "1"):
        sys.exit("where.py: a run failed:\n" + r.stdout + r.stderr)
    shutil.rmtree(os.path.join(root, "tests", "artifacts"), ignore_errors=True)
    return float(lines[-1].split()[1])


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    build = os.path.abspath(sys.argv[3] if len(sys.argv) > 3 else os.path.join(HERE, "..", "build"))
    trees = {"new": (os.path.join(HERE, "..", "python"), build)}
    if len(sys.argv) > 4:
        base = os.path.abspath(sys.argv[4])
        trees["base"] = (os.path.join(base, "python"), os.path.join(base, "build"))
    env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    for k in ("TESTFENCE_WORKSPACE", "TESTFENCE_RUN_ID", "TESTFENCE_PLUGIN", "PYTEST_ADDOPTS",
              "TESTFENCE_SHIM_CONF", "TESTFENCE_STARTED_AT"):
        env.pop(k, None)
    envs = {}
    for name, (src, bdir) in trees.items():
        compileall.compile_dir(src, quiet=1)
        envs[name] = dict(env, PYTHONPATH=os.path.abspath(src),
                          TESTFENCE_LIBRARY=os.path.join(bdir, "libtestfence.so"))
    med = statistics.median
    suites = (("allowed writes", ALLOWED, n), ("processes started", SPAWNS, n // 100),
              ("blocked writes", BLOCKED, n // 20))
    for what, text, count in suites:
        tmp = tempfile.mkdtemp()
        try:
            project(tmp, count, text)
            print("%s: %d, CPU of the test loop, medians of %d:" % (what, count, runs))
            for under_run in (False, True):
                t = {m: [] for m in trees}
                for _ in range(runs):
                    for m in trees:
                        t[m].append(once(tmp, trees[m][1], envs[m], under_run))
                calls = {m: once(tmp, trees[m][1], envs[m], under_run, "count") for m in trees}
                mode = "testfence run -- pytest" if under_run else "plugin fencing pytest"
                line = "  %-24s" % mode + "  ".join(
                    "%s %.3f s (min %.3f; %d Python calls)" % (m, med(t[m]), min(t[m]), calls[m])
                    for m in trees)
                if "base" in trees:
                    ratios = [t["new"][i] / t["base"][i] for i in range(runs)]
                    line += "; new/base pair by pair: median %.3f (min %.3f, max %.3f)" % (
                        med(ratios), min(ratios), max(ratios))
                print(line)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
