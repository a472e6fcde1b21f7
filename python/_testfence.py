"""testfence for plain `pytest`: the test process fences itself (Landlock, through
libtestfence.so with ctypes), so no test can write outside the project's tests/.

Enable it in pyproject.toml with ``addopts = "-p testfence"`` under
``[tool.pytest.ini_options]``, or install it (``make install``) and pytest loads it
through its ``pytest11`` entry point. ``--testfence=off`` runs unfenced, loudly.
See docs/plugin.md. Standard library only. (Loaded through testfence.py, which only hands
pytest the hooks defined here.)
"""

import atexit
import ctypes
import errno
import os
import stat
import sys
import tempfile

import pytest

# Set by a fenced pytest for its children: its workspace. A pytest-xdist worker (or a
# pytest a test starts) finds it equal to TESTFENCE_WORKSPACE and joins that run.
ENV_PLUGIN = "TESTFENCE_PLUGIN"
# For tests and unusual installs: the path of libtestfence.so. It never selects config.
ENV_LIBRARY = "TESTFENCE_LIBRARY"
SHIM_NAME = "libtestfence_preload.so"
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
TF_PATH_OUTSIDE, TF_PATH_WRITABLE, TF_PATH_QUIET = 0, 1, 2
TF_IOCTL_HARMLESS, TF_IOCTL_REFUSED, TF_IOCTL_JUDGED = 0, 1, 2


def _library_candidates():
    here = os.path.dirname(os.path.abspath(__file__))
    # The wheel ships the library (and the shim it preloads) in a directory beside us.
    beside = os.path.join(here, "testfence_native", "libtestfence.so.0")
    if os.path.exists(beside):
        return [beside]
    given = os.environ.get(ENV_LIBRARY)
    if given:
        return [given]
    # make install: PREFIX/lib/python3*/dist-packages/testfence.py, PREFIX/lib/libtestfence.so.0;
    # the Debian package (multiarch libdir) and others: the dynamic loader's path.
    return [os.path.join(here, "..", "..", "libtestfence.so.0"), "libtestfence.so.0"]


def _load_library():
    errors = []
    for cand in _library_candidates():
        try:
            lib = ctypes.CDLL(cand)
            break
        except OSError as e:
            errors.append(str(e))
    else:
        raise FenceError("cannot load libtestfence.so (" + "; ".join(errors) + ")")
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
        "tf_env_count": (c_sz, [c_p]),
        "tf_env_name": (c_s, [c_p, c_sz]),
        "tf_env_value": (c_s, [c_p, c_sz]),
        "tf_path_check": (c_i, [c_p, c_s, c_i, c_s, c_sz]),
        "tf_path_check_at": (c_i, [c_p, c_i, c_s, c_i, c_s, c_sz]),
        "tf_fenced": (c_i, [c_p]),
        "tf_record": (c_i, [c_p, c_s, c_s, c_s, c_i, c_i, c_s, c_s]),
        "tf_test_split": (c_s, [c_s, ctypes.POINTER(c_sz)]),
        "tf_ioctl_class": (c_i, [ctypes.c_ulong]),
        "tf_violations_load": (c_l, [c_p]),
        "tf_violation_str": (c_s, [c_p, c_sz, c_s]),
        "tf_violation_line": (c_s, [c_p, c_sz]),
        "tf_summary": (c_p, [c_p, c_i]),
        "tf_status": (c_i, [c_p, c_i]),
        "tf_end_tmp": (c_i, [c_p, c_i]),
        "tf_planted": (c_p, [c_p, ctypes.POINTER(c_i)]),
        "tf_free": (None, [c_p]),
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

    def record(self, op, path, resolved, err, by_us, test, phase):
        self.lib.tf_record(self.h, op.encode(), _b(path), _b(resolved), err, int(by_us), _b(test), _b(phase))

    def violations(self, start=0):
        """The records of the log from the START-th on, as dicts with their
        TEST_SANDBOX_VIOLATION line."""
        n = self.lib.tf_violations_load(self.h)
        out = []
        for i in range(start, max(n, 0)):
            rec = {k: _s(self.lib.tf_violation_str(self.h, i, k.encode()))
                   for k in ("test", "phase", "op", "resolved")}
            rec["line"] = _s(self.lib.tf_violation_line(self.h, i))
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


