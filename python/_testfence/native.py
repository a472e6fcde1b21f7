"""The native binding: libtestfence through ctypes (include/testfence.h's calls and
constants) and the error it raises. No policy here: the library decides. Linux:
libtestfence.so.0; Windows: libtestfence.dll (make windows), macOS: libtestfence.dylib (the
python backend's plan, workspace, log and report, no tf_fence; docs/platforms.md).
"""

import ctypes
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


def _load_library():
    errors = []
    for cand in _library_candidates():
        try:
            lib = ctypes.CDLL(cand)
            break
        except OSError as e:
            errors.append(str(e))
    else:
        raise FenceError("cannot load %s (%s)" % (LIBRARY_NAME, "; ".join(errors)))
    c_p, c_s, c_i, c_sz, c_l = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_long
    protos = {
        "tf_api_version": (c_i, []),
        "tf_open": (c_p, []),
        "tf_close": (None, [c_p]),
        "tf_error": (c_s, [c_p]),
        "tf_error_kind": (c_i, [c_p]),
        "tf_warning": (c_s, [c_p]),
        "tf_load": (c_i, [c_p, c_s, c_s, ctypes.POINTER(c_s), c_sz]),
        "tf_set_outputs": (c_i, [c_p, ctypes.POINTER(c_s), c_sz]),
        "tf_check": (c_i, [c_p]),
        "tf_prepare": (c_i, [c_p]),
        "tf_fence": (c_i, [c_p]),
        "tf_attach": (c_i, [c_p, c_s]),
        "tf_root": (c_s, [c_p]),
        "tf_config_source": (c_s, [c_p]),
        "tf_workspace": (c_s, [c_p]),
        "tf_tmp": (c_s, [c_p]),
        "tf_output": (c_s, [c_p, c_sz]),
        "tf_pytest_cache": (c_s, [c_p]),
        "tf_shim": (c_s, [c_p]),
        "tf_fence_dir": (c_s, [c_p]),
        "tf_landlock_abi": (c_i, [c_p]),
        "tf_set_backend": (c_i, [c_p, c_i]),
        "tf_policy_entry": (c_s, [c_p, c_sz, ctypes.POINTER(c_i)]),
        "tf_env_count": (c_sz, [c_p]),
        "tf_env_name": (c_s, [c_p, c_sz]),
        "tf_env_value": (c_s, [c_p, c_sz]),
        "tf_path_check": (c_i, [c_p, c_s, c_i, c_s, c_sz]),
        "tf_path_check_at": (c_i, [c_p, c_i, c_s, c_i, c_s, c_sz]),
        "tf_files_inside": (c_i, [c_p, ctypes.c_char_p, c_sz, ctypes.c_char_p, c_sz]),
        "tf_fenced": (c_i, [c_p]),
        "tf_record": (c_i, [c_p, c_s, c_s, c_s, c_i, c_i, c_s, c_s]),
        "tf_record_at": (c_i, [c_p, c_s, c_s, c_s, c_i, c_i, c_s, c_s, c_s, c_l, c_s, c_s, c_l]),
        "tf_test_split": (c_s, [c_s, ctypes.POINTER(c_sz)]),
        "tf_ioctl_class": (c_i, [ctypes.c_ulong]),
        "tf_fails_first": (c_i, [c_s, c_i, c_s, c_i, c_s]),
        "tf_violations_load": (c_l, [c_p]),
        "tf_violation_str": (c_s, [c_p, c_sz, c_s]),
        "tf_violation_line": (c_s, [c_p, c_sz]),
        "tf_violation_int": (c_l, [c_p, c_sz, c_s]),
        "tf_summary": (c_p, [c_p, c_i]),
        "tf_status": (c_i, [c_p, c_i]),
        "tf_end_tmp": (c_i, [c_p, c_i]),
        "tf_planted": (c_p, [c_p, ctypes.POINTER(c_i)]),
        "tf_free": (None, [c_p]),
        "tf_audit_filter_set": (c_i, [c_p, c_p, ctypes.py_object, ctypes.POINTER(c_s), c_sz]),
    }
    for name, (res, args) in protos.items():
        fn = getattr(lib, name, None)
        if fn is None:
            raise FenceError("libtestfence.so (%s) has no %s: it is older than this plugin; "
                             "install both from the same testfence" % (cand, name))
        fn.restype, fn.argtypes = res, args
    if lib.tf_api_version() != 1:
        raise FenceError("libtestfence.so has API version %d; this plugin needs 1" % lib.tf_api_version())
    return lib


def _b(s):
    return None if s is None else os.fsencode(s)


