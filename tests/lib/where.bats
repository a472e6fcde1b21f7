#!/usr/bin/env bats
# Point at the line (issue 32): every blocked write of the careless example carries the file
# and line in the project that made it and the test's own line, in report.json, the summary
# and the live line: with the plugin fencing pytest (kernel and python backend, pytest-xdist)
# and under `testfence run -- pytest`; a hook's write at start-up names the hook.

load ../support/helpers

LIB="$(dirname "$TESTFENCE")/libtestfence.so"
PY=/usr/bin/python3

setup() {
    # The suite may itself run under `testfence run`: this pytest must not think so.
    unset TESTFENCE_WORKSPACE TESTFENCE_RUN_ID TESTFENCE_PLUGIN PYTEST_ADDOPTS TESTFENCE_SHIM_CONF
    unset TESTFENCE_STARTED_AT
    export PYTEST_DISABLE_PLUGIN_AUTOLOAD=1
    [ -e "$LIB" ] || skip "libtestfence.so not built"
    export PYTHONPATH="$TESTFENCE_SRC/python" TESTFENCE_LIBRARY="$LIB"
    P="$BATS_TEST_TMPDIR/proj"
    cp -r "$TESTFENCE_SRC/examples/clobber" "$P"
    rm -rf "$P/tests/artifacts"
    # git config --global writes $HOME/.gitconfig: a home of the test's, outside the project.
    export HOME="$BATS_TEST_TMPDIR/home"
    mkdir -p "$HOME"
    cat >"$P/conftest.py" <<'EOF'
import subprocess


def pytest_configure(config):
    subprocess.run(["git", "config", "--global", "user.name", "careless"])
EOF
    cat >"$P/tests/test_where.py" <<'EOF'
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def clobber_presets():
    try:
        (ROOT / "presets.toml").write_text("x")
    except OSError:
        pass


def test_uses_the_fixture(clobber_presets):
    pass


def wrapped(fn):
    @functools.wraps(fn)
    def inner(*args, **kwargs):
        return fn(*args, **kwargs)
    return inner


@wrapped
def test_under_a_decorator():
    try:
        open(ROOT / "personas.toml", "a")
    except OSError:
        pass
EOF
    cd "$P" || return 1
    fingerprint >"$BATS_TEST_TMPDIR/before"
}

# line_of FILE TEXT: the number of the line of FILE that holds TEXT (exactly one).
line_of() {
    local n
    n=$(grep -nF -- "$2" "$1" | cut -d: -f1)
    [ "$(wc -w <<<"$n")" -eq 1 ] || { echo "'$2' in $1: lines '$n'" >&2; return 1; }
    echo "$n"
}

# expected: each blocked write of the project, "file resolved-name src test", sorted.
expected() {
    local t=tests/test_settings.py w=tests/test_where.py
    {
        echo "manual_slop.toml $t:$(line_of $t 'open("manual_slop.toml", "w")') test_save_overwrites_manual_slop_with_open $t:$(line_of $t 'open("manual_slop.toml", "w")')"
        echo "config.toml slop/settings.py:$(line_of slop/settings.py 'write_text') save $t:$(line_of $t 'settings.save(ROOT / "config.toml"')"
        echo "config.toml $t:$(line_of $t 'subprocess.run(["sh"') test_shell_helper_clobbers_config $t:$(line_of $t 'subprocess.run(["sh"')"
        echo "credentials.toml $t:$(line_of $t '(ROOT / "credentials.toml").write_text')  test_credentials_reset $t:$(line_of $t '(ROOT / "credentials.toml").write_text')"
        echo ".gitconfig.lock conftest.py:$(line_of conftest.py 'subprocess.run(["git"') pytest_configure -"
        echo "presets.toml $w:$(line_of $w '(ROOT / "presets.toml").write_text') clobber_presets -"
        echo "personas.toml $w:$(line_of $w 'open(ROOT / "personas.toml"') test_under_a_decorator $w:$(line_of $w 'open(ROOT / "personas.toml"')"
    } | sed 's/  */ /g' | sort
}

# reported: the same from the run's report.json (one workspace), with its test ids.
reported() {
    $PY - tests/artifacts/_isolation_workspace_*/report.json <<'EOF'
import json, os, sys
seen = set()
for t in json.load(open(sys.argv[1]))["tests"]:
    for w in t["writes"]:
        if "/." in w["resolved"] and not w["resolved"].endswith(".gitconfig.lock"):
            continue  # a tool's own state (.pytest_cache), not the example's
        src = "%s:%s %s" % (w["src_file"], w["src_line"], w["src_func"]) if "src_file" in w else "?"
        test = "%s:%s" % (w["test_file"], w["test_line"]) if "test_file" in w else "-"
        seen.add("%s %s %s" % (os.path.basename(w["resolved"]), src, test))
print("\n".join(sorted(seen)))
EOF
}

