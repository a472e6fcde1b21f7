"""The start-up decision: fence this pytest, join the run it belongs to, or stand aside;
load the shim into the process (or start pytest again with it); what is left at exit.
"""

import os
import sys
import tempfile

import pytest

from .audithook import add_hook, install_python_backend
from .native import (
    AT_FDCWD, ENV_BACKEND, ENV_PLUGIN, ENV_REEXEC, FenceError, SHIM_NAME, Session, Shim,
    TF_BACKEND_SHIM,
    TF_ERROR_NO_ROOT,
    TF_ERROR_NOT_SET_UP, TF_TMP_KEEP, TF_TMP_KEEP_FAILED, TF_TMP_REMOVE,
    _load_library)
from .report import _PerTest
from .state import _at_exit, _bytecode_back, _state, _warn
from . import where


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
        # pytest-json-report's file has a default (.report.json): written only with --json-report.
        if dest == "json_report_file" and (not opt("json_report") or v == "none"):
            continue
        if isinstance(v, str) and v:
            out.append((flag, v))
    reports = opt("cov_report") if opt("cov_source") else None
    for kind, dest in (reports or {}).items() if isinstance(reports, dict) else ():
        path = dest or _COV_DEFAULTS.get(kind)
        if path:
            out.append(("--cov-report=" + kind, path))
    return out


def _check_made(s, path):
    """(verdict, resolved) for a report PATH that pytest makes with its directories: where
    those do not exist yet (reports/junit.xml), the nearest that does is asked, as `testfence
    run` asks it (a missing directory alone would pass: the kernel fails that call anyway)."""
    verdict, resolved = s.path_check_at(AT_FDCWD, os.fsencode(path), 0)
    parent = os.path.dirname(os.path.abspath(path))
    declared = any(resolved == o or resolved.startswith(o.rstrip("/") + "/") for o in s.outputs())
    if verdict != 1 or declared or os.path.isdir(parent):
        return verdict, resolved  # a declared output's directories are made before the tests
    while not os.path.lexists(parent) and os.path.dirname(parent) != parent:
        parent = os.path.dirname(parent)
    pv, _ = s.path_check_at(AT_FDCWD, os.fsencode(parent), 0)
    return (verdict, resolved) if pv == 1 else (0, resolved)


def _check_outputs(s, opt):
    """Stop at start-up, saying what to declare, when pytest would write a report outside
    the writable set: the kernel would refuse it at the very end of the run."""
    root = s.get("root")
    bad = []
    for flag, path in _pytest_outputs(opt):
        verdict, resolved = _check_made(s, path.rstrip("/") or path)
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
    shim = Shim.open(_load_library(), os.fsencode(path))
    if shim is None or shim.patchable() != 1:
        return False
    _state.shim = shim
    return True


def _attach_shim(conf):
    """With this run's shim loaded here (started again with it, or loaded by _load_shim), let
    it look at this process too: it records each write the kernel refuses, whatever code made
    it. True when it does."""
    if conf and _state.shim is not None:
        if _state.shim.patch(os.fsencode(conf)) == 0:
            return True  # what is loaded later, the shim patches itself (and rescan)
        _state.notes.append("the shim cannot be attached to this process: writes refused here "
                            "that C code makes are not reported")
        _state.c_writes_unreported = True
        return False
    if not conf or not _shim_mapped():
        return False
    shim = Shim.open(_load_library(), None)
    rc = None if shim is None else shim.attach(os.fsencode(conf))
    if rc is None:
        return False
    if rc == 0:
        return True
    _state.notes.append("the shim loaded in this process cannot read %s: writes refused here "
                        "that C code makes are not reported" % conf)
    _state.c_writes_unreported = True
    return False


def _shim_handle():
    """The shim loaded in this process, to call it (None: not loaded): the one the plugin loaded,
    else a preloaded one, in the global scope."""
    if _state.shim is not None:
        return _state.shim
    if not _shim_mapped():
        return None
    return Shim.open(_load_library(), None)


