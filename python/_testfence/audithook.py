"""The audit hook: which test tried a write the kernel blocks in this process, and the
metadata calls (chmod, utime, xattr, ioctl) the hook refuses itself.
"""

import errno
import os
import sys

from .native import (
    AT_FDCWD, TF_IOCTL_HARMLESS, TF_IOCTL_REFUSED, TF_PATH_EMPTY, TF_PATH_NOFOLLOW,
    TF_PATH_OUTSIDE, TF_PATH_QUIET, TF_PATH_WRITABLE, _WRITE_FLAGS)
from .state import _state


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


# Every event _audit looks at; it is called for every audit event of the process (each id()
# and object.__getattr__ too: freezegun makes 100,000 a run), so it ends at once for the rest.
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
    code = _FIXTURE_CALL
    f = sys._getframe(1)
    while f is not None:
        if f.f_code is code:
            request = f.f_locals.get("request")
            return getattr(request, "fixturename", None)
        f = f.f_back
    return None


try:  # pytest 7 and 8 call every fixture function through this one
    from _pytest.fixtures import call_fixture_func as _call_fixture_func

    _FIXTURE_CALL = _call_fixture_func.__code__
except (ImportError, AttributeError):  # another pytest: writes are reported without the fixture
    _FIXTURE_CALL = None


def _record_refused(st, op, shown, resolved, err, by_us=True, fixture=None):
    """A refused write, with its test: recorded here unless the shim loaded in this process
    records it; either way the test's failure names the fixture being set up (FIXTURE, when
    the caller looked it up already)."""
    test, phase = _current()
    fixture = fixture or (_fixture_here() if test else None)
    if fixture and test:
        st.fixture_of[(test, resolved)] = fixture
    if st.record_in_process:
        st.session.record(op, shown, resolved, err, by_us, test, phase)


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


def _audit(event, args):
    if event not in _WATCHED:
        return
    st = _state
    if st.session is None:
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
