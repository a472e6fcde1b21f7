#!/usr/bin/env bash
# What the plugin's binding to libtestfence costs to set up, ctypes against a compiled module:
# in a fresh Python each time, (A) a minimal extension module built here with the stable ABI
# (Py_LIMITED_API, one .abi3.so for every Python 3.8+), linked to the build's library, imported
# and asked tf_api_version, tf_open and tf_close; (B) the plugin's own binding as it starts:
# `import ctypes` with _testfence.native, the library loaded with its 48 prototypes, a session
# opened and closed. RUNS rounds interleaved; the minimum and median of each, in µs. What A
# leaves out (the rest of the calls the plugin makes, the frames callback, the audit hook)
# would add to it: the difference is what such a module could save at most, before the per-call
# conversions. Needs gcc and Python's headers (python3-dev).
# usage: bench/native_import.sh [BUILD_DIR]   (RUNS, default 30)
set -euo pipefail
cd "$(dirname "$0")/.."
src=$(pwd)
build=$(realpath -m "${1:-build}")
py=/usr/bin/python3
[ -e "$build/libtestfence.so" ] ||
    { echo "bench/native_import.sh: no $build/libtestfence.so: build it (make), or name the build dir" >&2; exit 1; }
inc=$($py -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
[ -e "$inc/Python.h" ] ||
    { echo "bench/native_import.sh: no $inc/Python.h: apt-get install python3-dev" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tf-native-XXXXXX")
trap 'rm -rf "$work"' EXIT
cat >"$work/tfnative.c" <<'END'
#define Py_LIMITED_API 0x03080000
#include <Python.h>
int tf_api_version(void);
void *tf_open(void);
void tf_close(void *);
static PyObject *api_version(PyObject *self, PyObject *args)
{
    (void)self, (void)args;
    return PyLong_FromLong(tf_api_version());
}
static PyObject *open_close(PyObject *self, PyObject *args)
{
    (void)self, (void)args;
    tf_close(tf_open());
    Py_RETURN_NONE;
}
static PyMethodDef methods[] = {{"api_version", api_version, METH_NOARGS, NULL},
                                {"open_close", open_close, METH_NOARGS, NULL},
                                {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "tfnative", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};
PyMODINIT_FUNC PyInit_tfnative(void) { return PyModule_Create(&module); }
END
gcc -O2 -shared -fPIC -Wall -Werror -I"$inc" -o "$work/tfnative.abi3.so" "$work/tfnative.c" \
    -L"$build" -ltestfence -Wl,-rpath,"$build"
$py -m compileall -q python # as pip installs the plugin
WORK=$work SRC=$src LIB=$build/libtestfence.so $py - <<'END'
import os, statistics, subprocess, sys
A = ("import time; t = time.perf_counter(); import tfnative; tfnative.api_version(); "
     "tfnative.open_close(); print((time.perf_counter() - t) * 1e6)")
B = ("import sys, time; sys.path.insert(0, %r); t = time.perf_counter(); "
     "from _testfence import native; native.Session(native._load_library()).close(); "
     "print((time.perf_counter() - t) * 1e6)" % os.path.join(os.environ["SRC"], "python"))
env = dict(os.environ, TESTFENCE_LIBRARY=os.environ["LIB"])
times = {"compiled module (abi3)": [], "ctypes (the plugin's)": []}
for _ in range(int(os.environ.get("RUNS", "30"))):
    for name, code in zip(times, (A, B)):
        r = subprocess.run([sys.executable, "-c", code], cwd=os.environ["WORK"], env=env,
                           capture_output=True, text=True)
        if r.returncode:
            sys.exit("bench/native_import.sh: %s failed:\n%s" % (name, r.stderr))
        times[name].append(float(r.stdout))
for name, t in times.items():
    print("%-24s min %6.0f us  median %6.0f us" % (name, min(t), statistics.median(t)))
END
