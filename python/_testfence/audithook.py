"""The audit hook: which test tried a write the kernel blocks in this process, and the
metadata calls (chmod, utime, xattr, ioctl) the hook refuses itself.
"""

import errno
import gc
import os
import sys
import threading

from .native import (
    AT_FDCWD, FenceError, TF_IOCTL_HARMLESS, TF_IOCTL_REFUSED, TF_PATH_EMPTY, TF_PATH_NOFOLLOW,
    TF_PATH_OUTSIDE, TF_PATH_QUIET, TF_PATH_WRITABLE, _WRITE_FLAGS)
from .state import _at_exit, _state
from . import where as _where


def _current():
    """(test, phase) from PYTEST_CURRENT_TEST, split by the shim's own parser (the library's
    tf_test_split), so a write in this process is filed as a child's would be."""
    v = os.environb.get(b"PYTEST_CURRENT_TEST")
    if not v:
        return None, None
    return _state.session.test_split(v)


def _target(p, dir_fd):
    """(dirfd, path, flags) for the library's resolver: a path relative to DIR_FD (or the
    cwd), or an open file (fchmod, os.utime(fd), ...). None: nothing on disk is named."""
    if isinstance(p, int):
        return (p, b"", TF_PATH_EMPTY)
    if p is None:
        return None
    dirfd = dir_fd if isinstance(dir_fd, int) and dir_fd >= 0 else AT_FDCWD
    return (dirfd, os.fsencode(p), 0)  # TypeError for anything else: see _audit


def _arg(args, i):
    return args[i] if len(args) > i else None


# event -> (op, index of the path written, index of its dir_fd, acts on the name itself,
# metadata: Landlock does not block it, so the hook refuses it)
_EVENTS = {
    "os.remove": ("unlink", 0, 1, True, False),
    "os.rmdir": ("rmdir", 0, 1, True, False),
    "os.mkdir": ("mkdir", 0, 2, True, False),
    "os.rename": ("rename", 1, 3, True, False),
    "os.link": ("link", 1, 3, True, False),
    "os.symlink": ("symlink", 1, 2, True, False),
    "os.truncate": ("truncate", 0, None, False, False),
    "os.chmod": ("chmod", 0, 2, False, True),
    "os.chown": ("chown", 0, 3, False, True),
    "os.utime": ("utime", 0, 3, False, True),
    "os.setxattr": ("setxattr", 0, None, False, True),
    "os.removexattr": ("removexattr", 0, None, False, True),
}


# Every event _audit looks at. Added with sys.addaudithook (where the library's filter cannot
# be used) it is called for every audit event of the process (each id() and
# object.__getattr__ too: 110,000 in a suite that uses freezegun), so it ends at once for the
# rest.
_WATCHED = frozenset(_EVENTS) | {"open", "fcntl.ioctl"}


def _targets(event, args):
    """[(op, target, nofollow, meta, flags, source)] a write-like event aims at (see _target);
    SOURCE is the old name of a rename (a target too), FLAGS the open(2) flags."""
    if event == "open":
        path, mode, flags = args[0], args[1], args[2] or 0
        writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or flags & _WRITE_FLAGS
        if not writes or isinstance(path, int):
            return []  # reading, or an fd already open: nothing new is named
        excl = flags & os.O_CREAT and flags & os.O_EXCL
        return [("open", _target(path, None), bool(excl), False, flags, None)]
    spec = _EVENTS.get(event)
    if spec is None:
        return []
    op, pi, fi, nofollow, meta = spec
    target = _target(_arg(args, pi), _arg(args, fi) if fi is not None else None)
    if event != "os.rename":
        return [(op, target, nofollow, meta, 0, None)]
    old = _target(args[0], _arg(args, 2))  # the old name is removed too
    return [(op, target, nofollow, meta, 0, old), (op, old, True, False, 0, old)]


def _refuse(op, path):
    __tracebackhide__ = True  # pytest shows the test's own call, as for the kernel's refusal
    raise PermissionError(errno.EACCES, "testfence: %s outside the writable set is refused" % op,
                          path)


def _absolute(dirfd, path):
    """A name for a record when the library could not resolve one (it must be absolute)."""
    if not path:
        return "/proc/self/fd/%d" % dirfd
    p = os.fsdecode(path)
    return p if p.startswith("/") else os.path.join(os.getcwd(), p)


