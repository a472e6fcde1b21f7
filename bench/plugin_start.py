#!/usr/bin/python3
"""The plugin's start-up inside pytest itself: pytest.main(["--collect-only", ...]) timed in
a fresh process, without the plugin, with it (the shim patched in) and with
--testfence-reexec=off, and through ctypes in place of the compiled binding (where the build
has one), RUNS rounds interleaved; prints each mode's minimum and median ms
and the difference to bare. Interpreter start-up and `import pytest` are outside the timing,
the same for all (a second start, --testfence-reexec=always, is timed by bench/plugin.sh).

usage: bench/plugin_start.py [RUNS] [BUILD_DIR]   (in a project: bench/plugin.sh makes one of
       200 tests; PYTHONDONTWRITEBYTECODE as the caller has it; the plugin byte-compiled first,
       as pip and Debian install it)
"""
import compileall, os, statistics, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "python")
MODES = {"bare": [], "plugin": ["-p", "testfence"],
         "plugin-noreexec": ["-p", "testfence", "--testfence-reexec=off"],
         "plugin-ctypes": ["-p", "testfence"]}  # with TESTFENCE_BINDING=ctypes
BINDING = {"plugin-ctypes": "ctypes"}
CHILD = """import sys, time, pytest
t = time.perf_counter()
pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider"] + sys.argv[1:])
sys.stderr.write("TT %.3f\\n" % ((time.perf_counter() - t) * 1e3))
"""

def once(extra, env):
    r = subprocess.run([sys.executable, "-c", CHILD] + extra, env=env, capture_output=True, text=True)
    lines = [l for l in r.stderr.splitlines() if l.startswith("TT ")]
    if not lines:
        sys.exit("plugin_start.py: a run failed:\n" + r.stdout + r.stderr)
    return float(lines[-1].split()[1])

def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    build = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "..", "build"))
    compileall.compile_dir(SRC, quiet=1)
    env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", PYTHONPATH=SRC,
               TESTFENCE_LIBRARY=os.path.join(build, "libtestfence.so"))
    times = {m: [] for m in MODES}
    for _ in range(runs):
        for m, extra in MODES.items():
            times[m].append(once(extra, dict(env, TESTFENCE_BINDING=BINDING.get(m, ""))))
    base = min(times["bare"])
    for m, t in times.items():
        print("%-16s min %7.1f ms  median %7.1f ms  min - bare's %+6.1f ms"
              % (m, min(t), statistics.median(t), min(t) - base))

main()
