"""The native binding: libtestfence (include/testfence.h's calls and constants) and the shim,
and the error they raise. No policy here: the library decides. Linux: libtestfence.so.0;
Windows: libtestfence.dll (make windows), macOS: libtestfence.dylib (the python backend's plan,
workspace, log and report, no tf_fence; docs/platforms.md). Through the compiled module
_native.abi3.so (src/pyext/) where it is built, else ctypes (ctbinding.py): the same calls.
"""

import os
import sys


# Set by a fenced pytest for its children: its workspace. A pytest-xdist worker (or a
# pytest a test starts) finds it equal to TESTFENCE_WORKSPACE and joins that run.
ENV_PLUGIN = "TESTFENCE_PLUGIN"

# Set by a fenced pytest whose backend is python, for its children: a pytest-xdist worker (or a
# pytest a test starts) joins the run with the same backend (the kernel has nothing to say),
# and any other child Python starts the guard (pyback.guard_child).
ENV_BACKEND = "TESTFENCE_PLUGIN_BACKEND"


# For tests and unusual installs: the path of libtestfence.so. It never selects config.
ENV_LIBRARY = "TESTFENCE_LIBRARY"


# "ctypes": the binding through ctypes even where the compiled one is built (the tests run
# both); anything else, or unset: the compiled one when there is one.
ENV_BINDING = "TESTFENCE_BINDING"


# The compiled binding's file: in this package once installed; in the build dir, beside the
# library TESTFENCE_LIBRARY names.
NATIVE_NAME = "_native.abi3.so"


# The version of the compiled binding's calls this file makes (src/pyext/native.c's
# PYEXT_BINDING_VERSION): a stale _native.abi3.so is refused, saying so.
BINDING_VERSION = 1


SHIM_NAME = "libtestfence_preload.so"


# The library's file name on this OS.
if sys.platform.startswith("win") or sys.platform == "cygwin":
    LIBRARY_NAME = "libtestfence.dll"
elif sys.platform == "darwin":
    LIBRARY_NAME = "libtestfence.dylib"
else:
    LIBRARY_NAME = "libtestfence.so.0"


# Set by a pytest that started itself again with the shim preloaded, for the new process only.
ENV_REEXEC = "TESTFENCE_PLUGIN_REEXEC"


AT_FDCWD = -100


TF_PATH_NOFOLLOW = 1


TF_PATH_EMPTY = 2


_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


class FenceError(Exception):
    """A libtestfence call failed; the message is the library's, KIND its tf_error_kind."""

    def __init__(self, message, kind=0):
        super().__init__(message)
        self.kind = kind


# include/testfence.h's constants
TF_ERROR_NO_ROOT = 1
TF_ERROR_NOT_SET_UP = 2
TF_TMP_REMOVE, TF_TMP_KEEP, TF_TMP_KEEP_FAILED = 0, 1, 2


TF_PATH_OUTSIDE, TF_PATH_WRITABLE, TF_PATH_QUIET = 0, 1, 2


TF_IOCTL_HARMLESS, TF_IOCTL_REFUSED, TF_IOCTL_JUDGED = 0, 1, 2


TF_BACKEND_KERNEL, TF_BACKEND_SHIM = 0, 1


TF_ENTRY_DIR, TF_ENTRY_QUIET, TF_ENTRY_COMMANDS = 1, 2, 4


def _library_candidates():
    # The directory testfence.py is in: this package's parent.
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # The wheel ships the library (and the shim it preloads) in a directory beside us.
    beside = os.path.join(here, "testfence_native", LIBRARY_NAME)
    if os.path.exists(beside):
        return [beside]
    given = os.environ.get(ENV_LIBRARY)
    if given:
        return [given]
    # make install: PREFIX/lib/python3*/dist-packages/testfence.py, PREFIX/lib/libtestfence.so.0;
    # the Debian package (multiarch libdir) and others: the dynamic loader's path.
    # Windows, macOS: also the library beside testfence.py (a copy of the build's into
    # site-packages).
    own = [os.path.join(here, LIBRARY_NAME)] if LIBRARY_NAME.endswith((".dll", ".dylib")) else []
    return [os.path.join(here, "..", "..", LIBRARY_NAME)] + own + [LIBRARY_NAME]