def _fixture_here():
    """The name of the fixture being set up by the code that is running now, else None: the
    frame of pytest's call_fixture_func holds the fixture's request. Looked up only for a write
    (a hook wrapper around every fixture's set-up cost each test more than this costs a write)."""
    code = _fixture_call()
    if code is None:
        return None
    f = sys._getframe(1)
    while f is not None:
        if f.f_code is code:
            request = f.f_locals.get("request")
            return getattr(request, "fixturename", None)
        f = f.f_back
    return None


def _fixture_call():
    """pytest 7 and 8 call every fixture function through _pytest.fixtures.call_fixture_func:
    its code object, or None (another pytest: writes are reported without the fixture; a
    child Python the guard runs in, without pytest: not imported for this)."""
    mod = sys.modules.get("_pytest.fixtures")
    fn = getattr(mod, "call_fixture_func", None)
    return getattr(fn, "__code__", None)


def _record_refused(st, op, shown, resolved, err, by_us=True, fixture=None):
    """A refused write, with its test: recorded here unless the shim loaded in this process
    records it; either way the test's failure names the fixture being set up (FIXTURE, when
    the caller looked it up already)."""
    test, phase = _current()
    fixture = fixture or (_fixture_here() if test else None)
    if fixture and test:
        st.fixture_of[(test, resolved)] = fixture
    if st.record_in_process:
        st.session.record(op, shown, resolved, err, by_us, test, phase, _where_here())


def _where_here():
    """Where the refused write came from (where.find), for its record: taken only here, where
    a write is refused. Nothing, rather than an error in the test's call, if it fails."""
    try:
        return _where.find(sys._getframe(2))
    except Exception:
        return None


def _ioctl(st, args):
    """fcntl.ioctl(fd, request, ...): Landlock judges only device ioctls, so the hook refuses,
    as the guard does under `testfence run`, typing into the terminal (TIOCSTI) and any
    request that may change a file (chattr's inode flags, labels) on one outside the writable
    set. Where this run's shim is loaded here, its ioctl() does the same and records it."""
    if len(args) < 2 or not isinstance(args[0], int) or not isinstance(args[1], int):
        return
    if not st.record_in_process:
        return  # this run's shim is loaded here: its ioctl() judges and records
    fd, request = args[0], args[1]
    kind = st.session.ioctl_class(request)
    if kind == TF_IOCTL_HARMLESS:
        return
    verdict, resolved = ((TF_PATH_OUTSIDE, "") if kind == TF_IOCTL_REFUSED
                         else st.session.path_check_at(fd, b"", TF_PATH_EMPTY))
    if verdict == TF_PATH_WRITABLE:
        return
    if not resolved or not resolved.startswith("/"):
        resolved = _absolute(fd, b"")
    if verdict != TF_PATH_QUIET:  # harmless tool state: refused without a record
        _record_refused(st, "ioctl", "", resolved,
                        errno.EPERM if kind == TF_IOCTL_REFUSED else errno.EACCES)
    if kind == TF_IOCTL_REFUSED:
        raise PermissionError(errno.EPERM, "testfence: TIOCSTI (typing into the terminal) is refused")
    _refuse("ioctl", None)


# Raised once the hook is in, to see that it is called: a hook added before the plugin's (by
# a plugin loaded earlier, sitecustomize, a .pth file) can refuse new hooks, and both
# PySys_AddAuditHook and sys.addaudithook then return as if all went well.
_PROBE = "testfence.probe"


def add_hook():
    """From now on Python calls _audit for the events of this process it watches (once: a
    hook cannot be removed): behind the library's filter where it can be, else for every
    event. FenceError when the hook is not called: nothing would refuse the writes the kernel
    cannot block (chmod, ...), nor, under the python backend, any write."""
    if _state.hooked:
        return
    watched = _PY_WATCHED if _state.policy is not None else _WATCHED  # as _audit reads them
    if not add_filtered(_state.session.lib, _audit, watched | {_PROBE}):
        sys.addaudithook(_audit)
        _state.hook_in_python = True
    _state.hooked = True
    try:
        sys.audit(_PROBE)
    except Exception:
        pass  # an earlier hook refusing the probe: said below, as _audit never saw it
    if not _state.probed:
        raise FenceError("the audit hook could not be added: a hook added before testfence's (a "
                         "plugin loaded earlier, sitecustomize, a .pth file) refuses new hooks, "
                         "and without it nothing in this process refuses the writes the kernel "
                         "cannot block. Remove that hook, or load testfence before it")


