"""The python backend's verdict on a write: does a path lie inside the writable set? Pure
Python (standard library only), with each OS's path rules, chosen by parameter so that all
three are tested on Linux (tests/lib/test_pypolicy.py):

    posix    Linux: symlinks resolved (realpath), names compared exactly
    macos    as posix, and /var, /tmp, /etc are /private/...; names compared without case
             (and Unicode normalization) where the volume is case-insensitive (the default)
    windows  drive letters, `/` and `\\`, UNC (`\\\\server\\share`), `\\\\?\\` and `\\\\.\\`
             prefixes, trailing dots and spaces dropped (not after `\\\\?\\`), names compared
             without case, DOS device names (`NUL`); junctions, symlinks and 8.3 short names
             are expanded by the OS (os.path.realpath) where they exist

The lists are the plan's (libtestfence's tf_policy_entry: root, writable set, system set,
the run's temp dir, declared outputs, harmless tool state); nothing here plans anything.
The verdicts are libtestfence's TF_PATH_* values.
"""

import errno
import ntpath
import os
import posixpath
import re
import stat
import sys
import unicodedata

OUTSIDE, WRITABLE, QUIET = 0, 1, 2  # TF_PATH_OUTSIDE, _WRITABLE, _QUIET

POSIX, MACOS, WINDOWS = "posix", "macos", "windows"


def host_os():
    """The rules of the OS this Python runs on."""
    if sys.platform.startswith("win") or sys.platform == "cygwin":
        return WINDOWS
    return MACOS if sys.platform == "darwin" else POSIX


# macOS: these top-level names are symlinks into /private (realpath resolves them on a Mac;
# applied lexically too, so a path whose prefix does not exist yet is named the same way).
_MACOS_PRIVATE = ("/var", "/tmp", "/etc")

# Windows: a name that is a device in every directory (Win32's reserved names). Only the bare
# name: Windows 11 made `nul.txt` an ordinary file, so a name with an extension stays a file
# (at worst a false alarm on older Windows, never a write let through).
_DOS_DEVICES = frozenset(["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"] +
                         ["COM%d" % i for i in range(1, 10)] + ["LPT%d" % i for i in range(1, 10)])


def _upper_same_length(s):
    """Windows compares names by upcasing each UTF-16 unit, never by Unicode full case
    folding ('ß' stays 'ß'): folding more would make different names equal."""
    return "".join(u if len(u := c.upper()) == 1 else c for c in s)


