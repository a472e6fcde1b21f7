#!/usr/bin/python3
"""The plugin's cost per test: pytest.main() on a made-up project of N trivial tests (each
with a plain and an autouse fixture), without and with `-p testfence`, RUNS rounds
interleaved, each in a fresh process; then the Python calls the test loop makes, counted
once per mode (sys.setprofile), a figure this noisy machine cannot blur. Timed is the CPU time (time.process_time) of running
the tests, from the end of collection to the end of the session: start-up and collection
(assertion rewriting) are outside it. Per test is (plugin - bare) / N, pair by pair. CPU,
not wall, because the per-test cost is all Python and this machine's wall clock is noisy.

usage: bench/plugin_pertest.py [RUNS] [N] [BUILD_DIR] [BASE_PYTHON_DIR]   (defaults 9, 3000,
       build; BASE_PYTHON_DIR: another version of python/, timed in the same rounds, e.g.
       `mkdir /tmp/base && git archive HEAD~1 python | tar -x -C /tmp/base`, then /tmp/base/python)
"""
import compileall, os, shutil, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "python")
CHILD = """import sys, time, pytest
COUNT = sys.argv.pop(1) == "count"
class Timer:
    calls = 0
    def pytest_collection_finish(self, session):
        if COUNT:
            sys.setprofile(self.count)
        self.t = time.process_time()
    def pytest_sessionfinish(self, session):
        self.t = time.process_time() - self.t
        sys.setprofile(None)
    def count(self, frame, event, arg):
        if event in ("call", "c_call"):
            Timer.calls += 1
timer = Timer()
rc = pytest.main(["-q", "-p", "no:cacheprovider"] + sys.argv[1:], plugins=[timer])
sys.stderr.write("TT %.6f %d\\n" % (Timer.calls if COUNT else timer.t, rc))
"""
TESTS = """import pytest

@pytest.fixture(autouse=True)
def _auto():
    yield

@pytest.fixture
def value():
    return 1

"""


def project(root, n):
    os.makedirs(os.path.join(root, ".git"))
    os.makedirs(os.path.join(root, "tests"))
    with open(os.path.join(root, "pyproject.toml"), "w") as f:
        f.write('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    with open(os.path.join(root, "tests", "test_many.py"), "w") as f:
        f.write(TESTS)
        for i in range(n):
            f.write("def test_%d(value):\n    assert value\n\n" % i)


def once(root, extra, env, what="time"):
    extra, env = extra
    r = subprocess.run([sys.executable, "-c", CHILD, what] + extra, cwd=root, env=env,
                       capture_output=True, text=True)
    lines = [l for l in r.stderr.splitlines() if l.startswith("TT ")]
    if not lines or lines[-1].split()[2] != "0":
        sys.exit("plugin_pertest.py: a run failed:\n" + r.stdout + r.stderr)
    return float(lines[-1].split()[1])


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    build = os.path.abspath(sys.argv[3] if len(sys.argv) > 3 else os.path.join(HERE, "..", "build"))
    srcs = {"plugin": SRC}
    if len(sys.argv) > 4:
        srcs["plugin-base"] = os.path.abspath(sys.argv[4])
    env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
               TESTFENCE_LIBRARY=os.path.join(build, "libtestfence.so"))
    for k in ("TESTFENCE_WORKSPACE", "TESTFENCE_RUN_ID", "TESTFENCE_PLUGIN", "PYTEST_ADDOPTS"):
        env.pop(k, None)
    modes = {"bare": ([], env)}
    for m, src in srcs.items():
        compileall.compile_dir(src, quiet=1)  # as pip and Debian install it
        modes[m] = (["-p", "testfence"], dict(env, PYTHONPATH=src))
    tmp = tempfile.mkdtemp()
    try:
        project(tmp, n)
        t = {m: [] for m in modes}
        for _ in range(runs):
            for m in modes:
                t[m].append(once(tmp, modes[m], env))
        med = statistics.median
        print("%d tests, CPU of the test loop, medians of %d: bare %.3f s" % (n, runs, med(t["bare"])))
        for m in srcs:
            per = [(t[m][i] - t["bare"][i]) / n for i in range(runs)]
            print("  %-11s %.3f s (%.3fx); per test: median %.1f us (min %.1f, max %.1f); "
                  "from the minima %.1f us" %
                  (m, med(t[m]), med([t[m][i] / t["bare"][i] for i in range(runs)]),
                   med(per) * 1e6, min(per) * 1e6, max(per) * 1e6,
                   (min(t[m]) - min(t["bare"])) / n * 1e6))
        calls = {m: once(tmp, modes[m], env, "count") for m in modes}
        print("Python calls per test (deterministic): bare %.1f" % (calls["bare"] / n) +
              "".join(", %s %+.1f" % (m, (calls[m] - calls["bare"]) / n) for m in srcs))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