def add_filtered(lib, hook, events):
    """HOOK registered behind the library's filter (tf_audit_filter), called for EVENTS only.
    CPython calls every audit hook for every audit event of the process, builtins.id and
    object.__getattr__ too (110,000 in itsdangerous' suite, which uses freezegun), and a hook
    written in Python cost 160 ns a call over none; in C it is the cost of comparing names.
    False where that cannot be: not CPython 3.11 or later, whose calls keep a hook untraced
    (PyThreadState_EnterTracing); the caller adds HOOK itself then."""
    if sys.implementation.name != "cpython" or sys.version_info < (3, 11):
        return False
    return lib.audit_filter_add(hook, [n.encode() for n in sorted(events)])


def _no_collection_at_exit():
    """With the hook added by sys.addaudithook, CPython calls it once more as it clears the
    interpreter at exit, and that call into Python sets off an automatic collection over every
    object still alive: 2.5-5 ms of a pytest's exit (docs/performance.md, eleventh session).
    So none once the exit handlers are done: the collections of the interpreter's finalization
    are explicit and still run, and a cycle's __del__ is still called at exit. (Behind the
    library's filter the hook is not called for that event.)"""
    if _state.hook_in_python:
        gc.disable()


# Registered as this module is imported (as the plugin loads, before conftest files and
# later plugins): exit handlers run last registered first, so every handler of theirs runs
# before this one, with automatic collection as they had it.
_at_exit(_no_collection_at_exit)


def _audit(event, args):
    __tracebackhide__ = True
    if event not in _ANY_WATCHED:
        if event == _PROBE:
            _state.probed = True
        return
    st = _state
    if st.session is None:
        return
    if st.policy is not None:  # the python backend: this hook is the fence
        if event in _PY_WATCHED:
            _audit_python(st, event, args)
        return
    if event not in _WATCHED:
        return
    if event == "fcntl.ioctl":
        _ioctl(st, args)
        return
    meta_event = event in _EVENTS and _EVENTS[event][4]
    try:
        targets = _targets(event, args)
    except Exception:
        if meta_event and st.record_in_process:
            _refuse(event, None)  # cannot tell what it aims at: refused, like the guard
        return
    fixture = None
    if targets and not st.record_in_process:
        # This run's shim is loaded here: it records, and refuses metadata itself. What it
        # cannot know is the fixture being set up; only then is the write looked at here.
        fixture = _fixture_here()
        if fixture is None:
            return
    for op, target, nofollow, meta, oflags, source in targets:
        if target is None:
            continue
        dirfd, path, flags = target
        flags |= TF_PATH_NOFOLLOW if nofollow else 0
        verdict, resolved = st.session.path_check_at(dirfd, path, flags)
        if verdict == TF_PATH_WRITABLE or (verdict is None and not meta):
            continue  # inside, or not ours to decide: the kernel blocks what it must
        if not resolved or not resolved.startswith("/"):
            resolved = _absolute(dirfd, path)
        if not meta and (verdict == TF_PATH_QUIET or
                         st.session.fails_first(op, oflags, resolved, source)):
            continue  # harmless tool state, or refused before the fence: nothing to report
        shown = os.fsdecode(path) if path else ""
        _record_refused(st, op, shown, resolved, errno.EACCES, meta, fixture)
        if meta and st.record_in_process:  # else the shim loaded here refuses it itself
            _refuse(op, shown or None)


# ---- the python backend: the hook refuses ------------------------------------------------
# Where the kernel cannot fence (Windows, macOS, Linux without Landlock, or
# --testfence-backend=python), this hook is the fence for this process: every write-capable
# event aimed outside the writable set is refused (PermissionError, EACCES) and recorded as
# the kernel backend's refusals are; the verdict is pypolicy's, over the plan's own lists.

