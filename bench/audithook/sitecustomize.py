"""The original request's design, as a baseline: a Python audit hook that checks
every write-mode open() and os-level write event against the allowlist."""
import os
import sys

_ROOT = os.environ.get("AUDITHOOK_ROOT")
if _ROOT:
    _ALLOW = (os.path.join(_ROOT, "tests") + os.sep, "/dev/null", "/dev/shm/", "/dev/pts/", "/dev/tty")
    _WRITE_EVENTS = {
        "os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.symlink", "os.link",
        "os.chmod", "os.chown", "os.truncate", "os.utime", "shutil.rmtree",
        "shutil.copyfile", "shutil.move", "tempfile.mkstemp", "tempfile.mkdtemp",
    }

    def _check(path):
        if isinstance(path, int):
            return
        p = os.path.abspath(os.fsdecode(path))
        if not p.startswith(_ALLOW) and p + os.sep != _ALLOW[0]:
            raise PermissionError(f"TEST_SANDBOX_VIOLATION: write to {p} outside {_ALLOW[0]}")

    def _hook(event, args):
        if event == "open":
            path, mode, flags = args
            if path is None:
                return
            if (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC)
            ):
                _check(path)
        elif event in _WRITE_EVENTS and args:
            _check(args[0])
            if event in ("os.rename", "os.link", "shutil.move") and len(args) > 1:
                _check(args[1])

    sys.addaudithook(_hook)
