"""The plugin's audit hook behind the library's filter (src/lib/pyaudit.c, audithook.add_filtered)
in a real CPython: the hook is called for the events the plugin watches and no other, what it
raises fails the audited call, it runs untraced, never in another interpreter, and until CPython
drops it at exit. Each case in a child Python of its own: a filter is set once a process. Run:
TESTFENCE_LIBRARY=build/libtestfence.so PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 /usr/bin/python3 -m
pytest tests/lib/test_pyaudit.py (ctest lib/pyaudit). PYAUDIT_PYTHON=/path/to/python3.13 runs the
cases in that CPython (3.11 or later; it needs no pytest): ctest uses /usr/bin/python3 only.
"""

import os
import subprocess
import sys
import textwrap

PYTHON_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "python")

# Loads the library as the plugin does and puts HOOK (defined by each case) behind the filter.
PRELUDE = """
import os, sys
sys.path.insert(0, %r)
from _testfence import audithook, native
calls = []
""" % os.path.abspath(PYTHON_DIR)
REGISTER = """
lib = native._load_library()
assert audithook.add_filtered(lib, hook, audithook._ANY_WATCHED), "the filter was not registered"
"""


def run(body, tmp_path):
    """Runs PRELUDE, the case's hook, REGISTER and the rest of BODY (split at "# register")
    in a child Python; its stdout, stderr and exit status."""
    before, after = textwrap.dedent(body).split("# register\n")
    script = PRELUDE + before + REGISTER + after
    python = os.environ.get("PYAUDIT_PYTHON") or sys.executable
    p = subprocess.run([python, "-c", script], cwd=str(tmp_path), capture_output=True,
                       text=True, timeout=60)
    return p.stdout, p.stderr, p.returncode


def test_watched_events_only(tmp_path):
    out, err, rc = run("""
        def hook(event, args):
            calls.append(event)
        # register
        id(1); getattr(os, "sep"); compile("1", "x", "eval")
        open("f", "w").close()
        os.remove("f")
        os.mkdir("d")
        print(" ".join(calls))
        """, tmp_path)
    assert rc == 0, err
    assert out.split() == ["open", "os.remove", "os.mkdir"]


def test_the_hook_gets_the_events_args(tmp_path):
    out, err, rc = run("""
        def hook(event, args):
            calls.append((event, args))
        # register
        os.mkdir("d", 0o700)
        print(repr(calls))
        """, tmp_path)
    assert rc == 0, err
    assert out.strip() == "[('os.mkdir', ('d', 448, -1))]"


def test_what_the_hook_raises_fails_the_call(tmp_path):
    out, err, rc = run("""
        def hook(event, args):
            if event == "os.mkdir":
                raise PermissionError(13, "refused by the hook", args[0])
        # register
        try:
            os.mkdir("d")
        except PermissionError as e:
            print("refused:", e.strerror, e.filename)
        print("made" if os.path.exists("d") else "not made")
        """, tmp_path)
    assert rc == 0, err
    assert out.split("\n")[:2] == ["refused: refused by the hook d", "not made"]
    assert not (tmp_path / "d").exists()


def test_the_hook_runs_untraced(tmp_path):
    # CPython runs the hooks of sys.addaudithook with tracing off; the filter does the same,
    # so a test's tracer (coverage, a debugger) never steps into the plugin.
    out, err, rc = run("""
        def hook(event, args):
            calls.append(event)
        # register
        traced = []
        def tracer(frame, what, arg):
            traced.append(frame.f_code.co_name)
            return tracer
        sys.settrace(tracer)
        os.mkdir("d")
        sys.settrace(None)
        print(calls, "hook" in traced)
        """, tmp_path)
    assert rc == 0, err
    assert out.strip() == "['os.mkdir'] False"


def test_another_interpreter_is_left_alone(tmp_path):
    # The hook is a function of the main interpreter: never called from another one.
    out, err, rc = run("""
        try:
            import _interpreters as interpreters  # 3.13
            run_string = interpreters.exec
        except ImportError:
            import _xxsubinterpreters as interpreters
            run_string = interpreters.run_string
        def hook(event, args):
            calls.append(event)
        # register
        sub = interpreters.create()
        run_string(sub, "import os; os.mkdir('in-sub')")
        interpreters.destroy(sub)
        os.mkdir("in-main")
        print(calls, os.path.isdir("in-sub"))
        """, tmp_path)
    assert rc == 0, err
    assert out.strip() == "['os.mkdir'] True"