class Rules:
    """One OS's path rules: how a path is made absolute and normal, how names compare, and
    (on the host only) how links are resolved."""

    def __init__(self, name, case_insensitive=None):
        if name not in (POSIX, MACOS, WINDOWS):
            raise ValueError("no such path rules: %r" % (name,))
        self.name = name
        self.mod = ntpath if name == WINDOWS else posixpath
        self.sep = "\\" if name == WINDOWS else "/"
        # Windows volumes and a Mac's default one are case-insensitive; Policy probes the host.
        self.case_insensitive = (name != POSIX) if case_insensitive is None else case_insensitive

    # -- names ---------------------------------------------------------------------------

    def key(self, path):
        """PATH (absolute, normal) as compared: without case where the volume is."""
        if not self.case_insensitive:
            return path
        if self.name == WINDOWS:
            return _upper_same_length(path)
        # APFS and HFS+ compare names normalization-insensitively, and without case.
        return unicodedata.normalize("NFD", path).casefold()

    # -- making a path absolute and normal, lexically -------------------------------------

    def absolute(self, path, cwd, lexical=True):
        """PATH (str or bytes, maybe relative to CWD) absolute and normal, without looking at
        the disk: what the OS would name before following links. Not LEXICAL: '..' is left
        for the resolver (POSIX follows a link before its '..'; Windows never does)."""
        p = os.fsdecode(path)
        if self.name == WINDOWS:
            return self._absolute_nt(p, cwd)
        if not p.startswith("/"):
            p = posixpath.join(os.fsdecode(cwd), p)
        # '//x' is '/x' on Linux and macOS (POSIX leaves it implementation-defined).
        if lexical:
            p = posixpath.normpath(p)
        if p.startswith("//"):
            p = "/" + p.lstrip("/")
        if self.name == MACOS:
            for top in _MACOS_PRIVATE:
                if p == top or p.startswith(top + "/"):
                    p = "/private" + p
                    break
        return p

    def _absolute_nt(self, p, cwd):
        p = p.replace("/", "\\")
        verbatim = False
        if p.startswith("\\\\?\\UNC\\"):  # \\?\UNC\server\share\x -> \\server\share\x
            p, verbatim = "\\\\" + p[8:], True
        elif p.startswith("\\\\?\\") or p.startswith("\\??\\"):  # \\?\C:\x -> C:\x, taken as it is
            p, verbatim = p[4:], True
        elif p.startswith("\\\\.\\"):  # a device path: \\.\C:\x is C:\x, normalized; \\.\NUL a device
            rest = p[4:]
            drive = ntpath.splitdrive(rest)[0]
            if len(drive) == 2 and drive[1] == ":":
                p = rest
            else:
                return "\\\\.\\" + rest.rstrip("\\").upper()
        if not verbatim:
            last = p.rstrip("\\").rsplit("\\", 1)[-1]
            # Win32 drops trailing dots and spaces of every name ('tests. ' is 'tests'), and
            # a bare device name in any directory is the device.
            stripped = last.rstrip(". ")
            if stripped and stripped.upper() in _DOS_DEVICES:
                return "\\\\.\\" + stripped.upper()
            parts = p.split("\\")
            p = "\\".join(c if c in (".", "..") else c.rstrip(". ") for c in parts)
        drive, rest = ntpath.splitdrive(p)
        cwd = os.fsdecode(cwd).replace("/", "\\")
        cdrive = ntpath.splitdrive(cwd)[0]
        if not drive:
            if rest.startswith("\\"):
                p = cdrive + rest  # rooted: the current drive's
            else:
                p = ntpath.join(cwd, rest)
        elif not rest.startswith("\\"):
            # Drive-relative (C:x): relative to that drive's current directory, which a
            # process keeps per drive; only the current drive's is known here, so another
            # drive's is taken to be its root.
            p = ntpath.join(cwd, rest) if cdrive.upper() == drive.upper() else drive + "\\" + rest
        p = ntpath.normpath(p)
        drive, rest = ntpath.splitdrive(p)
        if len(drive) == 2 and drive[1] == ":":
            p = drive.upper() + rest
        return p

    # -- links, on the host ---------------------------------------------------------------

    def resolve(self, path, nofollow):
        """PATH (absolute, normal) with its links resolved by the OS (this must be the host's
        rules); NOFOLLOW: the call acts on the last name itself (unlink, rename, mkdir)."""
        mod = self.mod
        if nofollow:
            head, tail = mod.split(path)
            if tail and tail not in (".", ".."):
                return mod.join(self._realpath(head), tail)
        return self._realpath(path)

    def _realpath(self, path):
        if self.name != WINDOWS:
            _resolvable(path)
        r = os.path.realpath(path)
        if self.name == WINDOWS:
            # realpath gives \\?\ back where it had to (long paths): named as written above.
            r = self.absolute(r, r)
        elif self.name == MACOS:
            r = self.absolute(r, "/")
        return r


def _resolvable(path):
    """Raise OSError unless os.path.realpath(PATH) can be trusted on POSIX: it takes a name
    it cannot lstat for no link and goes on lexically. The kernel fails the call too where a
    component is missing (ENOENT, ENOTDIR) or links loop (ELOOP); but a name too long for
    PATH_MAX as a whole (ENAMETOOLONG), or under a directory the process cannot search
    (EACCES), can still be reached relative to the cwd or a dir_fd, through a link realpath
    did not see: such a verdict cannot be told (refused)."""
    try:
        os.path.realpath(path, strict=True)
    except OSError as e:
        if e.errno not in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
            raise


# A name that is no file: reopening a pipe, socket or anonymous inode through /proc/PID/fd/N
# (/dev/stdout, /dev/fd/2 when they are pipes) changes nothing on disk, as libtestfence's
# resolver says (PATH_NO_FILE); realpath joins the link's text to its directory.
_NO_FILE = re.compile(r"/proc/[0-9]+(/task/[0-9]+)?/fd/(pipe|socket|anon_inode):[^/]*")