def _point_at_lines(root, shim):
    """Records say where in the project under ROOT a write came from: the shim loaded here
    (SHIM, or None) asks this process's frames when it records, and the processes the tests
    start are told the line that started them. Nothing is looked at for an allowed write."""
    where.set_root(root)
    where.tell_children()
    if shim is not None:
        where.register(shim)


def _imported_from_writable(s):
    """Modules this process imported before the fence from inside the writable set, where a
    test of an earlier run could have planted them: (stdlib-named ones, the others). The
    library judges all files in one call (a few hundred lstat's and a few dozen directories
    resolved); what cannot be told counts as inside: the tripwire fails closed."""
    stdlib = getattr(sys, "stdlib_module_names", frozenset())
    mods = []
    for name, mod in list(sys.modules.items()):
        f = getattr(mod, "__file__", None)
        ours = name in ("testfence", "_testfence") or name.startswith("_testfence.")
        if isinstance(f, str) and not ours:
            mods.append((name, f))
    asked = iter(s.files_inside([f for _, f in mods if "\0" not in f]))
    named, other = [], []
    for name, f in mods:
        if "\0" in f or next(asked):  # a NUL in a file name cannot be asked: inside
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


# tf_check's words when the kernel cannot fence (no Landlock, or an ABI that misses a class).
_NO_KERNEL = "cannot enforce the fence"


def _load_library_for(backend):
    try:
        return _load_library()
    except FenceError as e:
        if backend == "kernel":
            raise
        # The plan (root, config, writable set, workspace, env) comes from libtestfence
        # (libtestfence.dll on Windows, libtestfence.dylib on macOS: docs/platforms.md).
        # Without it, fail closed, saying so.
        which = "the python backend" if backend == "python" else "either backend"
        raise FenceError("%s; %s needs it for the run's plan (docs/platforms.md)" % (e, which))


def _fenced(s, opt, backend):
    """This process is fenced by BACKEND from now on: the end of the run is set up (records
    made at exit, the run's temp dir kept or removed) and the session is this process's."""
    _at_exit(_late_records)  # before the tests' handlers, so it runs after them
    tmp = s.get("tmp")
    if tmp:
        _at_exit(_end_tmp, s, tmp, opt("testfence_keep_tmp") or "on-failure")
    _state.session = s
    _state.mode = "fenced"
    _state.backend = backend


def _start_fenced(config, opt, s=None):
    backend = opt("testfence_backend") or "auto"
    lib = _load_library_for(backend)
    if backend == "python":
        if s is not None:
            s.close()
        return _start_python(config, opt, lib, None)
    if s is None:
        s = Session(lib)
        s.load(opt("testfence_allow") or [], opt("testfence_output") or [])
    checked = False
    if backend == "auto":
        # Kernel where the library can fence; else, said in the header, the python backend.
        try:
            s.check()
            checked = True
        except FenceError as e:
            if not str(e).startswith(_NO_KERNEL):
                raise
            s.close()
            return _start_python(config, opt, lib, str(e))
    _reexec_with_shim(config, opt, s)
    _refuse_planted_imports(s)
    _check_outputs(s, opt)
    if not checked:
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
    _fenced(s, opt, "kernel")
    _state.record_in_process = not shim_here  # else the shim records, as for children
    where.top_of_run()
    _point_at_lines(s.get("root"), _shim_handle() if shim_here else None)
    _state.why = "fenced (Landlock ABI %d): writes only beneath %s, the run's temp dir and the system set; workspace %s" % (
        s.landlock_abi(), s.get("fence_dir"), s.get("workspace"))
    outputs = s.outputs()
    if outputs:
        _state.why += "; declared outputs: " + " ".join(outputs)


# The python backend's one header line: weaker, what it covers, what it does not.
_PY_COVERS = ("this process's writes through Python (open, os.*, shutil, sqlite3.connect, unix "
              "sockets, os.mkfifo/mknod) outside the writable set are refused by an audit hook "
              "and fail their test; NOT covered: C extensions and ctypes, os.write on a file "
              "opened before, posix.open/mkfifo/mknod called directly")


