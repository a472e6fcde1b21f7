"""The pytest hooks testfence.py hands pytest: options, start-up, collection, the header
and the summary.
"""

import os
import sys

import pytest

from .native import FenceError
from .report import _fail, _new_for
from .startup import _start
from .state import _bytecode_off, _exit_handlers_again, _state

# The plugin's modules are all imported: from here until the fence is up, no bytecode is
# written (state.py says why). Here, not in testfence.py, so that however pytest is given the
# hooks (-p testfence, PYTEST_PLUGINS, -p _testfence.hooks) it holds.
_bytecode_off()


def pytest_addoption(parser):
    group = parser.getgroup("testfence", "testfence: no test writes outside tests/")
    group.addoption("--testfence", choices=("on", "off"), default="on",
                    help="on (default): fence this pytest and its children with Landlock; "
                         "off: run UNFENCED (loud warning)")
    group.addoption("--testfence-backend", choices=("kernel", "python", "off"), default=None,
                    help="kernel: Landlock through libtestfence (the default where this machine "
                         "has it); python: audit hooks refuse this process's writes outside "
                         "(WEAKER: not C code, ctypes, nor child processes outside Linux; the "
                         "default elsewhere; docs/platforms.md); off: as --testfence=off")
    group.addoption("--testfence-allow", action="append", default=[], metavar="PATH",
                    help="also allow writes beneath PATH (must exist), like testfence run --allow")
    group.addoption("--testfence-output", action="append", default=[], metavar="PATH",
                    help="a file (or, ending in '/', a directory) outside tests/ this run may "
                         "write, like testfence run --output: a report")
    group.addoption("--testfence-keep-tmp", action="store_const", const="always",
                    default="on-failure", dest="testfence_keep_tmp",
                    help="keep the run's private temp dir (pytest's tmp_path) at the end; by "
                         "default it is kept only when the run failed (the newest 3 such)")
    group.addoption("--testfence-no-keep-tmp", action="store_const", const="never",
                    dest="testfence_keep_tmp",
                    help="remove the run's temp dir at the end, even when the run failed")
    group.addoption("--testfence-reexec", choices=("auto", "always", "off"), default="auto",
                    help="auto (default): load testfence's shim into this process (where it "
                         "cannot be, start pytest once more with it preloaded), so writes this "
                         "process's C code (sqlite3, coverage) makes outside are reported too; "
                         "always: start pytest once more with it preloaded; off: neither (such "
                         "writes are still refused)")


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_load_initial_conftests(early_config, parser, args):
    # Before any conftest.py or test module is imported, while pytest is single-threaded; and,
    # a wrapper, before every plain implementation of this hook, whatever the order the plugins
    # were loaded in (-p, entry point): pytest-cov starts coverage in its own, and the data
    # file is named from COVERAGE_FILE then, to be saved at the end. So the redirects of tool
    # state (docs/run.md's table) and the fence come first. The last of the wrappers: inside
    # pytest's capture, as before (what start-up says, the header says again).
    ns = early_config.known_args_namespace
    _state.early = True  # nothing of the project's has run: pytest may be started again
    _start(early_config, lambda name: getattr(ns, name, None))
    yield


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    # Registered too late for pytest_load_initial_conftests (a pytest-xdist worker loads
    # -p plugins after its conftests): start here.
    _start(config, lambda name: config.getoption(name, None))
    if config is _state.config:
        _keep_test_var(config)
    # A pytest-xdist worker parses the controller's command line again, without our -o:
    # the controller hands it the cache dir (pytest_configure_node), applied here before
    # the cache plugin reads it.
    cache = (getattr(config, "workerinput", None) or {}).get(_WORKER_CACHE)
    if _state.mode == "joined" and cache:
        config._override_ini = tuple(config._override_ini) + ("cache_dir=" + cache,)


_WORKER_CACHE = "testfence_cache_dir"


def _keep_test_var(config):
    """A pytest run in this process by a test (pytester's runpytest_inprocess and inline_run,
    pytest.main) deletes PYTEST_CURRENT_TEST when its last test ends, while the outer test
    still runs: what that test then writes would be filed "outside any test". pytest sets the
    variable in one function (_pytest.runner._update_current_test_var): wrapped, an inner
    session's "done" puts the outer test's value back. Nothing changes where the function is
    gone (another pytest): the variable is then as pytest leaves it."""
    import _pytest.runner as runner
    real = getattr(runner, "_update_current_test_var", None)
    if real is None or getattr(real, "_testfence_wrapped", False):
        return
    outer = [None]  # (item, when) of the outer test's phase, to set its value again

    def update(item, when):
        real(item, when)
        if getattr(item, "config", None) is config:
            outer[0] = (item, when) if when else None  # not read from os.environ: 4 times a test
        elif when is None and outer[0] is not None:
            real(*outer[0])

    update._testfence_wrapped = True
    runner._update_current_test_var = update


# The directory the library's fence probe (tf_fenced: a pytest-xdist worker, a pytest under
# `testfence run`) makes in the writable set for an instant: src/linux/fence.h.
_PROBE_PREFIX = ".testfence-probe-"