class _State:
    def __init__(self):
        self.mode = None  # "fenced", "joined", "outer-run", "off", "help"
        self.why = ""
        self.session = None
        self.record_in_process = False  # no shim of this run is loaded in this process
        self.seen = 0  # records of the log already attributed
        self.fixture_of = {}  # (test, resolved) -> fixture name, for in-process writes
        self.total = 0
        self.config = None  # the pytest run that owns this state (not a pytester inline run)
        self.notes = []  # said at start-up, and again in the report header (stderr may be captured)
        self.c_writes_unreported = False  # said in notes: C code's refused writes go unrecorded
        self.reexeced = False  # this process is pytest started again with the shim preloaded
        self.shim = None  # the shim, loaded into this process by the plugin (not preloaded)
        self.early = False  # started from pytest_load_initial_conftests, before any conftest
        self.final = None  # the exit status pytest_sessionfinish settled on
        self.planted = 0  # what the tests left that would switch the next run's fence off
        self.planted_text = ""
        self.artifacts = None  # where old runs' workspaces are: never collected ("": none)


_state = _State()


def pytest_addoption(parser):
    group = parser.getgroup("testfence", "testfence: no test writes outside tests/")
    group.addoption("--testfence", choices=("on", "off"), default="on",
                    help="on (default): fence this pytest and its children with Landlock; "
                         "off: run UNFENCED (loud warning)")
    group.addoption("--testfence-allow", action="append", default=[], metavar="PATH",
                    help="also allow writes beneath PATH (must exist), like testfence run --allow")
    group.addoption("--testfence-output", action="append", default=[], metavar="PATH",
                    help="a file (or, ending in '/', a directory) outside tests/ this run may "
                         "write, like testfence run --output: a report")
    group.addoption("--testfence-keep-tmp", action="store_true", default=False,
                    help="keep the run's private temp dir (pytest's tmp_path) at the end")
    group.addoption("--testfence-reexec", choices=("auto", "always", "off"), default="auto",
                    help="auto (default): load testfence's shim into this process (where it "
                         "cannot be, start pytest once more with it preloaded), so writes this "
                         "process's C code (sqlite3, coverage) makes outside are reported too; "
                         "always: start pytest once more with it preloaded; off: neither (such "
                         "writes are still refused)")


def _warn(msg):
    sys.stderr.write("testfence: " + msg + "\n")
    sys.stderr.flush()


def _shim_mapped():
    try:
        with open("/proc/self/maps", "rb") as f:
            return SHIM_NAME.encode() in f.read()
    except OSError:
        return False


def _apply_env(session, config):
    for name, value in session.env():
        if name == "PYTEST_ADDOPTS":
            continue  # this pytest is configured directly; children need no --basetemp of ours
        os.environ[name] = value
    os.environ[ENV_PLUGIN] = session.get("workspace")
    # Read once at start-up and cached by tempfile: reset here too.
    tempfile.tempdir = None
    cache = session.get("pytest_cache")
    if cache:
        # Last -o wins; set before the cache plugin reads it in pytest_configure.
        config._override_ini = tuple(config._override_ini) + ("cache_dir=" + cache,)


# pytest's own options that name a file or directory it writes (option dest -> flag).
_OUTPUT_OPTIONS = (("xmlpath", "--junitxml"), ("htmlpath", "--html"), ("report_log", "--report-log"),
                   ("resultlog", "--resultlog"), ("json_report_file", "--json-report-file"))
# pytest-cov's report types and where each goes by default ("--cov-report=xml").
_COV_DEFAULTS = {"xml": "coverage.xml", "html": "htmlcov/", "json": "coverage.json",
                 "lcov": "coverage.lcov"}


def _pytest_outputs(opt):
    """[(flag, path)] of the files pytest and its plugins were asked to write."""
    out = []
    for dest, flag in _OUTPUT_OPTIONS:
        v = opt(dest)
        if isinstance(v, str) and v:
            out.append((flag, v))
    reports = opt("cov_report") if opt("cov_source") else None
    for kind, dest in (reports or {}).items() if isinstance(reports, dict) else ():
        path = dest or _COV_DEFAULTS.get(kind)
        if path:
            out.append(("--cov-report=" + kind, path))
    return out


