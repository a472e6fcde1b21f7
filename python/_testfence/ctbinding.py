"""The binding through ctypes, where the compiled one (_native, src/pyext/) is not built
(Windows, macOS, no python3-dev) or TESTFENCE_BINDING=ctypes asks for it. The same calls with
the same Python types as _native: native.py's Session and Shim do not know which they have.
"""

import ctypes
import os
import sys

_c_p, _c_s, _c_i, _c_sz, _c_l = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_long

# include/testfence.h's calls: (result, arguments).
_PROTOS = {
    "tf_api_version": (_c_i, []),
    "tf_open": (_c_p, []),
    "tf_close": (None, [_c_p]),
    "tf_error": (_c_s, [_c_p]),
    "tf_error_kind": (_c_i, [_c_p]),
    "tf_warning": (_c_s, [_c_p]),
    "tf_load": (_c_i, [_c_p, _c_s, _c_s, ctypes.POINTER(_c_s), _c_sz]),
    "tf_set_outputs": (_c_i, [_c_p, ctypes.POINTER(_c_s), _c_sz]),
    "tf_check": (_c_i, [_c_p]),
    "tf_prepare": (_c_i, [_c_p]),
    "tf_fence": (_c_i, [_c_p]),
    "tf_attach": (_c_i, [_c_p, _c_s]),
    "tf_root": (_c_s, [_c_p]),
    "tf_config_source": (_c_s, [_c_p]),
    "tf_workspace": (_c_s, [_c_p]),
    "tf_tmp": (_c_s, [_c_p]),
    "tf_output": (_c_s, [_c_p, _c_sz]),
    "tf_pytest_cache": (_c_s, [_c_p]),
    "tf_shim": (_c_s, [_c_p]),
    "tf_fence_dir": (_c_s, [_c_p]),
    "tf_landlock_abi": (_c_i, [_c_p]),
    "tf_set_backend": (_c_i, [_c_p, _c_i]),
    "tf_policy_entry": (_c_s, [_c_p, _c_sz, ctypes.POINTER(_c_i)]),
    "tf_env_count": (_c_sz, [_c_p]),
    "tf_env_name": (_c_s, [_c_p, _c_sz]),
    "tf_env_value": (_c_s, [_c_p, _c_sz]),
    "tf_path_check_at": (_c_i, [_c_p, _c_i, _c_s, _c_i, _c_s, _c_sz]),
    "tf_files_inside": (_c_i, [_c_p, ctypes.c_char_p, _c_sz, ctypes.c_char_p, _c_sz]),
    "tf_fenced": (_c_i, [_c_p]),
    "tf_record_at": (_c_i, [_c_p, _c_s, _c_s, _c_s, _c_i, _c_i, _c_s, _c_s, _c_s, _c_l, _c_s, _c_s, _c_l]),
    "tf_test_split": (_c_s, [_c_s, ctypes.POINTER(_c_sz)]),
    "tf_ioctl_class": (_c_i, [ctypes.c_ulong]),
    "tf_fails_first": (_c_i, [_c_s, _c_i, _c_s, _c_i, _c_s]),
    "tf_violations_load": (_c_l, [_c_p]),
    "tf_violation_str": (_c_s, [_c_p, _c_sz, _c_s]),
    "tf_violation_line": (_c_s, [_c_p, _c_sz]),
    "tf_violation_int": (_c_l, [_c_p, _c_sz, _c_s]),
    "tf_summary": (_c_p, [_c_p, _c_i]),
    "tf_status": (_c_i, [_c_p, _c_i]),
    "tf_end_tmp": (_c_i, [_c_p, _c_i]),
    "tf_planted": (_c_p, [_c_p, ctypes.POINTER(_c_i)]),
    "tf_free": (None, [_c_p]),
    "tf_audit_filter_set": (_c_i, [_c_p, _c_p, ctypes.py_object, ctypes.POINTER(_c_s), _c_sz]),
}


def open_library(path):
    """The library at PATH (a name the dynamic loader finds, or a path) as a Binding; OSError
    when it cannot be loaded, or lacks one of the calls."""
    return Binding(ctypes.CDLL(path), path)


def _strings(items):
    return (ctypes.c_char_p * (len(items) + 1))(*items, None)


