"""The python backend's path verdicts (python/_testfence/pypolicy.py) under each OS's rules,
all on Linux: Windows' through ntpath and a case-insensitive comparison, macOS' /private and
case; POSIX's on a real tree with symlinks. Run: PYTEST_DISABLE_PLUGIN_AUTOLOAD=1
PYTHONPATH=python /usr/bin/python3 -m pytest tests/lib/test_pypolicy.py (ctest lib/pypolicy).
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))

from _testfence import pypolicy  # noqa: E402
from _testfence.pypolicy import OUTSIDE, QUIET, WRITABLE, Policy, Rules  # noqa: E402


# ---- Windows -------------------------------------------------------------------------------

@pytest.fixture
def win():
    return Policy([("C:\\Users\\dev\\proj\\tests", True),
                   ("C:\\Users\\dev\\AppData\\Local\\Temp\\testfence-dev\\run1", True),
                   ("C:\\Users\\dev\\proj\\report.xml", False),
                   ("\\\\.\\NUL", False)],
                  quiet=[("C:\\Users\\dev\\proj\\.git\\index.lock", False)],
                  rules=pypolicy.WINDOWS)


CWD = "C:\\Users\\dev\\proj"


@pytest.mark.parametrize("path", [
    "tests\\out.txt",
    "tests/out.txt",
    "C:/Users/dev/proj/tests/sub/x",
    "c:\\users\\DEV\\Proj\\TESTS\\x",           # case
    "C:\\Users\\dev\\proj\\tests",               # the directory itself
    "\\\\?\\C:\\Users\\dev\\proj\\tests\\x",    # verbatim prefix
    "\\\\.\\C:\\Users\\dev\\proj\\tests\\x",    # device-path prefix
    "\\Users\\dev\\proj\\tests\\x",             # rooted on the current drive
    "C:tests\\x",                                # drive-relative, current drive
    "tests.\\x",                                 # trailing dot dropped by Win32
    "tests \\x",                                 # trailing space too
    "nul", "NUL", "C:\\anywhere\\nul", "tests\\..\\NUL ",  # the device in every directory
    "report.xml", "REPORT.XML",                  # a declared output (a file)
    "C:\\Users\\dev\\AppData\\Local\\Temp\\testfence-dev\\run1\\pytest-0\\t",
])
def test_windows_inside(win, path):
    assert win.check(path, CWD)[0] == WRITABLE, win.check(path, CWD)


@pytest.mark.parametrize("path", [
    "config.toml",
    "C:\\Users\\dev\\proj\\config.toml",
    "tests\\..\\config.toml",
    "tests/../config.toml",
    "C:\\Users\\dev\\proj\\tests2\\x",              # a prefix of the name is not the directory
    "C:\\Users\\dev\\proj\\testsx",
    "D:\\Users\\dev\\proj\\tests\\x",              # another drive
    "D:tests\\x",                                  # drive-relative on another drive: its root
    "\\\\server\\share\\Users\\dev\\proj\\tests\\x",  # UNC is not C:
    "\\\\?\\UNC\\server\\share\\x",
    "\\\\?\\C:\\Users\\dev\\proj\\tests.\\x",      # verbatim: 'tests.' is another name
    "report.xml.bak", "report.xml\\x",              # a file entry allows itself only
    "nul.txt",                                     # a file since Windows 11: not the device
    "\\\\.\\PhysicalDrive0",                       # a device outside the system set
    "C:\\Users\\dev\\AppData\\Local\\Temp\\x",     # %TEMP% itself is not the run's
    "C:\\PROGRA~1\\x",                             # a short name: never matches an entry
])
def test_windows_outside(win, path):
    assert win.check(path, CWD)[0] == OUTSIDE, win.check(path, CWD)


def test_windows_quiet_and_names(win):
    assert win.check(".git\\INDEX.LOCK", CWD) == (QUIET, "C:\\Users\\dev\\proj\\.git\\INDEX.LOCK")
    assert win.check("\\\\?\\UNC\\srv\\sh\\a\\..\\b", CWD)[1] == "\\\\srv\\sh\\b"
    assert win.check("c:/x//y/./z", CWD)[1] == "C:\\x\\y\\z"
    assert win.check(b"tests\\x", CWD)[0] == WRITABLE  # bytes paths too
    assert win.check("slop\\__PYCACHE__\\m.cpython-311.pyc", CWD)[0] == QUIET  # bytecode


def test_windows_case_folds_per_unit_only():
    # 'ß' is not 'SS' to Windows: full case folding would let 'teßts' match 'tesssts'.
    p = Policy([("C:\\p\\teßt", True)], rules=pypolicy.WINDOWS)
    assert p.check("C:\\p\\TEßT\\x", "C:\\")[0] == WRITABLE
    assert p.check("C:\\p\\TESST\\x", "C:\\")[0] == OUTSIDE


def test_windows_unc_entry():
    p = Policy([("\\\\srv\\share\\proj\\tests", True)], rules=pypolicy.WINDOWS)
    assert p.check("\\\\SRV\\Share\\proj\\tests\\x", "C:\\")[0] == WRITABLE
    assert p.check("//srv/share/proj/tests/x", "C:\\")[0] == WRITABLE
    assert p.check("\\\\?\\UNC\\srv\\share\\proj\\tests\\x", "C:\\")[0] == WRITABLE
    assert p.check("\\\\srv\\share\\proj\\x", "C:\\")[0] == OUTSIDE


# ---- macOS ---------------------------------------------------------------------------------

@pytest.fixture
def mac():
    return Policy([("/Users/dev/proj/tests", True),
                   ("/private/var/folders/xy/T/testfence-501/run1", True),
                   ("/dev/null", False)],
                  rules=pypolicy.MACOS)


@pytest.mark.parametrize("path", [
    "tests/x", "/Users/dev/proj/Tests/x", "/users/DEV/proj/tests",
    "/var/folders/xy/T/testfence-501/run1/x",      # /var is /private/var
    "/private/var/folders/xy/T/testfence-501/run1/x",
    "/dev/null",
    "tests/cafe\u0301.txt",                         # any Unicode form of a name under tests/
])
def test_macos_inside(mac, path):
    assert mac.check(path, "/Users/dev/proj")[0] == WRITABLE


@pytest.mark.parametrize("path", [
    "config.toml", "tests/../config.toml", "/var/folders/xy/T/x", "/tmp/x", "/private/tmp/x",
    "/Users/dev/proj/tests2/x",
])
def test_macos_outside(mac, path):
    assert mac.check(path, "/Users/dev/proj")[0] == OUTSIDE


def test_macos_names():
    mac = Policy([], rules=pypolicy.MACOS)
    assert mac.check("/tmp/a", "/")[1] == "/private/tmp/a"
    assert mac.check("/etc/hosts", "/")[1] == "/private/etc/hosts"
    assert mac.check("/variable", "/")[1] == "/variable"  # only the directory /var


def test_macos_case_sensitive_volume():
    p = Policy([("/Volumes/cs/proj/tests", True)],
               rules=Rules(pypolicy.MACOS, case_insensitive=False))
    assert p.check("/Volumes/cs/proj/Tests/x", "/")[0] == OUTSIDE


def test_macos_nfc_and_nfd_are_one_name():
    p = Policy([("/Users/dev/caf\u00e9/tests", True)], rules=pypolicy.MACOS)
    assert p.check("/Users/dev/cafe\u0301/tests/x", "/")[0] == WRITABLE


# ---- POSIX, on this machine's disk ---------------------------------------------------------

@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "proj"
    (root / "tests" / "sub").mkdir(parents=True)
    (root / "config.toml").write_text("x")
    (root / "tests" / "up").symlink_to(root)                 # a link out of tests/
    (root / "tests" / "cfg").symlink_to(root / "config.toml")
    (root / "tests" / "self").symlink_to(root / "tests" / "sub")
    (root / "into").symlink_to(root / "tests")                # a link into tests/
    pol = Policy([(str(root / "tests"), True), ("/dev/null", False)],
                 quiet=[(str(root / ".git"), True)], rules=pypolicy.POSIX)
    return root, pol


def test_posix_links_resolved(tree):
    root, pol = tree
    cwd = str(root)
    assert pol.check("tests/x", cwd)[0] == WRITABLE
    assert pol.check("tests/up/config.toml", cwd) == (OUTSIDE, str(root / "config.toml"))
    assert pol.check("tests/cfg", cwd)[0] == OUTSIDE          # writing through the link
    assert pol.check("tests/cfg", cwd, nofollow=True)[0] == WRITABLE  # removing the link
    assert pol.check("into/x", cwd)[0] == WRITABLE
    assert pol.check("into", cwd, nofollow=True)[0] == OUTSIDE  # the link itself is outside
    assert pol.check("tests/self/x", cwd)[0] == WRITABLE
    assert pol.check("tests/../config.toml", cwd)[0] == OUTSIDE
    assert pol.check("tests/up/tests/x", cwd)[0] == WRITABLE
    assert pol.check(".git/index.lock", cwd)[0] == QUIET
    assert pol.check("slop/__pycache__/m.cpython-311.pyc.140", cwd)[0] == QUIET  # bytecode
    assert pol.check("slop/__pycache__x/m.pyc", cwd)[0] == OUTSIDE
    assert pol.check("/dev/null", cwd)[0] == WRITABLE
    assert pol.check("//dev/null", cwd)[0] == WRITABLE
    assert pol.check(str(root / "Tests" / "x"), cwd)[0] == OUTSIDE  # case counts


def test_posix_dotdot_after_a_link(tree):
    root, pol = tree
    # tests/up/.. is the parent of the root, not tests/: the kernel follows the link first.
    assert pol.check("tests/up/../x", str(root))[1] == str(root.parent / "x")


def test_fd_path_and_fails_first(tree):
    root, pol = tree
    fd = os.open(str(root / "tests"), os.O_RDONLY)
    try:
        assert pypolicy.fd_path(fd) == str(root / "tests")
    finally:
        os.close(fd)
    cfg = str(root / "config.toml")
    assert pypolicy.fails_first("mkdir", 0, str(root / "tests"))        # EEXIST
    assert pypolicy.fails_first("unlink", 0, str(root / "missing"))     # ENOENT
    assert pypolicy.fails_first("open", os.O_WRONLY, str(root / "missing"))
    assert pypolicy.fails_first("open", os.O_WRONLY | os.O_CREAT, str(root / "no" / "x"))
    assert pypolicy.fails_first("open", os.O_WRONLY, str(root / "tests"))  # EISDIR
    assert not pypolicy.fails_first("open", os.O_WRONLY, cfg)
    assert not pypolicy.fails_first("open", os.O_WRONLY | os.O_CREAT, str(root / "new"))
    assert pypolicy.fails_first("rename", 0, cfg, source=str(root / "missing"))
    assert not pypolicy.fails_first("unlink", 0, cfg)


def test_rules_by_name():
    assert Rules(pypolicy.host_os()).name == pypolicy.POSIX  # this suite runs on Linux
    with pytest.raises(ValueError):
        Rules("vms")
    assert pypolicy.probe_case_insensitive("/usr") is False


def test_posix_too_long_to_resolve_is_refused(tree):
    # realpath takes a name it cannot lstat (ENAMETOOLONG past PATH_MAX) for no link and goes
    # on lexically; the kernel reaches it relative to the cwd, through the link: refused.
    root, pol = tree
    fd = os.open(str(root / "tests"), os.O_RDONLY)
    for _ in range(21):  # made relative to a dir_fd: too long to name from /
        os.mkdir("d" * 200, dir_fd=fd)
        fd, old = os.open("d" * 200, os.O_RDONLY, dir_fd=fd), fd
        os.close(old)
    os.symlink(str(root / "config.toml"), "l", dir_fd=fd)
    os.close(fd)
    deep = os.path.join(str(root), "tests", *(["d" * 200] * 21))
    assert len(deep) > 4096
    assert pol.check(os.path.join(deep, "l"))[0] is None
    assert pol.check(os.path.join(deep, "l"), nofollow=True)[0] is None
    assert pol.check("tests/missing/x", str(root))[0] == WRITABLE  # ENOENT: still judged


def test_posix_pipe_reopened_is_no_file(tree):
    root, pol = tree
    r, w = os.pipe()
    try:
        for name in ("/proc/self/fd/%d" % w, "/dev/fd/%d" % w):
            verdict, resolved = pol.check(name)
            assert verdict == WRITABLE and ":[" in resolved
    finally:
        os.close(r)
        os.close(w)
    assert pol.check("/proc/1/fd/pipe:[1]/x")[0] == OUTSIDE
