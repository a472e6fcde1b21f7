"""Where in the project a blocked write came from: the innermost frame of the project's own
code (a test, a fixture, a conftest hook, a helper) and the test function's own frame, for the
records' source fields (docs/diagnostics.md). Looked at only for a write that is refused, never
for an allowed one: the shim in this process asks (a function registered with it), the audit
hook asks where it records, and a process the tests start is told the line that started it
(TESTFENCE_STARTED_AT, read by its shim only when it records).
"""

import _thread
import os
import threading
import sys
import types

from .state import _at_exit

# Set for a process the tests start: "src_file TAB src_line TAB src_func TAB test_file TAB
# test_line" of the line that started it. Informational, like the fields it fills: the record's
# test is still the one PYTEST_CURRENT_TEST names, so a child cannot file a write elsewhere.
ENV_STARTED_AT = "TESTFENCE_STARTED_AT"

# The plugin itself (python/_testfence, and testfence.py beside it): never the project's code.
_PKG = os.path.dirname(os.path.abspath(__file__))
_OURS = (_PKG + os.sep, os.path.join(os.path.dirname(_PKG), "testfence.py"))

_MISS = object()


class _Where:
    roots = ()  # the project root, as the library resolved it and as given
    judged = {}  # co_filename -> its name relative to the root, or None: not the project's
    library = ()  # the standard library's directories
    shim = None  # the native.Shim asking _fields, once registered
    started_at = os.environ.get(ENV_STARTED_AT)  # as this process was started (top_of_run: None)


def top_of_run():
    """This process starts a run of its own (it fences itself): no line of it started this
    process, so what the environment says (a shell's stale export) is not believed."""
    os.environ.pop(ENV_STARTED_AT, None)
    _Where.started_at = None


def set_root(root):
    """The project root (the library's): frames beneath it, and outside the standard library,
    site-packages and this plugin, are the project's."""
    if not root:
        return
    roots = [root.rstrip(os.sep) or os.sep]
    real = os.path.realpath(root)
    if real not in roots:
        roots.append(real)
    _Where.roots = tuple(roots)
    _Where.judged = {}
    lib = os.path.dirname(os.path.abspath(os.__file__))  # the standard library (lib-dynload in it)
    _Where.library = tuple({lib + os.sep, os.path.realpath(lib) + os.sep})


def _not_project(path):
    parts = path.split(os.sep)
    return ("site-packages" in parts or "dist-packages" in parts or path.startswith(_OURS)
            or path.startswith(_Where.library))


def _judge(name):
    if not name or name.startswith("<") or not _Where.roots:
        return None  # <frozen ...>, <string>, <stdin>: no file of the project's
    path = name if os.path.isabs(name) else os.path.abspath(name)
    for cand in (path, os.path.realpath(path)):
        if _not_project(cand):
            return None
        for root in _Where.roots:
            if cand.startswith(root + os.sep):
                return cand[len(root) + 1:]
    return None


def _project_file(name):
    rel = _Where.judged.get(name, _MISS)
    if rel is _MISS:
        rel = _Where.judged[name] = _judge(name)
    return rel


def _test_callers():
    """The code objects that call a test function: pytest's pytest_pyfunc_call, unittest's
    _callTestMethod. Looked up where they are imported already, never imported for this."""
    out = set()
    py = sys.modules.get("_pytest.python")
    fn = getattr(py, "pytest_pyfunc_call", None)
    if fn is not None:
        out.add(getattr(fn, "__code__", None))
    case = sys.modules.get("unittest.case")
    fn = getattr(getattr(case, "TestCase", None), "_callTestMethod", None)
    if fn is not None:
        out.add(getattr(fn, "__code__", None))
    out.discard(None)
    return out


def _test_code(caller):
    """The code of the test function the frame CALLER (one of _test_callers') calls, through
    any decorators that say what they wrap (functools.wraps); None when it cannot be told."""
    local = caller.f_locals
    fn = local.get("testfunction", local.get("method"))
    for _ in range(100):
        # Through plain functions' own dicts only (functools.wraps puts it there): a getattr
        # on any other object could run the test's code (a property, a __getattr__) inside
        # the shim's record.
        if isinstance(fn, types.MethodType):
            fn = fn.__func__
        inner = fn.__dict__.get("__wrapped__") if isinstance(fn, types.FunctionType) else None
        if inner is None:
            break
        fn = inner
    return fn.__code__ if isinstance(fn, types.FunctionType) else None