# event -> (op, ((index of the path, index of its dir_fd, acts on the name itself), ...)):
# every name the call changes, the one it creates first.
_PY_EVENTS = {
    "os.remove": ("unlink", ((0, 1, True),)),
    "os.rmdir": ("rmdir", ((0, 1, True),)),
    "os.mkdir": ("mkdir", ((0, 2, True),)),
    "os.rename": ("rename", ((1, 3, True), (0, 2, True))),  # os.replace too: both names
    # A hard link's source too: a link to an outside file, made in tests/, writes it.
    "os.link": ("link", ((1, 3, True), (0, 2, False))),  # the source: op "link-source" below
    "os.symlink": ("symlink", ((1, 2, True),)),
    "os.truncate": ("truncate", ((0, None, False),)),
    "os.chmod": ("chmod", ((0, 2, False),)),
    "os.chown": ("chown", ((0, 3, False),)),
    "os.utime": ("utime", ((0, 3, False),)),
    "os.setxattr": ("setxattr", ((0, None, False),)),
    "os.removexattr": ("removexattr", ((0, None, False),)),
    "os.chflags": ("chflags", ((0, None, False),)),  # macOS, BSD
    "os.lchflags": ("chflags", ((0, None, True),)),
    # Raised by the wrappers _wrap_no_event puts on os.mkfifo and os.mknod (no event of their own).
    "os.mkfifo": ("mkfifo", ((0, 2, True),)),
    "os.mknod": ("mknod", ((0, 3, True),)),
    # Their os-level calls raise events too (open, os.mkdir); these are the names as given,
    # and on Windows copyfile is one CopyFile2 call (Python 3.12+), with no open event.
    "shutil.copyfile": ("open", ((1, None, False),)),
    "shutil.copytree": ("mkdir", ((1, None, True),)),
    "_winapi.CopyFile2": ("open", ((1, None, False),)),
}

_PY_WATCHED = frozenset(_PY_EVENTS) | {"open", "sqlite3.connect", "socket.bind", "fcntl.ioctl"}

_SQLITE_FLAGS = os.O_RDWR | os.O_CREAT


def _py_check(st, path, dir_fd, nofollow):
    """(verdict, resolved, shown) of a write to PATH (a name relative to DIR_FD or the cwd,
    or an open file's fd): verdict None when it cannot be told (the hook refuses it)."""
    fd_path = _pypolicy.fd_path
    if isinstance(path, int):
        named = fd_path(path)
        if named is None:
            return None, "(fd %d)" % path, ""
        verdict, resolved = st.policy.check(named, None, False)
        return verdict, resolved, ""
    shown = os.fsdecode(os.fspath(path))
    cwd = None
    if isinstance(dir_fd, int) and dir_fd >= 0 and not os.path.isabs(shown):
        cwd = fd_path(dir_fd)
        if cwd is None:
            return None, shown, shown
    verdict, resolved = st.policy.check(shown, cwd, nofollow)
    return verdict, resolved, shown


def _py_targets(event, args):
    """[(op, path, dir_fd, nofollow, oflags)] the event aims at; [] when it writes nothing."""
    if event == "open":
        path, mode, flags = args[0], args[1], args[2] or 0
        writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or flags & _WRITE_FLAGS
        if not writes or isinstance(path, int) or path is None:
            return []  # reading, or an fd already open: nothing new is named
        # os.open(name, flags, dir_fd=fd) raises this event without its dir_fd: the wrapper
        # _wrap_open puts on os.open says it (posix.open, or a reference taken before, does
        # not: the name is then judged from the cwd, docs/platforms.md).
        # Taken once: a call another audit hook makes while this event runs is not os.open's.
        dir_fd = None
        if mode is None:
            dir_fd, _open_at.dir_fd = getattr(_open_at, "dir_fd", None), None
        excl = bool(flags & os.O_CREAT and flags & os.O_EXCL)
        return [("open", path, dir_fd, excl, flags)]
    if event == "sqlite3.connect":
        db = args[0] if args else None
        if isinstance(db, (str, bytes)) or hasattr(db, "__fspath__"):
            db = os.fsdecode(os.fspath(db))
        else:
            return []
        if db in ("", ":memory:"):
            return []
        out = []
        if db.startswith("file:"):  # a URI (uri=True is not in the event: judge both readings)
            from urllib.parse import parse_qs, unquote, urlsplit
            u = urlsplit(db)
            mode = parse_qs(u.query).get("mode", [""])[-1]
            if mode in ("ro", "memory"):
                return []
            if u.path:
                out.append(("open", unquote(u.path), None, False, _SQLITE_FLAGS))
        out.append(("open", db, None, False, _SQLITE_FLAGS))
        return out
    if event == "socket.bind":
        import socket
        sock, addr = (args + (None, None))[:2]
        if getattr(sock, "family", None) != getattr(socket, "AF_UNIX", None):
            return []
        if not isinstance(addr, (str, bytes)) or not addr or addr[:1] in ("\0", b"\0"):
            return []  # an abstract socket names no file
        return [("bind", addr, None, True, 0)]
    spec = _PY_EVENTS.get(event)
    if spec is None:
        return []
    op, names = spec
    out = []
    if event in _NOFOLLOW_EVENTS and getattr(_open_at, "nofollow", False):
        # On the link itself (a wrapper said), for this event only: a call another audit hook
        # makes while it runs (posix.utime, following) is judged as it goes.
        _open_at.nofollow = False
        names = tuple((pi, fi, True) for pi, fi, _ in names)
    for k, (pi, fi, nofollow) in enumerate(names):
        path = _arg(args, pi)
        if path is not None:
            # A link's source is not created: the call fails first only when it is missing.
            kind = "link-source" if op == "link" and k else op
            out.append((kind, path, _arg(args, fi) if fi is not None else None, nofollow, 0))
    return out