def _s(b):
    return None if b is None else os.fsdecode(b)


class Session:
    """One tf_session: the run this process fences (or joined)."""

    def __init__(self, lib):
        self.lib = lib
        self.h = lib.tf_open()
        if not self.h:
            raise MemoryError("tf_open")

    def close(self):
        if self.h:
            self.lib.tf_close(self.h)
            self.h = None

    def _ok(self, rc):
        if rc < 0:
            raise FenceError(_s(self.lib.tf_error(self.h)), self.lib.tf_error_kind(self.h))
        return rc

    def load(self, allow, outputs=()):
        outs = (ctypes.c_char_p * (len(outputs) + 1))(*[_b(o) for o in outputs], None)
        self._ok(self.lib.tf_set_outputs(self.h, outs, len(outputs)))
        arr = (ctypes.c_char_p * (len(allow) + 1))(*[_b(a) for a in allow], None)
        self._ok(self.lib.tf_load(self.h, None, None, arr, len(allow)))

    def set_backend(self, backend):
        """TF_BACKEND_SHIM: this process fences itself without the kernel (the python backend);
        the shim refuses children's writes. Before load."""
        self._ok(self.lib.tf_set_backend(self.h, backend))

    def policy_entries(self):
        """The writable set the run is planned with: ([(path, is_dir)] writable, [(path,
        is_dir)] harmless tool state refused quietly). Tool state quiet only while its tool
        runs some subcommand (git describe) is left out: this process is not that tool."""
        writable, quiet = [], []
        kind = ctypes.c_int(0)
        i = 0
        while True:
            p = _s(self.lib.tf_policy_entry(self.h, i, ctypes.byref(kind)))
            if p is None:
                return writable, quiet
            i += 1
            entry = (p, bool(kind.value & TF_ENTRY_DIR))
            if not kind.value & TF_ENTRY_QUIET:
                writable.append(entry)
            elif not kind.value & TF_ENTRY_COMMANDS:
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

    def env(self):
        n = self.lib.tf_env_count(self.h)
        return [(_s(self.lib.tf_env_name(self.h, i)), _s(self.lib.tf_env_value(self.h, i))) for i in range(n)]

    def path_check_at(self, dirfd, path, flags):
        """(verdict, resolved) for PATH (bytes; b"" with TF_PATH_EMPTY: the fd DIRFD itself),
        resolved by the library as the kernel would: verdict 1 writable, 0 outside the writable
        set, 2 outside but harmless tool state (refused, never reported), None when it cannot
        be told."""
        buf = ctypes.create_string_buffer(4096)
        rc = self.lib.tf_path_check_at(self.h, dirfd, path, flags, buf, len(buf))
        return (None if rc < 0 else rc), _s(buf.value)

    def files_inside(self, paths):
        """For each absolute path in PATHS (str), True when it lies inside the writable set
        or that cannot be told (the library's tf_files_inside)."""
        buf = b"".join(os.fsencode(p) + b"\0" for p in paths)
        out = ctypes.create_string_buffer(len(paths) or 1)
        self._ok(self.lib.tf_files_inside(self.h, buf, len(buf), out, len(paths)))
        return [b != 0 for b in out.raw[: len(paths)]]

    def fenced(self):
        """1: this process is fenced already (the kernel's word), 0: it is not, -1: unknown."""
        return self.lib.tf_fenced(self.h)

    def ioctl_class(self, request):
        """0 harmless, 1 refused on any file (TIOCSTI), 2 judged by the file it is made on."""
        return self.lib.tf_ioctl_class(request & 0xFFFFFFFF)

    def test_split(self, value):
        """(test, phase) of the test variable's VALUE (bytes), split by the library's one
        parser, the shim's: phase None when VALUE ends in none."""
        n = ctypes.c_size_t(0)
        phase = self.lib.tf_test_split(value, ctypes.byref(n))
        return os.fsdecode(value[: n.value]), _s(phase)

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
        n = ctypes.c_int(0)
        p = self.lib.tf_planted(self.h, ctypes.byref(n))
        if not p:
            return 1, "testfence: cannot check what the tests left in the writable set: %s\n" % (
                _s(self.lib.tf_error(self.h)))
        try:
            return n.value, _s(ctypes.cast(p, ctypes.c_char_p).value)
        finally:
            self.lib.tf_free(p)

    def summary(self, status):
        p = self.lib.tf_summary(self.h, status)
        if not p:
            return "testfence: " + _s(self.lib.tf_error(self.h)) + "\n"
        try:
            return ctypes.string_at(p).decode("utf-8", "replace")
        finally:
            self.lib.tf_free(p)