def find(frame):
    """(src_file, src_line, src_func, test_file, test_line) for the stack from FRAME outwards:
    the innermost frame in the project, and the test function's own frame (else the outermost
    project frame beneath the call of the test function: a wrapper of the project's that says
    not what it wraps). None where unknown; what this process was told by the one that started
    it fills what its own stack does not."""
    callers = _test_callers()
    src = test = None
    mine = []  # the project's frames, innermost first: (code, file, line)
    f = frame
    while f is not None:
        code = f.f_code
        if code in callers:
            if mine:
                own = _test_code(f)
                test = next(((rel, n) for c, rel, n in mine if c is own), mine[-1][1:])
            break
        rel = _project_file(code.co_filename)
        if rel is not None:
            if src is None:
                src = (rel, f.f_lineno, code.co_name)
            mine.append((code, rel, f.f_lineno))
        f = f.f_back
    if src is None or test is None:
        told = _told()
        src = src or told[0]
        test = test or told[1]
    return (src or (None, None, None)) + (test or (None, None))


def _told():
    """(src, test) from TESTFENCE_STARTED_AT as this process was started with it: where the
    process that started this one was (not what this process sets while it starts its own)."""
    parts = (_Where.started_at or "").split("\t")
    if len(parts) != 5:
        return None, None
    lines = [int(p) if p.isdigit() and 0 < len(p) < 10 else 0 for p in (parts[1], parts[4])]
    src = (parts[0], lines[0], parts[2] or None) if parts[0] and lines[0] else None
    test = (parts[3], lines[1]) if parts[3] and lines[1] else None
    return src, test


def _pack(where, sep):
    """The five fields joined with SEP (str), a pair left empty when unknown or when its
    file cannot be said so."""
    sf, sl, fn, tf, tl = where
    bad = (sep, "\n", "\0")
    if not sf or any(c in sf for c in bad) or any(c in (fn or "") for c in bad):
        sf, sl, fn = "", 0, ""
    if not tf or any(c in tf for c in bad):
        tf, tl = "", 0
    return sep.join((sf, str(sl or ""), fn or "", tf, str(tl or "")))


# ---- the shim asks: a refused write in this process ------------------------------------

def _fields(frame):
    """Called by the shim, on the thread whose write was refused, with the frame of the code
    that made it (native.Shim.frames): the five fields, NUL-separated, as bytes. Whatever goes
    wrong, nothing (b""): the record is made all the same, without them."""
    try:
        return os.fsencode(_pack(find(frame), "\0"))
    except KeyboardInterrupt:  # the binding would drop it: the main thread gets it again
        _thread.interrupt_main()
        return b""
    except BaseException:  # a test's timeout, SystemExit: not this record's to carry
        return b""


def register(shim):
    """Let the shim loaded in this process (SHIM: a native.Shim) ask where a refused write
    came from. True when it will. Unregistered at exit, before the interpreter goes away; a
    forked child registers again, as its own process."""
    if shim is None or _Where.shim is not None:
        return _Where.shim is not None
    if shim.frames(_fields) != 0:
        return False
    _Where.shim = shim
    _at_exit(unregister)
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_again)
    return True


def _again():
    if _Where.shim is not None:
        _Where.shim.frames(_fields)


def unregister():
    if _Where.shim is not None:
        _Where.shim.frames_off()
        _Where.shim = None  # the callback stays referenced (by the binding): a thread may be in it


# ---- a process the tests start is told the line that started it ---------------------------

def started_at(frame):
    """TESTFENCE_STARTED_AT's value for a process started from FRAME, or None: nothing known
    (nor when looking fails: the test's own call must go on as without the plugin)."""
    try:
        where = find(frame)
    except Exception:
        return None
    return None if where[0] is None and where[3] is None else _pack(where, "\t")