def _compiled():
    """The compiled binding (_native), or None: not built here, ctypes asked for, or a Python
    that cannot load a stable-ABI module (PyPy; a free-threaded CPython, whose objects are laid
    out otherwise: its loader would not refuse the file, loaded by its path)."""
    if os.environ.get(ENV_BINDING) == "ctypes":
        return None
    import importlib.machinery, importlib.util
    # Built for 3.9's stable ABI: an older Python also takes the suffix, not the module.
    if sys.version_info < (3, 9) or ".abi3.so" not in importlib.machinery.EXTENSION_SUFFIXES:
        return None
    given = os.environ.get(ENV_LIBRARY)
    # Beside TESTFENCE_LIBRARY only when it names a directory: a bare name is the loader's to
    # find, and its dirname, the working directory, is no place to load code from.
    for d in [os.path.dirname(os.path.abspath(__file__))] + (
            [os.path.dirname(os.path.abspath(given))] if given and os.path.dirname(given) else []):
        path = os.path.join(d, NATIVE_NAME)
        if os.path.exists(path):
            loader = importlib.machinery.ExtensionFileLoader("_testfence._native", path)
            spec = importlib.util.spec_from_file_location("_testfence._native", path,
                                                          loader=loader)
            try:
                module = importlib.util.module_from_spec(spec)
                loader.exec_module(module)
            except ImportError:
                return None  # another OS's or architecture's build: ctypes does it
            except Exception as e:
                raise FenceError("cannot load the plugin's compiled binding %s (%s); install "
                                 "the plugin again, or set %s=ctypes" % (path, e, ENV_BINDING))
            if getattr(module, "BINDING_VERSION", None) != BINDING_VERSION:
                raise FenceError("%s is another version's compiled binding (%s, this plugin's is "
                                 "%d); install the plugin again, or set %s=ctypes" % (
                                     path, getattr(module, "BINDING_VERSION", "none"),
                                     BINDING_VERSION, ENV_BINDING))
            return module
    return None


_LIB = []  # the binding, once loaded: one library a process


def _load_library():
    """The binding to libtestfence: _native's module, or a ctbinding.Binding."""
    if _LIB:
        return _LIB[0]
    native = _compiled()
    if native is None:
        from . import ctbinding
    errors = []
    for cand in _library_candidates():
        try:
            if native is not None:
                native.open_library(os.fsencode(cand))
                lib = native
            else:
                lib = ctbinding.open_library(cand)
            break
        except OSError as e:
            errors.append(str(e))
    else:
        raise FenceError("cannot load %s (%s): it is missing, or older than this plugin; install "
                         "both from the same testfence" % (LIBRARY_NAME, "; ".join(errors)))
    if lib.tf_api_version() != 1:
        raise FenceError("libtestfence.so has API version %d; this plugin needs 1" % lib.tf_api_version())
    _LIB.append(lib)
    return lib


def _b(s):
    return None if s is None else os.fsencode(s)


def _s(b):
    return None if b is None else os.fsdecode(b)