# expect_lines: report.json points at the line of every blocked write, the summary says
# where, and the hook's write at start-up is the hook's.
expect_lines() {
    expected >"$BATS_TEST_TMPDIR/expected"
    reported >"$BATS_TEST_TMPDIR/reported"
    diff -u "$BATS_TEST_TMPDIR/expected" "$BATS_TEST_TMPDIR/reported"
    expect_output_has "      at conftest.py:$(line_of conftest.py 'subprocess.run(["git"') in pytest_configure"
    expect_output_has "      at slop/settings.py:$(line_of slop/settings.py 'write_text') in save, from tests/test_settings.py:$(line_of tests/test_settings.py 'settings.save(ROOT / "config.toml"')"
    assert_outside_unchanged
}

@test "the plugin fencing pytest (kernel): each blocked write names its line, the hook's its hook" {
    run $PY -m pytest -p testfence -p no:cacheprovider
    expect_status 1
    expect_output_has "5 failed, 5 passed, 1 error"
    expect_lines
    # The live line, in the failing test's report, says it too.
    expect_output_has "How to fix: write under tmp_path or the run workspace (\$TESTFENCE_WORKSPACE). (at tests/test_settings.py:$(line_of tests/test_settings.py '(ROOT / "credentials.toml").write_text') in test_credentials_reset)"
}

@test "the plugin without the shim in pytest (--testfence-reexec=off): the audit hook's records name their lines" {
    run $PY -m pytest -p testfence -p no:cacheprovider --testfence-reexec=off
    expect_status 1
    expect_output_has "5 failed, 5 passed, 1 error"
    expect_lines
}

@test "the plugin's python backend: each blocked write names its line" {
    run $PY -m pytest -p testfence -p no:cacheprovider --testfence-backend=python
    expect_status 1
    expect_output_has "5 failed, 5 passed, 1 error"
    expect_lines
}

@test "the plugin with pytest-xdist: the workers name the lines of their tests' writes" {
    $PY -c 'import xdist' 2>/dev/null || skip "no pytest-xdist (scripts/deps.sh test)"
    run $PY -m pytest -p testfence -p no:cacheprovider -p xdist.plugin -n 2
    expect_status 1
    expect_lines
}

@test "testfence run -- pytest: the plugin joins to supply the frames, run records them" {
    run "$TESTFENCE" run -- $PY -m pytest -p testfence -p no:cacheprovider
    expect_status 1
    expect_output_has "already fenced by \`testfence run\`"
    expect_lines
    expect_output_has "TEST_SANDBOX_VIOLATION: git (pid "
}

@test "testfence run -- pytest -n 2: each worker joins run's shim with its frames" {
    $PY -c 'import xdist' 2>/dev/null || skip "no pytest-xdist (scripts/deps.sh test)"
    run "$TESTFENCE" run -- $PY -m pytest -p testfence -p no:cacheprovider -p xdist.plugin -n 2
    expect_status 1
    expect_lines
}

@test "every way to start a process tells it its line; a method's and a unittest's test line is theirs" {
    rm conftest.py tests/test_settings.py tests/test_where.py
    cat >tests/test_ways.py <<'EOF'
import os
import subprocess
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def test_os_system():
    os.system("cd %s && echo x > ../presets.toml 2>/dev/null" % HERE)


def test_posix_spawn():
    pid = os.posix_spawn("/bin/sh", ["sh", "-c", "cd %s && echo x > ../personas.toml 2>/dev/null" % HERE], os.environ)
    os.waitpid(pid, 0)


def test_popen_env():
    env = dict(os.environ, EXTRA="1")
    subprocess.run(["sh", "-c", "echo x > ../mcp_env.toml 2>/dev/null"], cwd=HERE, env=env)
    assert "TESTFENCE_STARTED_AT" not in env  # the caller's mapping is left as it was


class TestClass:
    def test_method(self):
        try:
            open(os.path.join(HERE, "..", "tool_presets.toml"), "w")
        except OSError:
            pass


class TestUnit(unittest.TestCase):
    def test_unit(self):
        try:
            open(os.path.join(HERE, "..", "config.toml"), "w")
        except OSError:
            pass
EOF
    fingerprint >"$BATS_TEST_TMPDIR/before"
    run $PY -m pytest -p testfence -p no:cacheprovider tests/test_ways.py
    expect_status 1
    local t=tests/test_ways.py
    expect_output_has "      at $t:$(line_of $t 'os.system(') in test_os_system"
    expect_output_has "      at $t:$(line_of $t 'os.posix_spawn(') in test_posix_spawn"
    expect_output_has "      at $t:$(line_of $t 'subprocess.run(["sh"') in test_popen_env"
    expect_output_has "      at $t:$(line_of $t '"tool_presets.toml"') in test_method"
    expect_output_has "      at $t:$(line_of $t '"config.toml"') in test_unit"
    expect_output_has "5 failed"
    assert_outside_unchanged
}