def _check_outputs(s, opt):
    """Stop at start-up, saying what to declare, when pytest would write a report outside
    the writable set: the kernel would refuse it at the very end of the run."""
    root = s.get("root")
    bad = []
    for flag, path in _pytest_outputs(opt):
        verdict, resolved = s.path_check_at(AT_FDCWD, os.fsencode(path.rstrip("/") or path), 0)
        if verdict == 0 and resolved:
            rel = os.path.relpath(resolved, root) if resolved.startswith(root + "/") else resolved
            bad.append((flag, path, resolved, rel + ("/" if path.endswith("/") else "")))
    if not bad:
        return
    lines = ["pytest is asked to write outside the writable set; declare each as an output:"]
    for flag, path, resolved, rel in bad:
        lines.append("  %s %s -> %s" % (flag, path, resolved))
    lines.append('in the config: outputs = [%s] (testfence.toml, or [tool.testfence] in '
                 'pyproject.toml), or on the command line: %s'
                 % (", ".join('"%s"' % r for _, _, _, r in bad),
                    " ".join("--testfence-output " + p for _, p, _, _ in bad)))
    raise FenceError("\n".join(lines))


def _is_pytest_command():
    """Is this process the pytest command itself (`pytest ...`, `python -m pytest ...`) with
    its command line as given? Not pytest.main() inside another program, nor an IDE's runner:
    starting those again would run the program's own code twice."""
    argv0, orig = sys.argv[0], getattr(sys, "orig_argv", None)
    if not orig or len(orig) < len(sys.argv) or orig[len(orig) - len(sys.argv) + 1:] != sys.argv[1:]:
        return False
    return (os.path.basename(argv0) in ("pytest", "py.test", "pytest-3")
            or argv0.endswith(os.path.join("pytest", "__main__.py")))


def _reexec_with_shim(config, opt, s):
    """Get the shim into this process: only it sees the kernel refuse a write that C code
    makes here (sqlite3.connect, coverage's data file); the audit hook sees Python's own calls
    only. With --testfence-reexec=auto it is loaded now and patched in by _attach_shim. Where
    it cannot be (or with =always), start this pytest again, from the beginning, with the
    shim preloaded (an LD_PRELOAD cannot be added to a running process): once, before any
    conftest or test ran. Returns only when it does not start again: without the shim such
    writes are refused all the same, and the header says they are not reported."""
    if os.environ.pop(ENV_REEXEC, None) == "1":
        _state.reexeced = True  # this is the new process
        return
    if _shim_mapped():
        return  # preloaded already (a pytest started by a fenced one, say): attached below
    shim = s.get("shim")
    why = None
    if opt("testfence_reexec") == "off":
        why = "--testfence-reexec=off"
    elif shim and opt("testfence_reexec") == "auto" and _load_shim(shim):
        return  # loaded here: attached below, no second start
    elif not shim:
        why = "no shim beside libtestfence.so"
    elif not _is_pytest_command():
        why = "pytest was not started as `pytest` or `python -m pytest`"
    elif not _state.early:
        why = "the plugin was loaded after the conftests (pytest_plugins)"
    if why:
        _state.notes.append("writes refused in this process that C code makes (sqlite3, coverage's "
                            "data file) are not reported (%s); children's are" % why)
        _state.c_writes_unreported = True
        return
    capman = config.pluginmanager.getplugin("capturemanager")
    if capman is not None:
        capman.suspend_global_capture(in_=True)  # the new process gets the real fds 0, 1, 2
    sys.stdout.flush()
    sys.stderr.flush()
    env = dict(os.environ)
    env.pop("TESTFENCE_SHIM_CONF", None)  # the new process attaches to its own run's
    env[ENV_REEXEC] = "1"
    env["LD_PRELOAD"] = shim + (" " + env["LD_PRELOAD"] if env.get("LD_PRELOAD") else "")
    try:
        os.execve(sys.executable, [sys.executable] + sys.orig_argv[1:], env)
    except OSError as e:
        if capman is not None:
            capman.resume_global_capture()
        _state.notes.append("writes refused in this process that C code makes are not reported "
                            "(cannot start pytest again with the shim: %s)" % e)
        _state.c_writes_unreported = True


