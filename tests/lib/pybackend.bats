#!/usr/bin/env bats
# The plugin's python backend (--testfence-backend=python, issue 28): the audit hook refuses
# this process's writes outside the writable set (no Landlock asked), the shim its children's.
# The careless example must give what the kernel backend gives: the same failed and passed
# tests, the same attribution (test id, path), nothing outside tests/ changed, exit 120 where
# the kernel backend's run exits 120. Its hostile corpus is tests/escape/pyback.bats.

load ../support/helpers

LIB="$(dirname "$TESTFENCE")/libtestfence.so"
PY=/usr/bin/python3

setup() {
    unset TESTFENCE_WORKSPACE TESTFENCE_RUN_ID TESTFENCE_PLUGIN TESTFENCE_PLUGIN_BACKEND \
        PYTEST_ADDOPTS TESTFENCE_SHIM_CONF
    export PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 PYTHONDONTWRITEBYTECODE=1
    [ -e "$LIB" ] || skip "libtestfence.so not built"
    [ -z "${TESTFENCE_RUN_ID:-}" ] || true
    export PYTHONPATH="$TESTFENCE_SRC/python" TESTFENCE_LIBRARY="$LIB"
    P="$BATS_TEST_TMPDIR/proj"
    cp -r "$TESTFENCE_SRC/examples/clobber" "$P"
    rm -rf "$P/tests/artifacts"
    sed -i 's/^pythonpath = \["."\]$/&\naddopts = "-p testfence"/' "$P/pyproject.toml"
    cat >"$P/tests/test_swallow.py" <<'PY'
import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_swallows_the_error():
    try:
        (ROOT / "presets.toml").write_text("clobbered")
    except PermissionError:
        pass


def test_swallows_a_child_error():
    import subprocess
    subprocess.run(["sh", "-c", "echo x > ../personas.toml"], cwd=ROOT / "tests")


def test_removes_and_renames():
    for call in (lambda: os.remove(ROOT / "mcp_env.toml"),
                 lambda: os.replace(ROOT / "tool_presets.toml", ROOT / "tests" / "stolen.toml"),
                 lambda: shutil.rmtree(ROOT / "slop")):
        try:
            call()
        except OSError:
            pass


def test_makedirs_existing_is_no_write():
    os.makedirs(ROOT / "slop", exist_ok=True)  # EEXIST first: not a write, under both


def test_metadata():
    try:
        os.chmod(ROOT / "config.toml", 0o600)
    except PermissionError:
        pass
PY
    cd "$P" || return 1
    fingerprint >"$BATS_TEST_TMPDIR/before"
}

# outcomes: each test's outcome and each violation's (test, path), sorted: what must be the
# same under both backends. From pytest -rA's short summary and the violation lines.
outcomes() {
    {
        grep -E '^(PASSED|FAILED|ERROR|XFAIL|XPASS|SKIPPED) ' <<<"$output" | sed 's/ - .*//'
        grep -oE 'TEST_SANDBOX_VIOLATION: [^ ]+ attempted to write to [^ ]+' <<<"$output"
        grep -E '^  tests/[^ ]+: [0-9]+ blocked write' <<<"$output"
    } | sort -u
}