def _py_children():
    # Whether the plan preloads the shim into children: on Linux, where it was found beside
    # libtestfence; never on Windows and macOS (their libraries have none).
    if _state.children_shim:
        return ("children: child Pythons run the same guard, the shim refuses dynamically "
                "linked ones' writes (static binaries and raw syscalls are not fenced)")
    return "children: child Pythons run the same guard; other child processes are NOT fenced"


def _start_python(config, opt, lib, kernel_why):
    """The python backend: the same plan, workspace, temp dir and environment as the kernel
    backend's (libtestfence), but no fence: the audit hook refuses (audithook._audit_python)
    with pypolicy's verdict over the plan's lists, and the shim refuses children's writes."""
    from .pyback import _python_policy, child_guard_env  # the python backend's only
    s = Session(lib)
    s.set_backend(TF_BACKEND_SHIM)
    s.load(opt("testfence_allow") or [], opt("testfence_output") or [])
    _refuse_planted_imports(s)
    _check_outputs(s, opt)
    s.check()
    s.prepare()
    for line in (s.get("warning") or "").splitlines():
        _state.notes.append(line[len("testfence: "):] if line.startswith("testfence: ") else line)
        _warn(_state.notes[-1])
    _apply_env(s, config)
    _state.children_shim = bool(s.get("shim"))
    os.environ[ENV_BACKEND] = "python"
    child_guard_env()  # child Pythons start the same guard (pyback.guard_child)
    _state.policy = _python_policy(s)
    install_python_backend()
    _fenced(s, opt, "python")
    _state.record_in_process = True  # the hook refuses before any C code could see it
    where.top_of_run()
    _point_at_lines(s.get("root"), None)
    chosen = ("--testfence-backend=python" if kernel_why is None
              else "the kernel cannot fence here: %s" % kernel_why.split(": ", 1)[-1])
    _state.why = ("python backend (%s), WEAKER than the kernel's: %s; %s (docs/platforms.md). "
                  "Writable: %s, the run's temp dir and the system set; workspace %s" % (
                      chosen, _PY_COVERS, _py_children(), s.get("fence_dir"), s.get("workspace")))
    outputs = s.outputs()
    if outputs:
        _state.why += "; declared outputs: " + " ".join(outputs)