# The python backend's verdicts (pypolicy), bound by install_python_backend: an import in the
# hook would fail at exit, where finalizers still write (CPython's import machinery is gone
# before the modules).
_pypolicy = None


def _audit_python(st, event, args):
    __tracebackhide__ = True
    QUIET, WRITABLE, fails_first = _pypolicy.QUIET, _pypolicy.WRITABLE, _pypolicy.fails_first
    if event == "fcntl.ioctl":
        _ioctl(st, args)  # the library's own judgement (Linux only has fcntl.ioctl to fear)
        return
    try:
        targets = _py_targets(event, args)
    except Exception:
        _refuse(event, None)  # cannot tell what it aims at: refused, fail closed
    checked = []
    for op, path, dir_fd, nofollow, oflags in targets:
        try:
            checked.append((op, oflags) + _py_check(st, path, dir_fd, nofollow))
        except (TypeError, ValueError, OSError):
            checked.append((op, oflags, None, repr(path), ""))
    source = checked[-1][3] if event == "os.rename" and len(checked) == 2 else None
    for op, oflags, verdict, resolved, shown in checked:
        if verdict == WRITABLE:
            continue
        if verdict == QUIET:
            _refuse(op, shown or None)  # harmless tool state: refused, never reported
        if op == "link-source":
            op, first = "link", verdict is not None and not os.path.lexists(resolved)
        else:
            first = verdict is not None and fails_first(op, oflags, resolved, source)
        if first:
            return  # the call fails by itself first (EEXIST, ENOENT): let it, record nothing
        if not resolved or not os.path.isabs(resolved):
            resolved = _absolute(AT_FDCWD, os.fsencode(resolved or shown or "?"))
        _record_refused(st, op, shown, resolved, errno.EACCES)
        _refuse(op, shown or None)


def _install(name, real, wrapped):
    """os.NAME = WRAPPED, standing for REAL in os.supports_dir_fd, supports_fd,
    supports_follow_symlinks and supports_effective_ids too: code that asks them (shutil's
    copystat and rmtree, os.fwalk's callers) must find the wrapper as it found the function."""
    wrapped._testfence_wrapped = True
    wrapped.__wrapped__ = real
    wrapped.__name__ = wrapped.__qualname__ = name
    wrapped.__doc__ = real.__doc__
    for which in ("supports_dir_fd", "supports_fd", "supports_follow_symlinks",
                  "supports_effective_ids"):
        supported = getattr(os, which, None)
        if isinstance(supported, set) and real in supported:
            supported.add(wrapped)
    setattr(os, name, wrapped)


def _wrap_no_event(name, index_of_dir_fd):
    """os.mkfifo and os.mknod raise no audit event (CPython 3.11): wrap them so that they do.
    Only the name os.NAME is covered; posix.NAME, or a reference taken before, is not."""
    real = getattr(os, name, None)
    if real is None or getattr(real, "_testfence_wrapped", False):
        return

    def wrapped(*args, **kwargs):
        given = list(args) + [None] * (index_of_dir_fd + 1 - len(args))
        path = given[0] if args else kwargs.get("path")
        dir_fd = kwargs.get("dir_fd", given[index_of_dir_fd])
        fake = [path] + [None] * index_of_dir_fd
        fake[index_of_dir_fd] = dir_fd
        sys.audit("os." + name, *fake)
        return real(*args, **kwargs)

    _install(name, real, wrapped)


_open_at = threading.local()  # .dir_fd: the dir_fd of the os.open call running on this thread