@test "the careless example: the same tests fail, for the same writes, under both backends" {
    run $PY -m pytest -rA -p no:cacheprovider --testfence-backend=kernel
    expect_status 1
    expect_output_has "testfence: fenced (Landlock ABI"
    local kernel_status=$status
    outcomes >"$BATS_TEST_TMPDIR/kernel"
    assert_outside_unchanged
    rm -rf tests/artifacts
    run $PY -m pytest -rA -p no:cacheprovider --testfence-backend=python
    expect_status "$kernel_status"
    outcomes >"$BATS_TEST_TMPDIR/python"
    assert_outside_unchanged
    diff -u "$BATS_TEST_TMPDIR/kernel" "$BATS_TEST_TMPDIR/python"
    # What the comparison holds: 8 failed (4 careless, 4 here), 6 passed, 10 writes blocked.
    expect_output_has "8 failed, 6 passed"
    expect_output_has "testfence: 10 writes outside the writable set were blocked"
    expect_output_has "FAILED tests/test_settings.py::test_shell_helper_clobbers_config"
    expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_swallow.py::test_swallows_the_error attempted to write to $P/presets.toml which is outside $P/tests/. How to fix:"
    expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_swallow.py::test_metadata attempted to write to $P/config.toml"
    expect_output_has "PASSED tests/test_swallow.py::test_makedirs_existing_is_no_write"
    # One header line, saying it is weaker and what it does not cover.
    [ "$(awk '/^platform / {h=1; next} /^(rootdir|collect)/ {h=0} h && /^testfence: /' <<<"$output" | wc -l)" -eq 1 ]
    expect_output_has "testfence: python backend (--testfence-backend=python), WEAKER than the kernel's:"
    expect_output_has "NOT covered: C extensions and ctypes"
    expect_output_has "testfence: WARNING: python backend: the audit hook refused this process's writes"
    grep -q '"test": *"tests/test_swallow.py::test_swallows_the_error"' tests/artifacts/_isolation_workspace_*/report.json
    # Nothing of the kernel's was asked: this process is not fenced (a child can say so).
    expect_output_lacks "Landlock ABI"
}

@test "python backend: tests pass but a conftest's import-time write was blocked: exit 120" {
    cat >tests/conftest.py <<'PY'
try:
    open("config.toml", "w")
except PermissionError:
    pass
PY
    rm tests/test_settings.py tests/test_swallow.py
    run $PY -m pytest -p no:cacheprovider --testfence-backend=python
    expect_status 120
    expect_output_has "testfence: 1 write outside the writable set was blocked"
    assert_outside_unchanged
}

@test "python backend: tmp_path, the workspace, the env redirects are the kernel backend's" {
    cat >tests/test_env.py <<'PY'
import os, tempfile

def test_env(tmp_path):
    ws = os.environ["TESTFENCE_WORKSPACE"]
    assert os.environ["SLOP_CREDENTIALS"] == ws + "/credentials.toml"
    assert str(tmp_path).startswith(os.environ["TMPDIR"])
    assert tempfile.gettempdir() == os.environ["TMPDIR"]
    (tmp_path / "x").write_text("ok")
    with open(os.path.join(ws, "notes.txt"), "w") as f:
        f.write("ok")
    os.makedirs(os.path.join(os.path.dirname(__file__), "made", "deep"))
    # A name relative to a dir_fd inside tests/, the cwd the root: judged from the fd.
    fd = os.open(os.path.dirname(__file__), os.O_RDONLY)
    os.close(os.open("at.txt", os.O_WRONLY | os.O_CREAT, dir_fd=fd))
    os.mkdir("at.d", dir_fd=fd)
    os.rename("at.txt", "at2.txt", src_dir_fd=fd, dst_dir_fd=fd)
PY
    run $PY -m pytest -p no:cacheprovider --testfence-backend=python tests/test_env.py
    expect_status 0
    expect_output_has "1 passed"
    assert_outside_unchanged
}

@test "default: the kernel backend where Landlock is; the python backend, said in one line, where not" {
    run $PY -m pytest -p no:cacheprovider tests/test_workspace_files.py
    expect_status 0
    expect_output_has "testfence: fenced (Landlock ABI"
    run "$TF_NOLANDLOCK" $PY -m pytest -rA -p no:cacheprovider
    expect_status 1
    expect_output_has "testfence: python backend (the kernel cannot fence here:"
    [ "$(awk '/^platform / {h=1; next} /^(rootdir|collect)/ {h=0} h && /^testfence: /' <<<"$output" | wc -l)" -eq 1 ]
    expect_output_has "FAILED tests/test_settings.py::test_shell_helper_clobbers_config"
    expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_settings.py::test_credentials_reset attempted to write to $P/credentials.toml"
    assert_outside_unchanged
    # Asked for by name, the kernel backend fails closed there.
    run "$TF_NOLANDLOCK" $PY -m pytest -p no:cacheprovider --testfence-backend=kernel
    expect_status 4
    expect_output_has "cannot enforce the fence"
}

