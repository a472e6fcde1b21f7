#!/usr/bin/env bash
# What the plugin's binding to libtestfence costs to set up, compiled against ctypes: in a
# fresh Python each time, _testfence.native (with audithook, as the plugin imports them) asked
# for the library, a session opened and closed, the process's own scope opened as the shim's
# handle, and the audit filter added: (A) through the build's compiled binding
# (_native.abi3.so beside libtestfence.so, src/pyext/), (B) with TESTFENCE_BINDING=ctypes
# (ctbinding.py: `import ctypes` and 43 prototypes). RUNS rounds interleaved; the minimum and
# median of each, in µs. The plugin's other calls cost the same either way but for the
# conversions each ctypes call makes.
# usage: bench/native_import.sh [BUILD_DIR]   (RUNS, default 30)
set -euo pipefail
cd "$(dirname "$0")/.."
src=$(pwd)
build=$(realpath -m "${1:-build}")
py=/usr/bin/python3
[ -e "$build/libtestfence.so" ] ||
    { echo "bench/native_import.sh: no $build/libtestfence.so: build it (make), or name the build dir" >&2; exit 1; }
[ -e "$build/_native.abi3.so" ] ||
    { echo "bench/native_import.sh: no $build/_native.abi3.so: apt-get install python3-dev, build again" >&2; exit 1; }
$py -m compileall -q python # as pip installs the plugin
SRC=$src LIB=$build/libtestfence.so $py - <<'END'
import os, statistics, subprocess, sys
CODE = """import importlib.machinery, importlib.util, sys, time  # pytest imports them before us
sys.path.insert(0, %r)
t = time.perf_counter()
from _testfence import audithook, native
lib = native._load_library()
native.Session(lib).close()
native.Shim.open(lib, None)
assert audithook.add_filtered(lib, lambda event, args: None, {"open"})
print((time.perf_counter() - t) * 1e6, type(lib).__name__)
""" % os.path.join(os.environ["SRC"], "python")
modes = {"compiled (_native)": "", "ctypes (ctbinding)": "ctypes"}
times = {m: [] for m in modes}
for _ in range(int(os.environ.get("RUNS", "30"))):
    for name, binding in modes.items():
        env = dict(os.environ, TESTFENCE_LIBRARY=os.environ["LIB"], TESTFENCE_BINDING=binding)
        r = subprocess.run([sys.executable, "-c", CODE], cwd="/", env=env, capture_output=True,
                           text=True)
        if r.returncode:
            sys.exit("bench/native_import.sh: %s failed:\n%s" % (name, r.stderr))
        us, kind = r.stdout.split()
        if kind != ("Binding" if binding else "module"):
            sys.exit("bench/native_import.sh: %s used the %s binding" % (name, kind))
        times[name].append(float(us))
for name, t in times.items():
    print("%-20s min %6.0f us  median %6.0f us" % (name, min(t), statistics.median(t)))
END