@test "a frames function that fails or lies leaves the record whole: the shim's fields stay the shim's" {
    # A hostile test registers its own frames function: one that raises, one that claims
    # another file, a negative line and garbage, one that writes outside itself, one that
    # lies well formed. The plugin's keeps its place (each is refused, and none takes it off);
    # every refusal is recorded with its test, op, path and the real line.
    cat >tests/test_hostile.py <<'EOF'
import ctypes
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int)


def boom(buf, cap):
    raise RuntimeError("no frames for you")


def liar(buf, cap):
    data = b"elsewhere.py\0-3\0f\0\xff\xfe\0x12"
    ctypes.memmove(buf, data, len(data))
    return 100000  # more than it wrote, more than the buffer


def fluent_liar(buf, cap):  # well formed: only its place being refused keeps it out
    data = b"elsewhere.py\x007\0f\0tests/other.py\x009"
    ctypes.memmove(buf, data, len(data))
    return len(data)


def writer(buf, cap):
    try:
        open(ROOT / "tool_presets.toml", "w")  # refused too: recorded, and not asked again
    except OSError:
        pass
    return 0


def clobber(fn, name):
    assert ctypes.CDLL(None).testfence_shim_frames(fn) == -1  # the plugin's keeps its place
    assert ctypes.CDLL(None).testfence_shim_frames_off(fn) == -1  # and is not taken off
    try:
        open(ROOT / name, "w")
    except OSError:
        pass


def test_raising_frames():
    clobber(FN(boom), "presets.toml")


def test_lying_frames():
    clobber(FN(liar), "personas.toml")


def test_writing_frames():
    clobber(FN(writer), "mcp_env.toml")


def test_fluent_lie():
    clobber(FN(fluent_liar), "rules.toml")
EOF
    rm conftest.py
    fingerprint >"$BATS_TEST_TMPDIR/before"
    run "$TESTFENCE" run -- $PY -m pytest -p testfence -p no:cacheprovider tests/test_hostile.py
    expect_status 120 # the tests swallowed the errors, the writes were blocked
    expect_output_has "tests/test_hostile.py::test_raising_frames: 1 blocked write"
    expect_output_has "tests/test_hostile.py::test_lying_frames: 1 blocked write"
    expect_output_has "tests/test_hostile.py::test_writing_frames: 1 blocked write"
    expect_output_has "tests/test_hostile.py::test_fluent_lie: 1 blocked write"
    expect_output_has "$P/mcp_env.toml (EACCES)"
    expect_output_has "$P/presets.toml (EACCES)"
    expect_output_has "$P/personas.toml (EACCES)"
    expect_output_has "$P/rules.toml (EACCES)"
    local t=tests/test_hostile.py
    expect_output_has "at $t:$(line_of $t 'open(ROOT / name') in clobber, from $t:$(line_of $t 'clobber(FN(fluent_liar)')"
    expect_output_lacks "elsewhere.py"
    expect_output_lacks "tests/other.py"
    expect_output_lacks "tool_presets.toml" # the writer was never registered, never asked
    assert_outside_unchanged
}

