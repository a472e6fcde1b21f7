"""What this process's plugin knows about its run: one _State, shared by the modules; and its
exit handlers, kept through a test that runs the exit handlers early (_at_exit).
"""

import atexit
import sys


class _State:
    def __init__(self):
        self.mode = None  # "fenced", "joined", "outer-run", "off", "help"
        self.why = ""
        self.session = None
        self.record_in_process = False  # no shim of this run is loaded in this process
        self.seen = 0  # records of the log already attributed
        self.fixture_of = {}  # (test, resolved) -> fixture name, for in-process writes
        self.total = 0
        # The pytest run that owns this state (not a pytester inline run); None once unconfigured.
        self.config = None
        self.notes = []  # said at start-up, and again in the report header (stderr may be captured)
        self.c_writes_unreported = False  # said in notes: C code's refused writes go unrecorded
        self.reexeced = False  # this process is pytest started again with the shim preloaded
        self.shim = None  # the shim, loaded into this process by the plugin (not preloaded)
        self.early = False  # started from pytest_load_initial_conftests, before any conftest
        self.final = None  # the exit status pytest_sessionfinish settled on
        self.summarized = False  # the summary was shown and report.json written
        self.planted = 0  # what the tests left that would switch the next run's fence off
        self.planted_text = ""
        self.artifacts = None  # where old runs' workspaces are: never collected ("": none)
        self.items = frozenset()  # the node ids of this session's tests (a nested pytest's are not)
        self.xdist_worker = False  # a pytest-xdist worker: the log is shared with the others
        self.backend = None  # "kernel" or "python" (the audit hook refuses: pypolicy's verdict)
        self.policy = None  # the python backend's pypolicy.Policy, from the plan's lists
        self.hooked = False  # the audit hook is added (once: it cannot be removed)
        self.hook_in_python = False  # with sys.addaudithook, not behind the library's filter
        self.probed = False  # the hook saw add_hook's probe: it is called
        self.children_shim = False  # the python backend's children get the shim (Linux)
        self.exit_again = []  # exit handlers a test ran early, to register again (_at_exit)


_state = _State()

_bytecode_was = []  # the caller's setting while _bytecode_off has it off
_bytecode_turned = [False]


def _bytecode_off():
    """Until the fence is up, nothing this process imports writes bytecode: plugins pytest
    loads after this one (-p, entry points) import the project's modules before the fence
    (attrs under hypothesis' plugin, pyfakefs), and their __pycache__/ would be the one change
    outside tests/ a plugin run made. Under the fence such writes are refused quietly anyway.
    Called once the plugin's own modules are imported (hooks.py), so that where its
    installer wrote no bytecode (uv, pip --no-compile) the first start writes it beside them,
    as Python does for any module: else all of it was compiled again at every start. Once a
    process: _bytecode_back() puts the caller's setting back once _start has decided."""
    if _bytecode_turned[0]:
        return
    _bytecode_turned[0] = True
    _bytecode_was.append(sys.dont_write_bytecode)
    sys.dont_write_bytecode = True


def _bytecode_back():
    if _bytecode_was:
        sys.dont_write_bytecode = _bytecode_was.pop()


def _warn(msg):
    sys.stderr.write("testfence: " + msg + "\n")
    sys.stderr.flush()


def _at_exit(handler, *args):
    """Register HANDLER(*ARGS) to run at the interpreter's exit. A test can run the exit
    handlers early (atexit._run_exitfuncs(), as some conftests do after every test), and
    CPython then forgets them all. Run that way while this process's pytest run is live (from
    Python code: a caller's frame below this one, where the exit itself calls from C), the
    handler waits instead, and is registered again as soon as that call returns
    (_run_exitfuncs_then_ours), else at the run's end (pytest_unconfigure). With no run to do
    that, it runs when it is called, as before."""
    def at_exit():
        if _state.config is not None:
            try:
                sys._getframe(1)
            except ValueError:
                pass  # no Python frame below: the interpreter's exit
            else:
                _state.exit_again.append(at_exit)
                return None
        return handler(*args)

    atexit.register(at_exit)


def _exit_handlers_again():
    """Register again the exit handlers a test ran early, in the order they had: they were run
    last registered first, and each registered now runs after the ones registered later."""
    while _state.exit_again:
        atexit.register(_state.exit_again.pop())


_run_exitfuncs = atexit._run_exitfuncs


def _run_exitfuncs_then_ours():
    """atexit._run_exitfuncs, then the plugin's handlers it put aside registered again at once:
    before a handler registered after the call, which then runs before them at exit, as it
    would have without the early call; and even when no test phase or run's end follows (a
    UsageError at start-up). Code that took the function before the plugin loaded gets them
    registered again at the run's end."""
    try:
        return _run_exitfuncs()
    finally:
        _exit_handlers_again()


atexit._run_exitfuncs = _run_exitfuncs_then_ours