def _says_off(args):
    """Do these pytest arguments turn the plugin off?"""
    args = list(args)
    return any(a in ("--testfence=off", "--testfence-backend=off")
               or (a in ("--testfence", "--testfence-backend") and args[i + 1:i + 2] == ["off"])
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
    root = s.get("root")
    if verdict == 1:
        s.close()
        if os.environ.get(ENV_PLUGIN) == ws:
            j = Session(lib)
            j.attach(ws)
            _state.session, _state.mode = j, "joined"
            _state.record_in_process = not _shim_mapped()
            _state.why = "joined the fenced run %s (the fence is inherited)" % ws
            _point_at_lines(j.get("root"), _shim_handle())
        else:
            # testfence run's shim records this process's refusals: it asks the frames here
            # (the plugin joins the run for that only), and children are told their line.
            _point_at_lines(root, _shim_handle())
            _state.mode = "outer-run"
            _state.why = ("already fenced by `testfence run` (workspace %s; the kernel refuses "
                          "writes outside tests/: checked); the plugin does nothing" % ws)
            _warn(_state.why)
        return True, None
    if (os.environ.get(ENV_PLUGIN) == ws and os.environ.get(ENV_BACKEND) == "python"
            and (opt("testfence_backend") or "auto") != "kernel"):
        s.close()
        from .pyback import _join_python  # the python backend's only
        _join_python(lib, ws)
        return True, None
    if verdict == 0 and s.landlock_abi() == 0 and _shim_mapped():
        s.close()
        _point_at_lines(root, _shim_handle())
        _state.mode = "outer-run"
        _state.why = ("under `testfence run --backend preload` (workspace %s): only its LD_PRELOAD "
                      "shim fences, WEAKER; this kernel has no Landlock for the plugin" % ws)
        _warn("WARNING: " + _state.why)
        return True, None
    why = "a write outside the writable set was not refused" if verdict == 0 else s.error()
    _state.notes.append("TESTFENCE_WORKSPACE is set (%s), but this process is not fenced (%s): "
                        "the plugin fences it" % (ws, why))
    _warn(_state.notes[-1])
    return False, s


def _asked_for(opt):
    """Was the plugin named (-p testfence, PYTEST_PLUGINS), not only found installed?"""
    named = list(opt("plugins") or []) + os.environ.get("PYTEST_PLUGINS", "").split(",")
    return "testfence" in (n.strip() for n in named)


def _start(config, opt):
    """Decide what this process does; fence it when it is the first pytest of a run."""
    try:
        _decide(config, opt)
    finally:
        _bytecode_back()  # fenced by now, or standing aside: Python's own setting again


def _decide(config, opt):
    if _state.mode is not None and _state.mode != "child-guard":
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
    if opt("testfence") == "off" or opt("testfence_backend") == "off":
        _refuse_writable_ini(config, opt, _says_off,
                             "turns the plugin off (--testfence=off), from inside the writable "
                             "set, where a test can write it: refused. Remove it from that file; "
                             "pass --testfence=off on the command line to run unfenced")
        _state.mode = "off"
        _state.why = ("WARNING: --testfence%s=off: NOTHING IS FENCED; tests can write anywhere "
                      "you can" % ("" if opt("testfence") == "off" else "-backend"))
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
        # Installed (an entry point), so loaded in every project of this Python: one never set
        # up for testfence (no configuration, no tests/) is left alone. Asked for by name, it
        # fails closed like any other error.
        if e.kind == TF_ERROR_NOT_SET_UP and not _asked_for(opt):
            _state.mode = "not-enabled"
            _state.why = ("installed, not enabled here: this project has no tests/ directory and "
                          "no testfence configuration, so nothing is fenced (set it up with "
                          "'testfence init', or pass -p testfence)")
            return
        weaker = (" (or --testfence-backend=python: weaker, docs/platforms.md)"
                  if str(e).startswith(_NO_KERNEL) else "")
        raise pytest.UsageError("testfence: %s\n(pass --testfence=off to run unfenced%s)"
                                % (e, weaker))
    if _state.session is None:
        return  # under an outer run: it reports
    config.pluginmanager.register(_PerTest(_state.session, _state.shim), "testfence-per-test")
    if _state.mode == "fenced" or _state.backend == "python":
        try:
            add_hook()
        except FenceError as e:
            raise pytest.UsageError("testfence: %s\n(pass --testfence=off to run unfenced)" % e)


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
    from .hooks import _py_note
    sys.stderr.write(_py_note(st.session.summary(st.session.status(st.final))))
    sys.stderr.flush()


def _end_tmp(s, tmp, when):
    """At exit, the run's private temp dir (pytest's tmp_path lives there) is emptied by the
    library, as `testfence run` removes it, or kept as WHEN says ("always", "never",
    "on-failure": when the run failed, or never got to say how it ended). Registered before
    pytest's own exit handlers for its numbered dirs, so it runs after them. This process is
    fenced: the directory itself stays, for the next run to prune, empty and unlocked."""
    failed = _state.final is None or _state.final != 0
    keep = (TF_TMP_KEEP if when == "always" else
            TF_TMP_KEEP_FAILED if when == "on-failure" and failed else TF_TMP_REMOVE)
    try:
        s.end_tmp(keep)
    except FenceError as e:
        _warn("the run's temp dir %s was not emptied: %s" % (tmp, e))
        return
    if keep == TF_TMP_KEEP:  # kept because the run failed: quiet, as pytest's tmp_path is
        _warn("kept the run's temp dir " + tmp)