@test "the backend is chosen on the command line, never by a file the tests can write" {
    printf '[pytest]\naddopts = --testfence-backend=python\n' >tests/pytest.ini
    run $PY -m pytest -p testfence -p no:cacheprovider tests/test_workspace_files.py
    expect_status 4
    expect_output_has "gives the plugin options (--testfence-...) from inside the writable set"
    printf '[pytest]\naddopts = --testfence-backend=off\n' >tests/pytest.ini
    run $PY -m pytest -p testfence -p no:cacheprovider tests/test_workspace_files.py
    expect_status 4
    assert_outside_unchanged
    rm tests/pytest.ini
    run $PY -m pytest -p no:cacheprovider --testfence-backend=off tests/test_workspace_files.py
    expect_status 0
    expect_output_has "--testfence-backend=off: NOTHING IS FENCED"
}

@test "python backend, pytest -n 2: the workers join the run and refuse as the controller does" {
    $PY -c 'import xdist' 2>/dev/null || skip "pytest-xdist is not installed"
    # test_makedirs_existing_is_no_write too: a worker is started with the shim preloaded, and
    # the shim refusing writes itself lets a call that fails first (EEXIST) fail on its own.
    run $PY -m pytest -rA -p xdist.plugin -n 2 -p no:cacheprovider --testfence-backend=python
    expect_status 1
    expect_output_has "FAILED tests/test_swallow.py::test_swallows_the_error"
    expect_output_has "FAILED tests/test_settings.py::test_credentials_reset"
    expect_output_has "testfence: 10 writes outside the writable set were blocked"
    [ "$(ls -d tests/artifacts/_isolation_workspace_*/ | wc -l)" -eq 1 ]
    assert_outside_unchanged
}

@test "python backend: a child Python without the shim is guarded too, and its own sitecustomize still runs" {
    mkdir -p "$BATS_TEST_TMPDIR/site"
    printf 'import builtins\nbuiltins.MINE = "ran"\n' >"$BATS_TEST_TMPDIR/site/sitecustomize.py"
    cat >tests/test_child.py <<PY
import os, subprocess, sys

def test_child_python_writes_outside():
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}  # no shim: the guard
    env["PYTHONPATH"] += os.pathsep + "$BATS_TEST_TMPDIR/site"
    out = subprocess.run([sys.executable, "-c", "import builtins; print(builtins.MINE); "
                          "open('config.toml', 'w')"], env=env, capture_output=True, text=True)
    assert out.stdout == "ran\n"
    assert "PermissionError" in out.stderr
PY
    run $PY -m pytest -p no:cacheprovider --testfence-backend=python tests/test_child.py
    expect_status 1
    expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_child.py::test_child_python_writes_outside attempted to write to $P/config.toml"
    expect_output_has "1 failed"
    assert_outside_unchanged
}

@test "python backend: a child Python whose guard cannot start stops (status 4) rather than run unfenced" {
    cat >tests/test_child.py <<PY
import os, subprocess, sys

def test_child_python_without_its_guard():
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}  # no shim: the guard only
    env["TESTFENCE_LIBRARY"] = "$BATS_TEST_TMPDIR/no-such-library.so"  # the guard cannot join
    out = subprocess.run([sys.executable, "-c", "open('config.toml', 'w').write('x')"],
                         env=env, capture_output=True, text=True)
    assert out.returncode == 4, out
    assert "the guard of this child Python did not start: cannot load" in out.stderr
    assert "it stops rather than run unfenced" in out.stderr
PY
    run $PY -m pytest -p no:cacheprovider --testfence-backend=python tests/test_child.py
    expect_status 0
    expect_output_has "1 passed"
    assert_outside_unchanged
}