def _load_shim(path):
    """Load the shim into this process, where it can be attached without starting pytest
    again (x86_64 and aarch64: it points the loaded code's calls at itself). True when it is."""
    try:
        shim = ctypes.CDLL(path)
        if shim.testfence_shim_patchable() != 1:
            return False
        shim.testfence_shim_patch.argtypes = [ctypes.c_char_p]
        shim.testfence_shim_patch.restype = ctypes.c_int
        shim.testfence_shim_rescan.argtypes, shim.testfence_shim_rescan.restype = [], None
    except (OSError, AttributeError):
        return False
    _state.shim = shim
    return True


def _attach_shim(conf):
    """With this run's shim loaded here (started again with it, or loaded by _load_shim), let
    it look at this process too: it records each write the kernel refuses, whatever code made
    it. True when it does."""
    if conf and _state.shim is not None:
        if _state.shim.testfence_shim_patch(os.fsencode(conf)) == 0:
            return True  # what is loaded later, the shim patches itself (and _rescan)
        _state.notes.append("the shim cannot be attached to this process: writes refused here "
                            "that C code makes are not reported")
        _state.c_writes_unreported = True
        return False
    if not conf or not _shim_mapped():
        return False
    try:
        attach = ctypes.CDLL(None).testfence_shim_attach
    except AttributeError:
        return False
    attach.argtypes, attach.restype = [ctypes.c_char_p], ctypes.c_int
    if attach(os.fsencode(conf)) == 0:
        return True
    _state.notes.append("the shim loaded in this process cannot read %s: writes refused here "
                        "that C code makes are not reported" % conf)
    _state.c_writes_unreported = True
    return False