def _with(env, value):
    """ENV (a spawn's own environment, not None) with ENV_STARTED_AT, unless the caller chose
    one without testfence's variables (its child has no shim to read it)."""
    if not hasattr(env, "keys"):
        return env
    bkeys = any(isinstance(k, bytes) for k in env.keys())
    if (b"TESTFENCE_WORKSPACE" if bkeys else "TESTFENCE_WORKSPACE") not in env:
        return env
    env = dict(env)  # a copy: the caller's mapping is left as it was
    if bkeys:
        env[os.fsencode(ENV_STARTED_AT)] = os.fsencode(value)
    else:
        env[ENV_STARTED_AT] = value
    return env


class _Inherit:
    lock = threading.Lock()
    depth = 0  # calls under way
    was = None  # the value before the first of them


def _inherited(value, call, *args, **kwargs):
    """CALL with ENV_STARTED_AT set to VALUE in this process's environment while it starts a
    child that inherits it (the C environment as it is: a copy made here would drop what C
    code set with setenv), then as it was before the first such call under way ended (threads
    starting children at once: another's child may be told this line: the fields are
    informational, and this process's own records do not read the variable, shim.c)."""
    with _Inherit.lock:
        if _Inherit.depth == 0:
            _Inherit.was = os.environ.get(ENV_STARTED_AT)
        _Inherit.depth += 1
        os.environ[ENV_STARTED_AT] = value
    try:
        return call(*args, **kwargs)
    finally:
        with _Inherit.lock:
            _Inherit.depth -= 1
            if _Inherit.depth == 0 and _Inherit.was is None:
                os.environ.pop(ENV_STARTED_AT, None)
            elif _Inherit.depth == 0:
                os.environ[ENV_STARTED_AT] = _Inherit.was


def _mark(real, name):
    def deco(wrapped):
        wrapped._testfence_wrapped = True
        wrapped.__wrapped__ = real
        wrapped.__name__ = wrapped.__qualname__ = name
        wrapped.__doc__ = real.__doc__
        return wrapped
    return deco


def _wrap_popen():
    """subprocess (run, Popen, check_output, os.popen, asyncio's) starts every child through
    Popen._execute_child(args, executable, preexec_fn, close_fds, pass_fds, cwd, env, ...)."""
    import subprocess
    real = getattr(subprocess.Popen, "_execute_child", None)
    if real is None or getattr(real, "_testfence_wrapped", False):
        return

    @_mark(real, "_execute_child")
    def _execute_child(self, *args, **kwargs):
        value = started_at(sys._getframe(1))
        env = args[6] if len(args) > 6 else kwargs.get("env")
        if value is None:
            return real(self, *args, **kwargs)
        if env is None:
            return _inherited(value, real, self, *args, **kwargs)
        if len(args) > 6:
            args = args[:6] + (_with(env, value),) + args[7:]
        else:
            kwargs["env"] = _with(env, value)
        return real(self, *args, **kwargs)

    subprocess.Popen._execute_child = _execute_child


def _wrap_spawn(name):
    """os.posix_spawn and os.posix_spawnp(path, argv, env, ...)."""
    real = getattr(os, name, None)
    if real is None or getattr(real, "_testfence_wrapped", False):
        return

    @_mark(real, name)
    def wrapped(path, argv, env, *args, **kwargs):
        value = started_at(sys._getframe(1))
        return real(path, argv, env if value is None else _with(env, value), *args, **kwargs)

    setattr(os, name, wrapped)


def _wrap_system():
    """os.system takes no environment: this process's has the variable while it runs."""
    real = os.system
    if getattr(real, "_testfence_wrapped", False):
        return

    @_mark(real, "system")
    def system(command):
        value = started_at(sys._getframe(1))
        return real(command) if value is None else _inherited(value, real, command)

    os.system = system


def tell_children():
    """From now on, a process started through subprocess, os.system or os.posix_spawn is told
    the line that started it (a frame walk per start, none per write). Not: a reference to
    those taken before, multiprocessing, C code's own spawns (docs/diagnostics.md)."""
    _wrap_popen()
    _wrap_spawn("posix_spawn")
    _wrap_spawn("posix_spawnp")
    _wrap_system()