@pytest.hookimpl(tryfirst=True)
def pytest_ignore_collect(collection_path, config):
    """Nothing beneath the artifacts dir is collected, and no conftest.py there is loaded: old
    runs' workspaces hold whatever their tests wrote, and a conftest.py a test planted there
    would run in every later pytest (set_blocked('testfence') turns this plugin's reporting
    off). The dir is the one this run's workspace is in, as testfence set it before any test
    ran (the first collection is before the first test)."""
    if collection_path.name.startswith(_PROBE_PREFIX):
        return True  # another process's fence probe, there for an instant (not a test's)
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
    why = _state.why
    if _state.mode == "fenced" and _state.backend == "kernel":
        # The seccomp metadata guard of `testfence run` needs a supervisor outside the fence:
        # said once, on the session's one line (a second line at every session was noise).
        why += ("; chmod/chown/utime/xattr outside are refused by the plugin (Python) and the "
                "shim (C, children), with no seccomp guard in-process (docs/plugin.md)")
    return ["testfence: " + n for n in _state.notes] + ["testfence: " + why]


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
    if status == _INTERNAL_ERROR and _state.total:
        # pytest broke, after a write was refused: most likely by it (coverage's data file,
        # a plugin's state saved at the end), so the run ends as a blocked write does.
        status = 120
    if status != int(session.exitstatus):
        session.exitstatus = status  # as testfence run: the tests passed but writes were blocked
    _state.final = int(session.exitstatus)
    if not _summary_comes(session.config, exitstatus):
        _summarize(session.config.pluginmanager.getplugin("terminalreporter"), _state.final)


_INTERNAL_ERROR = 3  # pytest.ExitCode.INTERNAL_ERROR

# The statuses after which pytest's terminal reporter calls pytest_terminal_summary.
_SUMMARY_STATUSES = (0, 1, 2, 4, 5)


def _summary_comes(config, exitstatus):
    """Will pytest_terminal_summary be called after this session (not after an INTERNALERROR,
    nor with --no-summary or -p no:terminal)?"""
    tr = config.pluginmanager.getplugin("terminalreporter")
    return tr is not None and not tr.no_summary and int(exitstatus) in _SUMMARY_STATUSES


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
    _summarize(terminalreporter, int(exitstatus))


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """The run is over: let go of its config. The audit hook lives as long as the interpreter
    (the library's filter, or CPython's list of hooks, holds it), and so does everything its
    module reaches: through _state.config, pytest's whole session, which then outlived the
    modules CPython clears at exit, and the interpreter's last collections went over all of it
    again (3-4 ms of markupsafe's exit, more with more tests: docs/performance.md, thirteenth
    session). Not in an exit handler: a test can run those early (atexit._run_exitfuncs), and
    every hook after would take the run for another pytest's."""
    if config is _state.config:
        _state.config = None
        _exit_handlers_again()  # run early through atexit._run_exitfuncs taken before we loaded


# libtestfence's closing note for a run its shim fenced (TF_BACKEND_SHIM), said of the python
# backend as it is: this process was fenced by the audit hook, its children by the shim.
_SHIM_NOTE = "testfence: WARNING: --backend preload: the shim blocked these writes itself;"
_PY_NOTE = ("testfence: WARNING: python backend: the audit hook refused this process's writes, "
            "the shim its\n           children's; C code in this process, ctypes, static "
            "binaries and raw syscalls\n           were NOT fenced (docs/platforms.md).\n")
# Where the plan has no shim (Windows, macOS): only child Pythons are fenced, by the guard.
_PY_NOTE_NO_SHIM = ("testfence: WARNING: python backend: the audit hook refused this process's "
                    "writes and child\n           Pythons'; C code in this process, ctypes and "
                    "every other child process\n           were NOT fenced (docs/platforms.md).\n")


def _py_note(text):
    if _state.backend != "python" or _SHIM_NOTE not in text:
        return text
    head, _, rest = text.partition(_SHIM_NOTE)
    lines = rest.split("\n")
    while len(lines) > 1 and lines[1].startswith("           "):
        del lines[1]  # the note's continuation lines
    tail = "\n".join(lines[1:])
    if head.strip() == "testfence: no blocked writes were recorded" and (
            not tail.strip() or tail.startswith("testfence: report: ")):
        return ""  # a clean run is quiet, as under the kernel backend (the header said it)
    return head + (_PY_NOTE if _state.children_shim else _PY_NOTE_NO_SHIM) + tail


def _summarize(tr, status):
    """The run's summary (its blocked writes, what it planted) through the terminal reporter
    TR (None: on stderr), and report.json written with STATUS: once, at the end."""
    if _state.summarized:
        return
    _state.summarized = True

    def line(text, **markup):
        if tr is not None:
            tr.write_line(text, **markup)
        else:
            sys.stderr.write(text + "\n")

    def sep(title):
        if tr is not None:
            tr.write_sep("=", title, red=True)
        else:
            sys.stderr.write("=== %s ===\n" % title)

    for out in _state.session.outputs():
        line("testfence: declared output (writable outside the fence): " + out)
    if _state.planted:
        sep("testfence: the next run's fence")
        for planted in _state.planted_text.strip("\n").splitlines():
            line(planted, red=True)
    text = _py_note(_state.session.summary(status))
    _state.total = len(_state.session.violations())  # shown here: only later ones are late
    if text.strip():
        sep("testfence: blocked writes")
        for blocked in text.strip("\n").splitlines():
            line(blocked)
    if tr is None:
        sys.stderr.flush()