@test "a write from another thread names that thread's line, one from a thread without Python code is reported; the exception a test is handling is still its own after" {
    # The shim asks the frames on the thread whose write was refused, which may hold no GIL
    # (os.open releases it): the binding takes it, and leaves the thread as it was.
    cat >tests/test_thread.py <<'EOF'
import _thread
import os
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def clobber(name):
    try:
        os.open(ROOT / name, os.O_WRONLY | os.O_CREAT)
    except OSError:
        pass


def test_from_a_thread():
    t = threading.Thread(target=clobber, args=("rules.toml",))
    t.start()
    t.join()


def test_while_handling():
    try:
        raise KeyError("pending")
    except KeyError:
        clobber("presets.toml")
        print("PENDING", sys.exc_info()[0].__name__)


def test_from_a_thread_without_python_code():
    # The thread runs os.open itself: no Python frame on it when the shim asks. Its
    # PermissionError goes to sys.unraisablehook, on that thread, once open has returned; so
    # would anything the binding raised and dropped while the shim asked.
    done, seen = threading.Event(), []

    def unraisable(u):
        seen.append(type(u.exc_value).__name__)
        if isinstance(u.exc_value, PermissionError):
            done.set()

    hook, sys.unraisablehook = sys.unraisablehook, unraisable
    try:
        _thread.start_new_thread(os.open, (str(ROOT / "personas.toml"), os.O_WRONLY | os.O_CREAT))
        assert done.wait(60)
    finally:
        sys.unraisablehook = hook
    print("UNRAISABLE", seen)
EOF
    rm conftest.py
    fingerprint >"$BATS_TEST_TMPDIR/before"
    run $PY -m pytest -s -p testfence -p no:cacheprovider tests/test_thread.py
    expect_status 1 # the writes fail their tests, though the tests swallowed the errors
    local t=tests/test_thread.py
    expect_output_has "tests/test_thread.py::test_from_a_thread: 1 blocked write"
    expect_output_has "tests/test_thread.py::test_while_handling: 1 blocked write"
    expect_output_has "at $t:$(line_of $t 'os.open(ROOT / name') in clobber"
    expect_output_has "at $t:$(line_of $t 'os.open(ROOT / name') in clobber, from $t:$(line_of $t 'clobber("presets.toml")')"
    expect_output_has "PENDING KeyError"
    # reported, with no line (none of the project's on that thread), and nothing printed by
    # the binding for the frame it could not find
    expect_output_has "tests/test_thread.py::test_from_a_thread_without_python_code: 1 blocked write"
    expect_output_has "$P/personas.toml (EACCES)"
    expect_output_has "UNRAISABLE ['PermissionError']"
    expect_output_has "3 failed"
    assert_outside_unchanged
}

@test "nothing is said where nothing is known: a write outside the project's code has no source keys" {
    # The shim in a child the plugin did not start (a cleared TESTFENCE_STARTED_AT) and no
    # Python of the project's on the stack: the record has no source keys at all.
    cat >tests/test_bare.py <<'EOF'
import os
import subprocess


def test_child_told_nothing():
    env = {k: v for k, v in os.environ.items() if k != "TESTFENCE_STARTED_AT"}
    subprocess.run(["env", "-u", "TESTFENCE_STARTED_AT", "sh", "-c", "echo x > ../config.toml"],
                   cwd=os.path.dirname(__file__), env=env)
EOF
    rm conftest.py
    fingerprint >"$BATS_TEST_TMPDIR/before"
    run "$TESTFENCE" run -- $PY -m pytest -p testfence -p no:cacheprovider tests/test_bare.py
    expect_status 120
    expect_output_has "tests/test_bare.py::test_child_told_nothing: 1 blocked write"
    log=$(echo tests/artifacts/_isolation_workspace_*/violations.jsonl)
    [ -s "$log" ] # one log, with the record in it
    run grep -c -e '"src_file"' -e '"test_file"' "$log"
    expect_status 1 # no source field: the child was told nothing
    assert_outside_unchanged
}

@test "two threads starting children at once leave TESTFENCE_STARTED_AT as it was, whichever ends first" {
    # A enters, then B (A's value in the environment), then A ends, then B: B must not put
    # A's value back for good.
    run $PY - <<'PY'
import os, threading
from _testfence import where
os.environ.pop(where.ENV_STARTED_AT, None)
b_in, a_out = threading.Event(), threading.Event()
def a():
    where._inherited("A\t1\tf\tt.py\t1", b_in.wait)
    a_out.set()
def b():
    where._inherited("B\t2\tg\tt.py\t2", lambda: (b_in.set(), a_out.wait()))
ta, tb = threading.Thread(target=a), threading.Thread(target=b)
ta.start()
while os.environ.get(where.ENV_STARTED_AT) is None:
    pass
tb.start()
ta.join(); tb.join()
print("left:", os.environ.get(where.ENV_STARTED_AT))
PY
    expect_status 0
    [ "$output" = "left: None" ]
}
