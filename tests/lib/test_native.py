"""The plugin's two bindings to libtestfence (python/_testfence/native.py): which one is chosen,
and that they answer alike. The compiled one (_native.abi3.so, src/pyext/) is found beside
the library TESTFENCE_LIBRARY names, never in the working directory; TESTFENCE_BINDING=ctypes,
a file that does not load, or none built, give ctypes (ctbinding.py). Each case in a child
Python of its own (a process loads one library, one binding). Run:
TESTFENCE_LIBRARY=$PWD/build/libtestfence.so PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 /usr/bin/python3
-m pytest tests/lib/test_native.py (ctest lib/native).
"""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

PYTHON_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "python"))
LIB = os.environ.get("TESTFENCE_LIBRARY", "")
COMPILED = os.path.join(os.path.dirname(LIB), "_native.abi3.so")
needs_compiled = pytest.mark.skipif(not os.path.exists(COMPILED),
                                    reason="no _native.abi3.so beside the library (python3-dev)")


def child(code, cwd, **env):
    """Runs CODE with the plugin's package on sys.path; its stdout (the test fails on an
    error)."""
    e = dict(os.environ, **env)
    if "TESTFENCE_BINDING" not in env:
        e.pop("TESTFENCE_BINDING", None)  # the caller's choice is the case's to make
    script = "import sys\nsys.path.insert(0, %r)\n" % PYTHON_DIR + textwrap.dedent(code)
    p = subprocess.run([sys.executable, "-c", script], cwd=str(cwd), env=e, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout.strip()


WHICH = """
from _testfence import native
lib = native._load_library()
print(type(lib).__name__, getattr(lib, "__file__", "-"))
"""


@needs_compiled
def test_beside_the_library_named(tmp_path):
    assert child(WHICH, tmp_path) == "module " + COMPILED


def test_ctypes_when_asked(tmp_path):
    assert child(WHICH, tmp_path, TESTFENCE_BINDING="ctypes") == "Binding -"


@needs_compiled
def test_never_from_the_working_directory(tmp_path):
    # A bare library name is the dynamic loader's to find; its dirname would be the working
    # directory, where a test (a run started from tests/) could have put a module.
    shutil.copy(COMPILED, tmp_path / "_native.abi3.so")
    out = child("from _testfence import native\nprint(native._compiled())", tmp_path,
                TESTFENCE_LIBRARY="libtestfence.so.0")
    assert out == "None"


def test_a_module_that_does_not_load_gives_ctypes(tmp_path):
    # A truncated file, another architecture's: the plugin goes on through ctypes.
    shutil.copy(LIB, tmp_path / "libtestfence.so")
    (tmp_path / "_native.abi3.so").write_bytes(b"\x7fELF not really")
    out = child(WHICH, tmp_path, TESTFENCE_LIBRARY=str(tmp_path / "libtestfence.so"))
    assert out == "Binding -"


# The calls the plugin makes, on a project of its own: each answer as JSON.
CALLS = """
import json, os
from _testfence import native
root = os.getcwd()
s = native.Session(native._load_library())
s.load([], [])
out = {}
out["root"] = s.get("root")
out["fence_dir"] = s.get("fence_dir")
tmp = s.get("tmp") or "-"  # the run's temp dir: a new name in each session
out["policy"] = [sorted((p.replace(tmp, "TMP"), d) for p, d in x) for x in s.policy_entries()]
out["outputs"] = s.outputs()
out["env"] = sorted(n for n, _ in s.env())
out["check_in"] = s.path_check_at(native.AT_FDCWD, b"tests/x.txt", 0)
out["check_out"] = s.path_check_at(native.AT_FDCWD, b"config.toml", 0)
out["check_missing_dir"] = s.path_check_at(native.AT_FDCWD, b"no/such/dir/f", 0)
# a NUL inside: C would judge the path before it (tests/x), so nothing is told
out["check_nul"] = s.path_check_at(native.AT_FDCWD, b"tests/x\\0/../../config.toml", 0)
out["inside"] = s.files_inside([root + "/tests/a.py", root + "/a.py", "/etc/passwd"])
out["inside_none"] = s.files_inside([])
out["split"] = [s.test_split(v) for v in (b"tests/t.py::test_x (call)", b"tests/t.py::x", b"")]
out["fails_first"] = [s.fails_first("mkdir", 0, root + "/tests", None),
                      s.fails_first("open", os.O_WRONLY, root + "/nope/x", None)]
out["ioctl"] = [s.ioctl_class(0x5412), s.ioctl_class(0x5401), s.ioctl_class(0x40086602)]
out["fenced"] = s.fenced()
try:
    s.attach("/nonexistent/workspace")
except native.FenceError as e:
    out["attach_error"] = (str(e).replace(root, "ROOT"), e.kind)
out["error"] = s.error().replace(root, "ROOT")
s.close()
print(json.dumps(out, sort_keys=True))
"""


@needs_compiled
def test_both_bindings_answer_alike(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / ".git").mkdir()
    compiled = json.loads(child(CALLS, tmp_path))
    through_ctypes = json.loads(child(CALLS, tmp_path, TESTFENCE_BINDING="ctypes"))
    assert compiled == through_ctypes
    assert compiled["check_in"][0] == 1 and compiled["check_out"][0] == 0
    assert compiled["check_nul"][0] is None
    assert compiled["inside"] == [True, False, False] and compiled["inside_none"] == []
    assert compiled["split"][0] == ["tests/t.py::test_x", "call"]
    assert compiled["ioctl"][0] == 1  # TIOCSTI


@needs_compiled
def test_bad_arguments_raise_not_crash(tmp_path):
    # A test can import the module and call it: what a call cannot take is an exception.
    out = child("""
        from _testfence import native
        lib = native._load_library()
        h = lib.tf_open()
        for call in (lambda: lib.tf_check(None), lambda: lib.tf_check(0),
                     lambda: lib.tf_root("str, not bytes"), lambda: lib.load_allow(h, [None]),
                     lambda: lib.load_allow(h, ("a tuple",)), lambda: lib.files_inside(h, b"", -1),
                     lambda: lib.shim_patch(None, b"x"), lambda: lib.shim_frames_off(0),
                     lambda: lib.path_check_at(h, -100, b"tests/x\\0/../../c.toml", 0)):
            try:
                call()
                print("accepted")
            except (TypeError, ValueError) as e:
                print(type(e).__name__)
        lib.tf_close(h)
        """, tmp_path)
    assert out.split() == ["ValueError", "ValueError", "TypeError", "TypeError", "TypeError",
                           "ValueError", "TypeError", "ValueError", "ValueError"]


def test_the_first_frames_function_keeps_its_place(tmp_path):
    # A test that hands the shim a function of its own (to put lines of its choosing in the
    # records) is refused, through either binding, as the shim refuses one given directly.
    code = """
        from _testfence import native
        lib = native._load_library()
        shim = native.Shim.open(lib, %r)
        mine, theirs = (lambda frame: b""), (lambda frame: b"x")
        print(shim.frames(mine), shim.frames(theirs), shim.frames(mine), shim.frames_off(),
              shim.frames(theirs), shim.frames(mine))
        """ % os.path.join(os.path.dirname(LIB), "libtestfence_preload.so").encode()
    assert child(code, tmp_path) == "0 -1 0 0 -1 0"
    assert child(code, tmp_path, TESTFENCE_BINDING="ctypes") == "0 -1 0 0 -1 0"


STALE = """
#define Py_LIMITED_API 0x03090000
#include <Python.h>
PyMODINIT_FUNC PyInit__native(void);
static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "_testfence._native", NULL, -1, NULL,
                                 NULL, NULL, NULL, NULL};
PyMODINIT_FUNC PyInit__native(void)
{
    PyObject *m = PyModule_Create(&def);
    if (m && %s)
        return NULL;
    return m;
}
"""


@pytest.mark.parametrize("init, says", [
    ("PyModule_AddIntConstant(m, \"BINDING_VERSION\", 0) < 0",
     "is another version's compiled binding (0, this plugin's is 1)"),
    ("!PyErr_Format(PyExc_RuntimeError, \"init failed\")",
     "cannot load the plugin's compiled binding"),
])
def test_a_stale_or_broken_module_stops_saying_which(tmp_path, init, says):
    # Built for this system but not this plugin's (an older install's) or failing as it
    # starts: the plugin stops, naming the file; it does not go on half-bound.
    import sysconfig
    if not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")):
        pytest.skip("no Python.h (python3-dev)")
    shutil.copy(LIB, tmp_path / "libtestfence.so")
    (tmp_path / "stale.c").write_text(STALE % init)
    subprocess.run(["cc", "-shared", "-fPIC", "-I" + sysconfig.get_paths()["include"], "-o",
                    str(tmp_path / "_native.abi3.so"), str(tmp_path / "stale.c")], check=True)
    out = child("""
        from _testfence import native
        try:
            native._load_library()
        except native.FenceError as e:
            print("FenceError:", e)
        """, tmp_path, TESTFENCE_LIBRARY=str(tmp_path / "libtestfence.so"))
    assert out.startswith("FenceError: ") and says in out, out
    assert str(tmp_path / "_native.abi3.so") in out
    assert "TESTFENCE_BINDING=ctypes" in out