def _inside(s, path):
    """Might the module file PATH lie inside the writable set? Asked of the nearest part of it
    that exists (a module in a zip archive is where the archive is; one whose file went since
    it was imported, where its directory is). What cannot be told counts as inside: the
    tripwire fails closed."""
    if not os.path.isabs(path):
        return False  # no file name at all (a frozen or built-in module's)
    while not os.path.lexists(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    verdict, _ = s.path_check_at(AT_FDCWD, os.fsencode(path), 0)
    return verdict in (1, None)


def _module_inside(s, path, dirs):
    """Is the module file PATH inside the writable set? A plain file is where its directory
    is (asked once per directory, in DIRS: a few dozen for the few hundred modules pytest has
    imported; a declared output file counts as its directory); a link, or what cannot be
    looked at plainly, is asked itself."""
    try:
        plain = stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        plain = False  # gone, or not a file (in a zip): asked by its nearest part
    if not plain:
        return _inside(s, path)
    d = os.path.dirname(os.path.abspath(path))
    if d not in dirs:
        verdict, _ = s.path_check_at(AT_FDCWD, os.fsencode(d), 0)
        dirs[d] = verdict in (1, None)
    return dirs[d]


def _imported_from_writable(s):
    """Modules this process imported before the fence from inside the writable set, where a
    test of an earlier run could have planted them: (stdlib-named ones, the others)."""
    stdlib = getattr(sys, "stdlib_module_names", frozenset())
    named, other, dirs = [], [], {}
    for name, mod in list(sys.modules.items()):
        f = getattr(mod, "__file__", None)
        if isinstance(f, str) and name not in ("testfence", __name__) and _module_inside(s, f, dirs):
            (named if name.partition(".")[0] in stdlib else other).append((name, f))
    return named, other


def _refuse_planted_imports(s):
    """Something a Python imported from the writable set before the fence ran unfenced: a
    module of the standard library's name there (`cd tests && python -m pytest` puts tests/
    first on the path) is refused, any other is said."""
    named, other = _imported_from_writable(s)
    if named:
        raise FenceError(
            "%s was imported from %s, inside the writable set, before the fence: a test can "
            "plant such a module there (a Python started in that directory imports it instead "
            "of the standard library's), and it ran unfenced. Remove it, and start pytest from "
            "the project root" % (named[0][0], named[0][1]))
    for name, f in other:
        _state.notes.append("%s was imported from %s, inside the writable set, before the fence "
                            "(a test can rewrite it); load it after testfence" % (name, f))


def _start_fenced(config, opt, s=None):
    lib = _load_library()
    if s is None:
        s = Session(lib)
        s.load(opt("testfence_allow") or [], opt("testfence_output") or [])
    _reexec_with_shim(config, opt, s)
    _refuse_planted_imports(s)
    _check_outputs(s, opt)
    s.check()
    s.prepare()
    for line in (s.get("warning") or "").splitlines():
        _state.notes.append(line[len("testfence: "):] if line.startswith("testfence: ") else line)
        _warn(_state.notes[-1])
    _apply_env(s, config)
    shim_here = _attach_shim(os.environ.get("TESTFENCE_SHIM_CONF"))
    if _state.reexeced and not shim_here and not _state.c_writes_unreported:
        _state.notes.append("pytest was started again with the shim preloaded, but it did not "
                            "load: writes refused in this process that C code makes are not "
                            "reported")
        _warn(_state.notes[-1])
    s.fence()
    atexit.register(_late_records)  # first registered, so the last to run
    tmp = s.get("tmp")
    if tmp:
        atexit.register(_end_tmp, s, tmp, bool(opt("testfence_keep_tmp")))
    _state.session = s
    _state.mode = "fenced"
    _state.record_in_process = not shim_here  # else the shim records, as for children
    _state.why = "fenced (Landlock ABI %d): writes only beneath %s, the run's temp dir and the system set; workspace %s" % (
        lib.tf_landlock_abi(s.h), s.get("fence_dir"), s.get("workspace"))
    outputs = s.outputs()
    if outputs:
        _state.why += "; declared outputs: " + " ".join(outputs)


def _says_off(args):
    """Do these pytest arguments turn the plugin off?"""
    args = list(args)
    return any(a == "--testfence=off" or (a == "--testfence" and args[i + 1:i + 2] == ["off"])
               or a in ("-pno:testfence", "no:testfence") for i, a in enumerate(args))


def _sets_options(args):
    """Do these pytest arguments give the plugin options (--testfence-allow, -output, ...)?"""
    return any(str(a).startswith("--testfence-") for a in args)


def _from_writable_ini(config, opt, test):
    """The configuration file whose addopts TEST holds for, when it lies inside the writable
    set (where a test can write it), else None."""
    inipath = getattr(config, "inipath", None)
    try:
        if not inipath or not test(config.getini("addopts")):
            return None
        s = Session(_load_library())
    except (FenceError, ValueError):
        return None
    try:
        s.load(opt("testfence_allow") or [])
        inside, _ = s.path_check_at(AT_FDCWD, os.fsencode(str(inipath)), 0)
    except FenceError:
        return None  # no writable set to speak of: the file cannot be inside it
    finally:
        s.close()
    return str(inipath) if inside else None


def _refuse_writable_ini(config, opt, test, what):
    """Stop pytest when its configuration file, inside the writable set, does what TEST finds."""
    src = _from_writable_ini(config, opt, test)
    if src:
        raise pytest.UsageError("testfence: %s %s" % (src, what))


def _already_fenced(ws, opt):
    """TESTFENCE_WORKSPACE says `testfence run` (or a fenced pytest) started us. Believe it
    only when the kernel confirms: then join or stand aside, and return (True, None). Else
    return (False, the loaded session), for this process to fence itself."""
    lib = _load_library()
    s = Session(lib)
    s.load(opt("testfence_allow") or [], opt("testfence_output") or [])
    verdict = s.fenced()
    if verdict == 1:
        s.close()
        if os.environ.get(ENV_PLUGIN) == ws:
            j = Session(lib)
            j.attach(ws)
            _state.session, _state.mode = j, "joined"
            _state.record_in_process = not _shim_mapped()
            _state.why = "joined the fenced run %s (the fence is inherited)" % ws
        else:
            _state.mode = "outer-run"
            _state.why = ("already fenced by `testfence run` (workspace %s; the kernel refuses "
                          "writes outside tests/: checked); the plugin does nothing" % ws)
            _warn(_state.why)
        return True, None
    if verdict == 0 and lib.tf_landlock_abi(s.h) == 0 and _shim_mapped():
        s.close()
        _state.mode = "outer-run"
        _state.why = ("under `testfence run --backend preload` (workspace %s): only its LD_PRELOAD "
                      "shim fences, WEAKER; this kernel has no Landlock for the plugin" % ws)
        _warn("WARNING: " + _state.why)
        return True, None
    why = "a write outside the writable set was not refused" if verdict == 0 else _s(
        lib.tf_error(s.h))
    _state.notes.append("TESTFENCE_WORKSPACE is set (%s), but this process is not fenced (%s): "
                        "the plugin fences it" % (ws, why))
    _warn(_state.notes[-1])
    return False, s


def _start(config, opt):
    """Decide what this process does; fence it when it is the first pytest of a run."""
    if _state.mode is not None:
        return
    _state.config = config
    if opt("help") or opt("version"):
        _state.mode = "help"
        return
    _refuse_writable_ini(config, opt, _sets_options,
                         "gives the plugin options (--testfence-...) from inside the writable set, "
                         "where a test can write them to widen the next run's fence: refused. Move "
                         "them to the configuration at the project root, or pass them on the "
                         "command line")
    if opt("testfence") == "off":
        _refuse_writable_ini(config, opt, _says_off,
                             "turns the plugin off (--testfence=off), from inside the writable "
                             "set, where a test can write it: refused. Remove it from that file; "
                             "pass --testfence=off on the command line to run unfenced")
        _state.mode = "off"
        _state.why = ("WARNING: --testfence=off: NOTHING IS FENCED; tests can write anywhere "
                      "you can")
        _warn(_state.why)
        return
    ws = os.environ.get("TESTFENCE_WORKSPACE")
    try:
        done, s = _already_fenced(ws, opt) if ws else (False, None)
        if not done:
            _start_fenced(config, opt, s)
    except FenceError as e:
        # An installed plugin meets pytest runs outside any project (a script in $HOME, a
        # package's tests under /usr): there is nothing to fence them for.
        if e.kind == TF_ERROR_NO_ROOT:
            _state.mode = "no-root"
            _state.why = "no project root here, so nothing is fenced (%s)" % e
            _warn(_state.why)
            return
        raise pytest.UsageError("testfence: %s\n(pass --testfence=off to run unfenced)" % e)
    if _state.session is None:
        return  # under an outer run: it reports
    config.pluginmanager.register(_PerTest(_state.session, _state.shim), "testfence-per-test")
    if _state.mode == "fenced":
        sys.addaudithook(_audit)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    # Before any conftest.py or test module is imported, while pytest is single-threaded.
    ns = early_config.known_args_namespace
    _state.early = True  # nothing of the project's has run: pytest may be started again
    _start(early_config, lambda name: getattr(ns, name, None))


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    # Registered too late for pytest_load_initial_conftests (a pytest-xdist worker loads
    # -p plugins after its conftests): start here.
    _start(config, lambda name: config.getoption(name, None))
    # A pytest-xdist worker parses the controller's command line again, without our -o:
    # the controller hands it the cache dir (pytest_configure_node), applied here before
    # the cache plugin reads it.
    cache = (getattr(config, "workerinput", None) or {}).get(_WORKER_CACHE)
    if _state.mode == "joined" and cache:
        config._override_ini = tuple(config._override_ini) + ("cache_dir=" + cache,)


_WORKER_CACHE = "testfence_cache_dir"


@pytest.hookimpl(tryfirst=True)
def pytest_ignore_collect(collection_path, config):
    """Nothing beneath the artifacts dir is collected, and no conftest.py there is loaded: old
    runs' workspaces hold whatever their tests wrote, and a conftest.py a test planted there
    would run in every later pytest (set_blocked('testfence') turns this plugin's reporting
    off). The dir is the one this run's workspace is in, as testfence set it before any test
    ran (the first collection is before the first test)."""
    if _state.artifacts is None:  # this run's workspace: the session's, else testfence run's
        ws = _state.session.get("workspace") if _state.session else None
        ws = ws or (os.environ.get("TESTFENCE_WORKSPACE") if _state.mode else None)
        _state.artifacts = os.path.dirname(os.path.realpath(ws)) if ws else ""
    a, p = _state.artifacts, str(collection_path)
    if a and os.path.islink(p):  # a link into the artifacts dir is judged where it leads
        p = os.path.realpath(p)
    return True if a and (p == a or p.startswith(a + os.sep)) else None


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """pytest-xdist: the worker NODE gets this run's cache dir, as the controller has it."""
    if _state.mode == "fenced" and _state.session.get("pytest_cache"):
        node.workerinput[_WORKER_CACHE] = _state.session.get("pytest_cache")


def pytest_report_header(config):
    if not _state.why or config is not _state.config:
        return None
    lines = ["testfence: " + n for n in _state.notes] + ["testfence: " + _state.why]
    if _state.mode == "fenced":
        # The seccomp metadata guard of `testfence run` needs a supervisor outside the fence.
        lines.append("testfence: no seccomp metadata guard in-process: chmod/chown/utime/xattr "
                     "outside the writable set are refused by this plugin (Python calls) and the "
                     "shim (dynamic children) only; see docs/plugin.md")
    return lines


# ---- in-process attribution: the kernel blocks; this hook says which test tried ----

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


def _lookup(target):
    """(exists, is_dir) of TARGET (dirfd, path, flags) without following a last symlink;
    None when unknown."""
    dirfd, path, _ = target
    try:
        st = os.stat(path or ".", dir_fd=None if dirfd == AT_FDCWD else dirfd,
                     follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return False, False
    except (OSError, ValueError, TypeError):
        return None
    return True, stat.S_ISDIR(st.st_mode)


def _fails_first(op, flags, resolved, source):
    """Would the kernel refuse this write before the fence is asked (EEXIST, ENOENT, EISDIR)?
    Then nothing would have been written, and there is nothing to report. RESOLVED is the
    target as the library resolved it; when in doubt, the answer is no. Never asked for
    metadata calls, which the hook refuses itself."""
    found = _lookup((AT_FDCWD, os.fsencode(resolved), 0))
    if found is None:
        return False
    exists, is_dir = found
    parent = os.path.isdir(os.path.dirname(resolved) or "/")
    if op == "rename" and source is not None and _lookup(source) == (False, False):
        return True  # the old name is missing: ENOENT
    if op in ("mkdir", "symlink", "link"):
        return exists or not parent
    if op == "rename":
        return not parent
    if op == "open":
        if exists:
            return is_dir or bool(flags & os.O_CREAT and flags & os.O_EXCL)
        return not (flags & os.O_CREAT) or not parent
    return not exists  # unlink, rmdir, truncate act on what exists


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
        if not meta and (verdict == TF_PATH_QUIET or _fails_first(op, oflags, resolved, source)):
            continue  # harmless tool state, or refused before the fence: nothing to report
        shown = os.fsdecode(path) if path else ""
        _record_refused(st, op, shown, resolved, errno.EACCES, meta, fixture)
        if meta and st.record_in_process:  # else the shim loaded here refuses it itself
            _refuse(op, shown or None)


def _new_for(nodeid):
    """The TEST_SANDBOX_VIOLATION lines of records new since the last look, for NODEID."""
    st = _state
    new = st.session.violations(st.seen)
    st.seen += len(new)
    lines = []
    for r in new:
        if r["test"] != nodeid:
            continue
        line = r["line"]
        fixture = st.fixture_of.get((nodeid, r["resolved"]))
        if fixture:
            line += " (in fixture %s)" % fixture
        lines.append(line)
    return lines


def _fail(rep, lines):
    text = "\n".join(lines)
    if rep.failed:
        rep.sections.append(("testfence: blocked writes", text))
        return
    rep.outcome = "failed"
    rep.longrepr = text
    if hasattr(rep, "wasxfail"):
        del rep.wasxfail  # a blocked write is not the expected failure


class _PerTest:
    """The hooks run for every test, registered only with the pytest run this process fences
    or joined (not with a pytester run inside it, nor when the plugin stands aside): each
    costs every test of the suite, so there are as few as can do the work, doing as little
    (bench/plugin_pertest.py counts it)."""

    def __init__(self, session, shim):
        self.rescan = shim.testfence_shim_rescan if shim is not None else None
        self.count = session.lib.tf_violations_load  # a stat when the log is as it was
        self.h = session.h

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_finish(self, session):
        if self.rescan:
            self.rescan()  # what collection loaded, before the first test runs

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        # After each phase, before the next: what the phase loaded that the shim's own
        # dlopen did not see (a library's own loader) is patched before the next one runs.
        if self.rescan:
            self.rescan()
        outcome = yield
        if self.count(self.h) != _state.seen:  # new records (or an error: _new_for says it)
            lines = _new_for(item.nodeid)
            if lines:
                _fail(outcome.get_result(), lines)


def _names_collection(collector):
    """Is COLLECTOR named in the test variable while it collects? In the run this process
    fences or joined, and under `testfence run`, whose shim records what the import does."""
    if not collector.nodeid or collector.config is not _state.config:
        return False
    return _state.session is not None or _state.mode == "outer-run"


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    if not _names_collection(collector):
        yield
        return
    # pytest sets the variable only for a test's phases. While a module is imported it names
    # the collector, with the phase "collect" that the one parser (core/testvar: the shim's,
    # run's, tf_test_split) splits off: a write there, in this process or in a child that
    # inherits the variable, is filed under the module's id, phase collect, not under a test.
    prev = os.environ.get("PYTEST_CURRENT_TEST")
    os.environ["PYTEST_CURRENT_TEST"] = collector.nodeid + " (collect)"
    try:
        outcome = yield
    finally:
        if prev is None:
            os.environ.pop("PYTEST_CURRENT_TEST", None)
        else:
            os.environ["PYTEST_CURRENT_TEST"] = prev
    if _state.session is None:
        return  # under testfence run: its summary says it, and it exits 120
    lines = _new_for(collector.nodeid)
    if lines:
        _fail(outcome.get_result(), lines)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    # The run that fenced itself owns the log: every worker's records are in it.
    if _state.mode != "fenced" or session.config is not _state.config:
        return
    _state.total = len(_state.session.violations())
    # What the tests left for the next run (a module shadowing testfence, a config turning the
    # plugin off) fails this one, as under testfence run: a plain `pytest` would import it.
    _state.planted, _state.planted_text = _state.session.planted()
    try:
        status = _state.session.status(int(session.exitstatus))
    except FenceError:
        status = 120 if int(session.exitstatus) == 0 else int(session.exitstatus)  # fail closed
    if status != int(session.exitstatus):
        session.exitstatus = status  # as testfence run: the tests passed but writes were blocked
    _state.final = int(session.exitstatus)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if config is not _state.config:
        return
    if _state.mode == "off":
        terminalreporter.write_sep("=", "testfence: OFF", red=True, bold=True)
        terminalreporter.write_line("testfence: " + _state.why, red=True)
        return
    if _state.mode == "no-root":
        # Said at start-up too, but pytest captures that; here it is seen.
        terminalreporter.write_line("testfence: " + _state.why, yellow=True)
        return
    if _state.mode != "fenced":
        return
    for out in _state.session.outputs():
        terminalreporter.write_line("testfence: declared output (writable outside the fence): " + out)
    if _state.planted:
        terminalreporter.write_sep("=", "testfence: the next run's fence", red=True)
        for line in _state.planted_text.strip("\n").splitlines():
            terminalreporter.write_line(line, red=True)
    text = _state.session.summary(int(exitstatus))
    _state.total = len(_state.session.violations())  # shown here: only later ones are late
    if text.strip():
        terminalreporter.write_sep("=", "testfence: blocked writes", red=True)
        for line in text.strip("\n").splitlines():
            terminalreporter.write_line(line)


def _late_records():
    """At exit, after the handlers registered since the plugin started (a test's): writes
    refused since the summary (a test's atexit handler, a thread that ended late) are in the
    log but in no report. Said, and report.json written again with them, its status 120 when
    the tests had passed. The process's own exit status is settled by now: changing it
    (os._exit) would skip the exit handlers still due, coverage's data file and logging's
    flush among them."""
    st = _state
    if st.mode != "fenced" or st.session is None or st.final is None:
        return
    late = len(st.session.violations()) - st.total
    if late <= 0:
        return
    st.total += late
    sys.stdout.flush()
    sys.stderr.write("testfence: %d more write%s outside the writable set %s blocked after the "
                     "tests ended (at exit; the exit status stays %d, report.json says 120); "
                     "the summary, again:\n" % (
                         late, "" if late == 1 else "s", "was" if late == 1 else "were",
                         st.final))
    sys.stderr.write(st.session.summary(st.session.status(st.final)))
    sys.stderr.flush()


def _end_tmp(s, tmp, keep):
    """At exit, the run's private temp dir (pytest's tmp_path lives there) is emptied by the
    library, as `testfence run` removes it (or with KEEP marked kept). Registered before
    pytest's own exit handlers for its numbered dirs, so it runs after them. This process is
    fenced: the directory itself stays, for the next run to prune, empty and unlocked."""
    try:
        s.end_tmp(keep)
    except FenceError as e:
        _warn("the run's temp dir %s was not emptied: %s" % (tmp, e))
        return
    if keep:
        _warn("kept the run's temp dir " + tmp)