def _wrap_open():
    """os.open with a dir_fd raises the open event without it: the wrapper keeps it where the
    hook finds it while the call runs (on this thread)."""
    real = os.open
    if getattr(real, "_testfence_wrapped", False):
        return

    def wrapped(path, flags, mode=0o777, *, dir_fd=None):
        if dir_fd is None:
            return real(path, flags, mode)
        was, _open_at.dir_fd = getattr(_open_at, "dir_fd", None), dir_fd
        try:
            return real(path, flags, mode, dir_fd=dir_fd)
        finally:
            _open_at.dir_fd = was

    _install("open", real, wrapped)


# The metadata events whose follow_symlinks=False (not in the event) a wrapper says: the call
# then changes a link in tests/ itself, not the file it points to (shutil.copytree(symlinks=True)
# copies a link's times so: os.utime(dst, follow_symlinks=False)).
# os.link(src, dst, follow_symlinks=False) links a link in tests/ itself, not its target.
_NOFOLLOW_EVENTS = frozenset(["os.utime", "os.chmod", "os.chown", "os.setxattr",
                              "os.removexattr", "os.link"])


def _wrap_nofollow(name, always=False):
    """os.NAME(..., follow_symlinks=False) (ALWAYS: os.lchown) raises its event without saying
    so: the wrapper keeps it where the hook finds it while the call runs (on this thread). A
    call that bypasses the wrapper (posix.NAME) is judged through the link: never looser."""
    real = getattr(os, name, None)
    if real is None or getattr(real, "_testfence_wrapped", False):
        return

    def wrapped(*args, **kwargs):
        if not always and kwargs.get("follow_symlinks", True):
            return real(*args, **kwargs)
        was, _open_at.nofollow = getattr(_open_at, "nofollow", False), True
        try:
            return real(*args, **kwargs)
        finally:
            _open_at.nofollow = was

    _install(name, real, wrapped)


# dbm's C modules create their files with no audit event (shelve.open, dbm.open): the files
# each one makes of NAME, judged as an open for writing before the real call.
_DBM_FILES = {"dbm.ndbm": (".db", ".dir", ".pag"), "dbm.gnu": ("",)}


def _wrap_dbm(module):
    """MODULE.open (dbm.ndbm, dbm.gnu) with a flag that may write (c, n, w) raises the open event
    for each file it may make of the name, so the hook judges them as any open. Only the name
    MODULE.open is covered (dbm.open and shelve look it up at each call); _dbm.open and
    _gdbm.open called directly are not (docs/platforms.md)."""
    real = getattr(module, "open", None)
    if real is None or getattr(real, "_testfence_wrapped", False):
        return
    suffixes = _DBM_FILES[module.__name__]

    def wrapped(file, flag="r", *args, **kwargs):
        if isinstance(flag, str) and flag[:1] in ("c", "n", "w"):
            name = os.fspath(file)
            for suffix in suffixes:
                sys.audit("open", name + (os.fsencode(suffix) if isinstance(name, bytes)
                                          else suffix), "w", os.O_WRONLY | os.O_CREAT)
        return real(file, flag, *args, **kwargs)

    wrapped._testfence_wrapped = True
    wrapped.__wrapped__ = real
    wrapped.__name__ = wrapped.__qualname__ = "open"
    wrapped.__doc__ = real.__doc__
    module.open = wrapped


class _DbmFinder:
    """Wraps dbm.ndbm and dbm.gnu as they are imported (dbm.open imports them at its first
    call), so a run that never uses dbm pays nothing for it."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name not in _DBM_FILES:
            return None
        import importlib.machinery
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        real_exec = loader.exec_module

        def exec_module(module):
            real_exec(module)
            _wrap_dbm(module)

        loader.exec_module = exec_module
        return spec


def _install_dbm():
    for name in _DBM_FILES:
        if name in sys.modules:
            _wrap_dbm(sys.modules[name])
    if not any(isinstance(f, _DbmFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _DbmFinder())


def install_python_backend():
    """The events Python lacks, made (os.mkfifo, os.mknod, dbm's files), and os.open's dir_fd
    and the metadata calls' follow_symlinks=False said."""
    global _pypolicy
    from . import pypolicy
    _pypolicy = pypolicy
    _wrap_no_event("mkfifo", 2)
    _wrap_no_event("mknod", 3)
    _install_dbm()
    _wrap_open()
    for name in ("utime", "chmod", "chown", "setxattr", "removexattr", "link"):
        _wrap_nofollow(name)
    _wrap_nofollow("lchown", always=True)


_ANY_WATCHED = _WATCHED | _PY_WATCHED