class Policy:
    """The writable set, and the one question: may PATH be written?

    ENTRIES: [(path, is_dir)] of the writable set, absolute and resolved (the plan's); QUIET:
    the same for harmless tool state (refused, not reported). RULES: a Rules or an OS name;
    RESOLVE: follow links on disk (the host's rules only; off in the tests of other OSes)."""

    def __init__(self, entries, quiet=(), rules=None, resolve=None):
        if rules is None or isinstance(rules, str):
            rules = Rules(rules or host_os())
        self.rules = rules
        self.resolving = (rules.name == host_os()) if resolve is None else resolve
        self.entries = [(rules.key(rules.absolute(p, "/")), d) for p, d in entries]
        self.quiet = [(rules.key(rules.absolute(p, "/")), d) for p, d in quiet]
        self._pycache = rules.key("__pycache__")

    def _in(self, key, entries):
        sep = self.rules.sep
        for e, is_dir in entries:
            if key == e or (is_dir and key.startswith(e if e.endswith(sep) else e + sep)):
                return True
        return False

    def verdict(self, resolved):
        """WRITABLE, QUIET or OUTSIDE for RESOLVED (absolute, normal, links resolved). Python's
        bytecode (a __pycache__ anywhere) is quiet, as libtestfence's policy_quiet has it:
        Python writes it where it can and goes on without it."""
        k = self.rules.key(resolved)
        if self._in(k, self.entries):
            return WRITABLE
        if self._in(k, self.quiet) or self._pycache in k.split(self.rules.sep):
            return QUIET
        return OUTSIDE

    def check(self, path, cwd=None, nofollow=False):
        """(verdict, resolved) for a write to PATH (relative to CWD, default the current
        directory); NOFOLLOW: the call acts on the last name itself. Verdict None: it cannot
        be told (a caller deciding a write refuses it)."""
        try:
            p = self.rules.absolute(path, cwd if cwd is not None else os.getcwd(),
                                    lexical=not self.resolving)
            if self.resolving:
                p = self.rules.resolve(p, nofollow)
        except (OSError, ValueError, TypeError):
            return None, os.fsdecode(path) if isinstance(path, (str, bytes)) else None
        if self.resolving and self.rules.name == POSIX and _NO_FILE.fullmatch(p):
            return WRITABLE, p  # a pipe or socket reopened: no file is written
        return self.verdict(p), p


def probe_case_insensitive(directory):
    """Does the volume holding DIRECTORY compare names without case? (macOS volumes may be
    either; NTFS directories too.) The same directory under its name with case swapped is the
    same file there. None when it cannot be told (no letter in the name)."""
    base = os.path.basename(os.path.normpath(directory))
    swapped = base.swapcase()
    if swapped == base:
        return None
    try:
        a = os.stat(directory)
        b = os.stat(os.path.join(os.path.dirname(os.path.normpath(directory)), swapped))
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def fd_path(fd):
    """The path the open file FD names, where the OS tells (None where it cannot): Linux's
    /proc/self/fd, macOS's F_GETPATH, Windows' GetFinalPathNameByHandleW."""
    try:
        if sys.platform.startswith("linux"):
            p = os.readlink("/proc/self/fd/%d" % fd)
            return p if p.startswith("/") and not p.endswith(" (deleted)") else None
        if sys.platform == "darwin":
            import fcntl
            buf = fcntl.fcntl(fd, getattr(fcntl, "F_GETPATH", 50), b"\0" * 1024)
            return os.fsdecode(buf.split(b"\0", 1)[0]) or None
        if sys.platform.startswith("win"):
            import ctypes
            import msvcrt
            handle = msvcrt.get_osfhandle(fd)
            buf = ctypes.create_unicode_buffer(32768)
            n = ctypes.windll.kernel32.GetFinalPathNameByHandleW(handle, buf, len(buf), 0)
            return buf.value if 0 < n < len(buf) else None
    except (OSError, ValueError, ImportError, AttributeError):
        return None
    return None


# -- would the OS refuse the call before any fence is asked? ---------------------------------
# libtestfence's core/failsfirst.c in Python: the kernel backend records only writes that
# would happen (os.makedirs(existing, exist_ok=True) gets EEXIST, not a violation); the python
# backend lets such a call through to fail by itself, and records nothing.

_CREATES = ("mkdir", "symlink", "link", "bind", "mkfifo", "mknod")
_REMOVES = ("unlink", "rmdir", "truncate")


def _look(path, follow=False):
    """'none', 'file', 'dir' or None (cannot tell) at PATH."""
    try:
        st = os.stat(path) if follow else os.lstat(path)
    except FileNotFoundError:
        return "none"
    except NotADirectoryError:
        return "none"
    except (OSError, ValueError):
        return None
    return "dir" if stat.S_ISDIR(st.st_mode) else "file"


def fails_first(op, oflags, resolved, source=None):
    """Would OP (open's flags OFLAGS) on RESOLVED fail by itself, before a fence is asked
    (EEXIST, ENOENT, EISDIR)? SOURCE: a rename's old name, resolved."""
    found = _look(resolved) if resolved else None
    if found is None or not op:
        return False
    exists = found != "none"
    parent = _look(os.path.dirname(resolved), follow=True) == "dir"
    if op == "rename" and source and _look(source) == "none":
        return True
    if op in _CREATES:
        return exists or not parent
    if op == "rename":
        return not parent
    if op == "open":
        tmpfile = getattr(os, "O_TMPFILE", 0)
        if tmpfile and oflags & tmpfile == tmpfile:
            return found != "dir"
        creat, excl = oflags & os.O_CREAT, oflags & os.O_EXCL
        if exists:
            return found == "dir" or bool(creat and excl)
        return not creat or not parent
    return op in _REMOVES and not exists
