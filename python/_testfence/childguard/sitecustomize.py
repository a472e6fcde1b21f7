"""testfence: the guard of a child Python started by a pytest under the python backend.

The fenced pytest puts this directory first on its children's PYTHONPATH; Python imports
sitecustomize at start-up, before the child's own code, so the child refuses its writes
outside the writable set as the pytest does (_testfence.pyback.guard_child). Then the
sitecustomize this one shadows (Debian's /etc/python3.X/sitecustomize.py, a project's) runs
as it would have. Not a .pth file: nothing is installed into any environment.
"""

import importlib
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))


def _guard():
    parent = os.path.dirname(os.path.dirname(_here))  # holds _testfence
    added = parent not in sys.path
    if added:
        sys.path.insert(0, parent)
    try:
        from _testfence.pyback import guard_child
        from _testfence.state import _bytecode_off
    except Exception as e:  # another Python (no ctypes, an older version): say so, go on
        sys.stderr.write("testfence: the guard of this child Python did not start: %s\n" % e)
        return
    finally:
        if added and parent in sys.path:
            sys.path.remove(parent)
    # No bytecode from this child: what it imports from the project, outside the writable set,
    # would only be refused (quietly, by the guard and the shim).
    _bytecode_off()
    guard_child()


def _chain():
    """Run the sitecustomize this one shadows, if any."""
    me = sys.modules.pop("sitecustomize", None)
    saved = sys.path[:]
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]
    try:
        importlib.import_module("sitecustomize")
    except ImportError:
        if me is not None:
            sys.modules["sitecustomize"] = me
    finally:
        sys.path[:] = saved


_guard()
_chain()
