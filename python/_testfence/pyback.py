"""The python backend's pieces that a child Python needs too, without pytest: the policy from
a session's lists, joining a run, and the guard child Pythons start (childguard/sitecustomize.py,
put on their PYTHONPATH by the fenced pytest).
"""

import os
import sys

from . import pypolicy
from .audithook import add_hook, install_python_backend
from .native import ENV_BACKEND, ENV_PLUGIN, Session, _load_library
from .state import _state
from . import where

# The directory whose sitecustomize.py starts the guard in a child Python.
GUARD_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "childguard")


def _python_policy(s):
    """pypolicy's Policy over the session's lists, with this OS's rules (case probed on the
    project's volume where the OS lets it vary)."""
    writable, quiet = s.policy_entries()
    rules = pypolicy.Rules(pypolicy.host_os())
    if rules.name != pypolicy.POSIX:
        probed = pypolicy.probe_case_insensitive(s.get("root"))
        if probed is not None:
            rules.case_insensitive = probed
    return pypolicy.Policy(writable, quiet, rules)


def _join_python(lib, ws):
    """A pytest-xdist worker (or a pytest a test started) of a run whose backend is python:
    join it, with the same in-process fence (the kernel has nothing to confirm)."""
    j = Session(lib)
    j.attach(ws)
    _state.session, _state.mode, _state.backend = j, "joined", "python"
    _state.policy = _python_policy(j)
    install_python_backend()
    _state.record_in_process = True
    where.set_root(j.get("root"))
    where.tell_children()
    _state.why = "joined the run %s (python backend: this process fences itself again)" % ws



def child_guard_env():
    """Child Pythons of this run start the guard: its directory first on PYTHONPATH (read
    before any of the child's own code; a child started with -I, -E or -S, or with the
    variable cleared, does not)."""
    parts = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != GUARD_DIR]
    os.environ["PYTHONPATH"] = os.pathsep.join([GUARD_DIR] + parts)


def guard_child():
    """In a child Python of a pytest under the python backend (started by a test): join the
    run and refuse its writes outside as the pytest does, recorded with the test that runs
    (PYTEST_CURRENT_TEST is inherited). A pytest started so goes on to join through the plugin
    as well (mode "child-guard" lets it). Nothing when this process is no such child."""
    ws = os.environ.get("TESTFENCE_WORKSPACE")
    if (os.environ.get(ENV_BACKEND) != "python" or not ws or os.environ.get(ENV_PLUGIN) != ws
            or _state.mode is not None):
        return
    try:
        lib = _load_library()
        _join_python(lib, ws)
        _state.mode = "child-guard"
        add_hook()
    except Exception as e:  # whatever stops the guard (not only a FenceError): fail closed
        _stop_unguarded(e)


def _stop_unguarded(why):
    """Under the python backend the guard is this child's fence (on Windows and macOS its
    only one): without it the child does not run (fail closed), status 4."""
    sys.stderr.write("testfence: the guard of this child Python did not start: %s; it stops "
                     "rather than run unfenced\n" % why)
    sys.stderr.flush()
    os._exit(4)