def test_called_until_cpython_drops_it(tmp_path):
    # What is released as CPython clears the interpreter at exit (here a codec search
    # function's object) runs after the hooks of sys.addaudithook are dropped, with module
    # globals gone: the hook is still called, and its failure fails the write (it cannot be
    # judged: not let through).
    out, err, rc = run("""
        import codecs
        def hook(event, args):
            if event == "os.mkdir" and args[0] == "late":
                raise PermissionError(13, "refused by the hook", "late")
        # register
        class Late:
            def __del__(self, mkdir=os.mkdir, write=os.write, type=type, BaseException=BaseException):
                try:
                    mkdir("late")
                    write(1, b"late mkdir: made\\n")
                except BaseException as e:
                    write(1, ("late mkdir: %s\\n" % type(e).__name__).encode())
        keep = Late()
        codecs.register(lambda name, _keep=keep: None)
        del keep
        """, tmp_path)
    assert rc == 0, err
    assert out.startswith("late mkdir: ") and out.strip() != "late mkdir: made", out
    assert not (tmp_path / "late").exists()


def test_no_event_switches_it_off(tmp_path):
    # CPython's own events at the end of an interpreter, raised by a test: nothing changes.
    out, err, rc = run("""
        def hook(event, args):
            calls.append(event)
        # register
        sys.audit("cpython.PyInterpreterState_Clear")
        sys.audit("cpython._PySys_ClearAuditHooks")
        os.mkdir("d")
        print(calls)
        """, tmp_path)
    assert rc == 0, err
    assert out.strip() == "['os.mkdir']"


def test_set_once(tmp_path):
    out, err, rc = run("""
        def hook(event, args):
            pass
        # register
        print(audithook.add_filtered(lib, hook, {"open"}))
        """, tmp_path)
    assert rc == 0, err
    assert out.strip() == "False"


def test_the_binding_is_the_one_asked_for(tmp_path):
    # ctest runs this file twice: through the compiled binding built beside the library
    # (src/pyext/), and with TESTFENCE_BINDING=ctypes; each case above ran through it.
    out, err, rc = run("""
        def hook(event, args):
            pass
        # register
        print(type(lib).__name__, "ctypes" in sys.modules)
        """, tmp_path)
    assert rc == 0, err
    compiled = os.path.join(os.path.dirname(os.environ["TESTFENCE_LIBRARY"]), "_native.abi3.so")
    if os.environ.get("TESTFENCE_BINDING") == "ctypes" or not os.path.exists(compiled):
        assert out.strip() == "Binding True"
    else:
        assert out.strip() == "module False"


def test_a_refusing_hook_leaves_the_filter_out(tmp_path):
    # A hook added before refuses new hooks (sys.addaudithook raising): the filter says it was
    # not added, and no error is left pending for the next call to trip on.
    script = PRELUDE + textwrap.dedent("""
        def refuse(event, args):
            if event == "sys.addaudithook":
                raise PermissionError("no more hooks")
        sys.addaudithook(refuse)
        def hook(event, args):
            calls.append(event)
        lib = native._load_library()
        print(audithook.add_filtered(lib, hook, audithook._ANY_WATCHED))
        os.mkdir("d")
        print(calls, os.path.isdir("d"))
        """)
    python = os.environ.get("PYAUDIT_PYTHON") or sys.executable
    p = subprocess.run([python, "-c", script], cwd=str(tmp_path), capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[:2] == ["False", "[] True"]


def test_a_hook_raising_keyboardinterrupt_is_not_dropped(tmp_path):
    # An earlier hook raising KeyboardInterrupt as the filter is added (a Ctrl-C at that
    # moment): it reaches the caller, through either binding, rather than being taken for
    # "refused" and dropped.
    script = PRELUDE + textwrap.dedent("""
        def interrupt(event, args):
            if event == "sys.addaudithook":
                raise KeyboardInterrupt
        sys.addaudithook(interrupt)
        lib = native._load_library()
        try:
            print(audithook.add_filtered(lib, lambda event, args: None, audithook._ANY_WATCHED))
        except KeyboardInterrupt:
            print("KeyboardInterrupt")
        """)
    python = os.environ.get("PYAUDIT_PYTHON") or sys.executable
    p = subprocess.run([python, "-c", script], cwd=str(tmp_path), capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "KeyboardInterrupt"