class Binding:
    """libtestfence's calls as _native has them: tf_X(...) where the C call's arguments are
    ints, bytes and None; the calls with pointers out, as Python results."""

    def __init__(self, cdll, path):
        self._lib = cdll
        for name, (res, args) in _PROTOS.items():
            fn = getattr(cdll, name, None)
            if fn is None:
                raise OSError("%s has no %s" % (path, name))
            fn.restype, fn.argtypes = res, args
            setattr(self, name, fn)

    def load_allow(self, h, allow):
        return self.tf_load(h, None, None, _strings(allow), len(allow))

    def set_outputs(self, h, outputs):
        return self.tf_set_outputs(h, _strings(outputs), len(outputs))

    def policy_entry(self, h, i):
        kind = ctypes.c_int(0)
        return self.tf_policy_entry(h, i, ctypes.byref(kind)), kind.value

    def path_check_at(self, h, dirfd, path, flags):
        buf = ctypes.create_string_buffer(4096)
        return self.tf_path_check_at(h, dirfd, path, flags, buf, len(buf)), buf.value

    def files_inside(self, h, paths, n):
        out = ctypes.create_string_buffer(n or 1)
        return self.tf_files_inside(h, paths, len(paths), out, n), out.raw[:n]

    def test_split(self, value):
        n = ctypes.c_size_t(0)
        phase = self.tf_test_split(value, ctypes.byref(n))
        return n.value, phase

    def _taken(self, p):
        if not p:
            return None
        try:
            return ctypes.string_at(p)
        finally:
            self.tf_free(p)

    def planted(self, h):
        n = ctypes.c_int(0)
        text = self._taken(self.tf_planted(h, ctypes.byref(n)))
        return n.value, text

    def summary(self, h, status):
        return self._taken(self.tf_summary(h, status))

    def audit_filter_add(self, hook, names):
        """HOOK behind the library's filter for the events NAMES (bytes); False where this
        Python cannot have it (a build that does not export a call, an earlier hook refusing)."""
        api = ctypes.pythonapi
        try:
            # Functions of our own (PYFUNCTYPE: called holding the GIL): setting restype on
            # ctypes.pythonapi's shared ones would change them for the tests' code too.
            interpreter = ctypes.PYFUNCTYPE(ctypes.c_void_p)(("PyInterpreterState_Get", api))
            add = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)(
                ("PySys_AddAuditHook", api))
            incref = ctypes.PYFUNCTYPE(None, ctypes.py_object)(("Py_IncRef", api))
            calls = _PythonApi(*[ctypes.cast(getattr(api, name), ctypes.c_void_p).value
                                 for name in _PythonApi.names])
        except AttributeError:
            return False
        if self.tf_audit_filter_set(ctypes.byref(calls), interpreter(), hook, _strings(names),
                                    len(names)):
            return False
        incref(hook)  # for the process's lifetime: the filter holds it
        try:
            return add(ctypes.cast(self._lib.tf_audit_filter, ctypes.c_void_p), None) == 0
        except Exception:
            return False

    # The shim: a handle is its ctypes.CDLL; None where it has no such call.

    @staticmethod
    def shim_open(path):
        try:
            return ctypes.CDLL(None if path is None else os.fsdecode(path))
        except OSError:
            return None

    @staticmethod
    def _shim_fn(h, name, res, args):
        fn = getattr(h, name, None)  # CDLL keeps it: typed once (rescan runs every phase)
        if fn is not None and fn.argtypes is None:
            fn.restype, fn.argtypes = res, args
        return fn

    def shim_patchable(self, h):
        fn = self._shim_fn(h, "testfence_shim_patchable", ctypes.c_int, [])
        return None if fn is None else fn()

    def shim_patch(self, h, conf):
        fn = self._shim_fn(h, "testfence_shim_patch", ctypes.c_int, [ctypes.c_char_p])
        return None if fn is None else fn(conf)

    def shim_rescan(self, h):
        fn = self._shim_fn(h, "testfence_shim_rescan", None, [])
        return None if fn is None else fn()

    def shim_attach(self, h, conf):
        fn = self._shim_fn(h, "testfence_shim_attach", ctypes.c_int, [ctypes.c_char_p])
        return None if fn is None else fn(conf)

    # The ctypes function the shim was given, kept for good: a thread may be in it.
    _callback = None

    def shim_frames(self, h, fields):
        fn = self._shim_fn(h, "testfence_shim_frames", ctypes.c_int, [_FRAMES_FN])
        if fn is None:
            return None
        if Binding._callback is None:
            Binding._callback = _frames_callback(fields)
        elif Binding._callback.fields is not fields:
            return -1  # the first FIELDS keeps its place, as in _native
        return fn(Binding._callback.fn)

    def shim_frames_off(self, h):
        fn = self._shim_fn(h, "testfence_shim_frames_off", ctypes.c_int, [_FRAMES_FN])
        if fn is None:
            return None
        if Binding._callback is None:
            return -1  # nothing registered, as the shim answers for a function not its own
        return fn(Binding._callback.fn)


class _PythonApi(ctypes.Structure):
    """include/testfence.h's tf_python_api: the Python calls tf_audit_filter makes."""
    _fields_ = [(name, ctypes.c_void_p) for name in (
        "call_function", "dec_ref", "interpreter", "thread_state", "enter_tracing",
        "leave_tracing")]
    names = ("PyObject_CallFunction", "Py_DecRef", "PyInterpreterState_Get", "PyThreadState_Get",
             "PyThreadState_EnterTracing", "PyThreadState_LeaveTracing")


_FRAMES_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int)


class _frames_callback:
    """The shim's frames callback around FIELDS(frame) -> bytes (where.py's), called on the
    thread whose write was refused (ctypes takes the GIL) with the frame that made it."""

    def __init__(self, fields):
        self.fields = fields

        def call(buf, cap):
            try:  # f_back: None on a thread running no Python code, as _native passes it
                data = fields(sys._getframe().f_back)
                if not data or len(data) >= cap:
                    return 0
                ctypes.memmove(buf, data, len(data))
                return len(data)
            except BaseException:  # fields catches its own; ctypes would print the rest
                return 0

        self.fn = _FRAMES_FN(call)