class Session:
    """One tf_session: the run this process fences (or joined). LIB: _load_library()'s."""

    def __init__(self, lib):
        self.lib = lib
        self.h = lib.tf_open()
        if not self.h:
            raise MemoryError("tf_open")

    def close(self):
        if self.h:
            self.lib.tf_close(self.h)
            self.h = None

    def error(self):
        return _s(self.lib.tf_error(self.h))

    def _ok(self, rc):
        if rc < 0:
            raise FenceError(self.error(), self.lib.tf_error_kind(self.h))
        return rc

    def load(self, allow, outputs=()):
        self._ok(self.lib.set_outputs(self.h, [_b(o) for o in outputs]))
        self._ok(self.lib.load_allow(self.h, [_b(a) for a in allow]))

    def set_backend(self, backend):
        """TF_BACKEND_SHIM: this process fences itself without the kernel (the python backend);
        the shim refuses children's writes. Before load."""
        self._ok(self.lib.tf_set_backend(self.h, backend))

    def policy_entries(self):
        """The writable set the run is planned with: ([(path, is_dir)] writable, [(path,
        is_dir)] harmless tool state refused quietly). Tool state quiet only while its tool
        runs some subcommand (git describe) is left out: this process is not that tool."""
        writable, quiet = [], []
        i = 0
        while True:
            p, kind = self.lib.policy_entry(self.h, i)
            if p is None:
                return writable, quiet
            i += 1
            entry = (_s(p), bool(kind & TF_ENTRY_DIR))
            if not kind & TF_ENTRY_QUIET:
                writable.append(entry)
            elif not kind & TF_ENTRY_COMMANDS:
                quiet.append(entry)

    def outputs(self):
        out = []
        while True:
            o = _s(self.lib.tf_output(self.h, len(out)))
            if o is None:
                return out
            out.append(o)

    def check(self):
        self._ok(self.lib.tf_check(self.h))

    def prepare(self):
        self._ok(self.lib.tf_prepare(self.h))

    def fence(self):
        self._ok(self.lib.tf_fence(self.h))

    def attach(self, workspace):
        self._ok(self.lib.tf_attach(self.h, _b(workspace)))

    def get(self, what):
        return _s(getattr(self.lib, "tf_" + what)(self.h))

    def landlock_abi(self):
        return self.lib.tf_landlock_abi(self.h)

    def env(self):
        n = self.lib.tf_env_count(self.h)
        return [(_s(self.lib.tf_env_name(self.h, i)), _s(self.lib.tf_env_value(self.h, i))) for i in range(n)]

    def path_check_at(self, dirfd, path, flags):
        """(verdict, resolved) for PATH (bytes; b"" with TF_PATH_EMPTY: the fd DIRFD itself),
        resolved by the library as the kernel would: verdict 1 writable, 0 outside the writable
        set, 2 outside but harmless tool state (refused, never reported), None when it cannot
        be told."""
        if b"\0" in path:  # C would judge the path up to the NUL, another one: not told
            return None, os.fsdecode(path.split(b"\0")[0])
        rc, resolved = self.lib.path_check_at(self.h, dirfd, path, flags)
        return (None if rc < 0 else rc), _s(resolved)

    def files_inside(self, paths):
        """For each absolute path in PATHS (str), True when it lies inside the writable set
        or that cannot be told (the library's tf_files_inside)."""
        buf = b"".join(os.fsencode(p) + b"\0" for p in paths)
        rc, inside = self.lib.files_inside(self.h, buf, len(paths))
        self._ok(rc)
        return [b != 0 for b in inside]

    def fenced(self):
        """1: this process is fenced already (the kernel's word), 0: it is not, -1: unknown."""
        return self.lib.tf_fenced(self.h)

    def ioctl_class(self, request):
        """0 harmless, 1 refused on any file (TIOCSTI), 2 judged by the file it is made on."""
        return self.lib.tf_ioctl_class(request & 0xFFFFFFFF)

    def test_split(self, value):
        """(test, phase) of the test variable's VALUE (bytes), split by the library's one
        parser, the shim's: phase None when VALUE ends in none."""
        n, phase = self.lib.test_split(value)
        return os.fsdecode(value[:n]), _s(phase)

    def fails_first(self, op, flags, resolved, source):
        """Would the kernel refuse the write OP to RESOLVED before the fence is asked
        (EEXIST, ENOENT, EISDIR)? SOURCE: a rename's old name as (dirfd, path, flags)."""
        dirfd, path = (source[0], source[1]) if source else (AT_FDCWD, None)
        return self.lib.tf_fails_first(op.encode(), flags, _b(resolved), dirfd, path) == 1

    def record(self, op, path, resolved, err, by_us, test, phase, where=None):
        """Append a record; WHERE: (src_file, src_line, src_func, test_file, test_line), each
        None when unknown (where.find)."""
        sf, sl, fn, tf, tl = where or (None, None, None, None, None)
        self.lib.tf_record_at(self.h, op.encode(), _b(path), _b(resolved), err, int(by_us),
                              _b(test), _b(phase), _b(sf), sl or 0,
                              None if fn is None else fn.encode("utf-8", "replace"), _b(tf),
                              tl or 0)

    def violations_count(self):
        """The number of records in the log (read again), or -1."""
        return self.lib.tf_violations_load(self.h)

    def violations(self, start=0):
        """The records of the log from the START-th on, as dicts with their
        TEST_SANDBOX_VIOLATION line."""
        n = self.lib.tf_violations_load(self.h)
        out = []
        for i in range(start, max(n, 0)):
            rec = {k: _s(self.lib.tf_violation_str(self.h, i, k.encode()))
                   for k in ("test", "phase", "op", "resolved")}
            rec["line"] = _s(self.lib.tf_violation_line(self.h, i))
            rec["pid"] = self.lib.tf_violation_int(self.h, i, b"pid")
            out.append(rec)
        return out

    def status(self, status):
        """The run's exit status for the tests' STATUS, as testfence run decides it (120 when
        they passed but writes were blocked or they left a hazard; after planted())."""
        return self._ok(self.lib.tf_status(self.h, status))

    def end_tmp(self, keep):
        self._ok(self.lib.tf_end_tmp(self.h, int(keep)))

    def planted(self):
        """(count, text): what the run left in the writable set that would switch the next
        run's fence off (testfence.py, sitecustomize.py, a .pth, a config turning the plugin
        off); what cannot be checked counts as one."""
        n, text = self.lib.planted(self.h)
        if text is None:
            return 1, "testfence: cannot check what the tests left in the writable set: %s\n" % (
                self.error())
        return n, _s(text)

    def summary(self, status):
        text = self.lib.summary(self.h, status)
        if text is None:
            return "testfence: " + self.error() + "\n"
        return text.decode("utf-8", "replace")


class Shim:
    """The shim loaded in this process, to call it: LIB's (_load_library()'s) handle on the
    object at PATH (bytes; None: the process's global scope, where a preloaded one is). Each
    call returns None where the shim has no such call."""

    def __init__(self, lib, handle):
        self.lib, self.h = lib, handle

    @classmethod
    def open(cls, lib, path):
        """The shim at PATH, or None: it cannot be loaded."""
        h = lib.shim_open(path)
        return None if h is None else cls(lib, h)

    def patchable(self):
        return self.lib.shim_patchable(self.h)

    def patch(self, conf):
        return self.lib.shim_patch(self.h, conf)

    def rescan(self):
        return self.lib.shim_rescan(self.h)

    def attach(self, conf):
        return self.lib.shim_attach(self.h, conf)

    def frames(self, fields):
        """Let the shim ask FIELDS(frame) -> bytes where a write it refused came from."""
        return self.lib.shim_frames(self.h, fields)

    def frames_off(self):
        return self.lib.shim_frames_off(self.h)
