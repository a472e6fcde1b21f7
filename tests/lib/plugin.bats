#!/usr/bin/env bats
# The pytest plugin: plain `pytest` with `-p testfence` fences itself (libtestfence.so),
# turns blocked writes into failures of the test that made them, with pytest-xdist too.

load ../support/helpers

LIB="$(dirname "$TESTFENCE")/libtestfence.so"
# TF_PLUGIN_PYTHON: the python of an environment the wheel was installed into (CI's
# venv, scripts/check-install.sh): the installed plugin and its own library are used.
PY=${TF_PLUGIN_PYTHON:-/usr/bin/python3}

setup() {
    # The suite may itself run under `testfence run`: this pytest must not think so.
    OUTER_RUN_ID=${TESTFENCE_RUN_ID:-}
    unset TESTFENCE_WORKSPACE TESTFENCE_RUN_ID TESTFENCE_PLUGIN PYTEST_ADDOPTS TESTFENCE_SHIM_CONF
    # No plugin of this machine's may take part: each one a test needs is named with -p.
    export PYTEST_DISABLE_PLUGIN_AUTOLOAD=1
    if [ -n "${TF_PLUGIN_PYTHON:-}" ]; then
        unset PYTHONPATH TESTFENCE_LIBRARY
        case $($PY -c 'import testfence; print(testfence.__file__)') in
        "$(dirname "$(dirname "$PY")")"/*) ;;
        *) echo "$PY does not import the installed plugin" >&2; return 1 ;;
        esac
    else
        [ -e "$LIB" ] || skip "libtestfence.so not built"
        export PYTHONPATH="$TESTFENCE_SRC/python" TESTFENCE_LIBRARY="$LIB"
    fi
    P="$BATS_TEST_TMPDIR/proj"
    cp -r "$TESTFENCE_SRC/examples/clobber" "$P"
    rm -rf "$P/tests/artifacts"
    sed -i 's/^pythonpath = \["."\]$/&\naddopts = "-p testfence"/' "$P/pyproject.toml"
    grep -q 'addopts = "-p testfence"' "$P/pyproject.toml"
    cat >"$P/tests/test_swallow.py" <<'EOF'
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
EOF
    cd "$P" || return 1
    fingerprint >"$BATS_TEST_TMPDIR/before"
}

# expect_clobber_results: each careless test failed with its violation line, the good passed.
expect_clobber_results() {
    local t
    for t in test_save_overwrites_manual_slop_with_open test_save_through_path_write_text \
        test_shell_helper_clobbers_config test_credentials_reset; do
        expect_output_has "FAILED tests/test_settings.py::$t"
    done
    expect_output_has "FAILED tests/test_swallow.py::test_swallows_the_error"
    expect_output_has "FAILED tests/test_swallow.py::test_swallows_a_child_error"
    expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_swallow.py::test_swallows_the_error attempted to write to $P/presets.toml which is outside $P/tests/. How to fix: write under tmp_path"
    expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_swallow.py::test_swallows_a_child_error attempted to write to $P/personas.toml"
    expect_output_has "6 failed, 5 passed"
    expect_output_has "testfence: blocked writes"
    expect_output_has "testfence: 6 writes outside the writable set were blocked"
}

@test "plain pytest: bad tests fail with the violation line, even when they swallow it" {
    run $PY -m pytest -p no:cacheprovider --junitxml=tests/junit.xml
    expect_status 1
    expect_clobber_results
    expect_output_has "testfence: fenced (Landlock ABI"
    expect_output_has "with no seccomp guard in-process (docs/plugin.md)"
    # One header line: those between pytest's platform line and its "collected".
    [ "$(awk '/^platform / {h=1; next} /^collect/ {h=0} h && /^testfence: /' <<<"$output" | wc -l)" -eq 1 ]
    assert_outside_unchanged
    grep -q 'TEST_SANDBOX_VIOLATION: tests/test_swallow.py::test_swallows_the_error' tests/junit.xml
    [ "$(ls -d tests/artifacts/_isolation_workspace_*/ | wc -l)" -eq 1 ]
    ls tests/artifacts/_isolation_workspace_*/report.json
}

@test "the plugin drives the library through the compiled binding where it is built (no ctypes imported), else through ctypes" {
    cat >tests/test_binding.py <<'EOF'
import sys


def test_binding():
    print("BINDING compiled=%s ctypes=%s" % ("_testfence._native" in sys.modules,
                                             "_testfence.ctbinding" in sys.modules))
    print("CTYPES %s" % ("ctypes" in sys.modules))
EOF
    run $PY -m pytest -s tests/test_binding.py
    expect_status 0
    expect_output_has "testfence: fenced (Landlock ABI"
    if [ "${TESTFENCE_BINDING:-}" = ctypes ]; then
        expect_output_has "BINDING compiled=False ctypes=True"
    elif [ -n "${TF_PLUGIN_PYTHON:-}" ] || [ -e "$(dirname "$LIB")/_native.abi3.so" ]; then
        # the wheel ships it; the build has it beside libtestfence.so
        expect_output_has "BINDING compiled=True ctypes=False"
        expect_output_has "CTYPES False"
    else
        expect_output_has "BINDING compiled=False ctypes=True"
    fi
}

@test "a library that is missing or older than the plugin: pytest stops (4), saying which and why, and runs nothing unfenced" {
    [ -z "${TF_PLUGIN_PYTHON:-}" ] || skip "TESTFENCE_LIBRARY is the build's plugin's"
    local old="$BATS_TEST_TMPDIR/old"
    mkdir -p "$old"
    printf 'int tf_api_version(void);\nint tf_api_version(void) { return 1; }\n' >"$old/old.c"
    cc -shared -fPIC -o "$old/libtestfence.so" "$old/old.c"
    # the compiled binding beside it, as in the build dir
    [ ! -e "$(dirname "$LIB")/_native.abi3.so" ] || cp "$(dirname "$LIB")/_native.abi3.so" "$old/"
    printf 'def test_writes():\n    open("../presets.toml", "w")\n' >tests/test_writes.py
    for lib in "$BATS_TEST_TMPDIR/none/libtestfence.so" "$old/libtestfence.so"; do
        TESTFENCE_LIBRARY=$lib run $PY -m pytest -q tests/test_writes.py
        expect_status 4
        expect_output_has "ERROR: testfence:"
        expect_output_has "cannot load libtestfence.so.0 ($lib"
        expect_output_lacks "test_writes"
        assert_outside_unchanged
    done
    expect_output_has "$old/libtestfence.so has no tf_open): it is missing, or older than this plugin"
}

@test "pytest -n 2: every worker is fenced and the summary merges them" {
    run $PY -m pytest -p xdist.plugin -n 2
    expect_status 1
    expect_clobber_results
    assert_outside_unchanged
    [ "$(ls -d tests/artifacts/_isolation_workspace_*/ | wc -l)" -eq 1 ]
}

@test "a test that removes the workspace (and the log with it) fails the run: nothing can show it clean" {
    cat >tests/test_clean.py <<'EOF'
import os, shutil

def test_writes_then_cleans_up():
    try:
        open("config.toml", "w")
    except OSError:
        pass
    shutil.rmtree(os.path.join(os.path.dirname(__file__), "artifacts"), ignore_errors=True)
EOF
    run $PY -m pytest tests/test_clean.py
    expect_status 120
    expect_output_has "was removed while the command ran; blocked writes cannot be reported, so the run fails"
    assert_outside_unchanged
}

@test "a test that rewrites the shim's configuration fails the run: its children's refusals could go unrecorded" {
    # Without its sink, a child's shim records nothing: the kernel refuses the write, the
    # test swallows the error, and only the changed configuration can show it.
    cat >tests/test_conf.py <<'EOF'
import os, subprocess

def test_hides_its_child():
    conf = os.environ["TESTFENCE_SHIM_CONF"]
    text = "".join(l for l in open(conf) if not l.startswith("sink"))
    os.chmod(conf, 0o644)
    open(conf, "w").write(text)
    subprocess.run(["sh", "-c", "echo x > ../config.toml 2>/dev/null"], cwd=os.path.dirname(__file__))
EOF
    fingerprint >"$BATS_TEST_TMPDIR/before"
    run $PY -m pytest tests/test_conf.py
    expect_status 120
    expect_output_has "testfence-shim.conf was changed or removed while the command ran"
    rm tests/test_conf.py
    assert_outside_unchanged
}

@test "writes in a fixture fail its test's setup; at import time, the collector" {
    cat >tests/test_fixture.py <<'EOF'
import pytest
from pathlib import Path

@pytest.fixture
def clobber():
    try:
        Path("config.toml").write_text("x")
    except OSError:
        pass
    yield

def test_uses_it(clobber):
    pass

@pytest.fixture
def harmless():
    return 1

@pytest.fixture
def wraps(harmless):
    try:
        Path("wraps.toml").write_text("x")
    except OSError:
        pass

def test_wraps(wraps):
    pass

def test_body_writes(harmless):
    try:
        Path("body.toml").write_text("x")
    except OSError:
        pass
EOF
    # The fixture is found with this run's shim loaded (the default) and without it.
    for reexec in auto off; do
        run $PY -m pytest --testfence-reexec=$reexec tests/test_fixture.py
        expect_status 1
        expect_output_has "ERROR tests/test_fixture.py::test_uses_it"
        # The line names the fixture's own line (issue 32), then the fixture it was in.
        expect_output_has "attempted to write to $P/config.toml which is outside $P/tests/. How to fix: write under tmp_path or the run workspace (\$TESTFENCE_WORKSPACE). (at tests/test_fixture.py:$(grep -n 'Path("config.toml")' tests/test_fixture.py | cut -d: -f1) in clobber) (in fixture clobber)"
        expect_output_has "$P/wraps.toml which is outside $P/tests/. How to fix: write under tmp_path or the run workspace (\$TESTFENCE_WORKSPACE). (at tests/test_fixture.py:$(grep -n 'Path("wraps.toml")' tests/test_fixture.py | cut -d: -f1) in wraps) (in fixture wraps)"
        expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_fixture.py::test_body_writes attempted to write to $P/body.toml which is outside $P/tests/. How to fix: write under tmp_path or the run workspace (\$TESTFENCE_WORKSPACE)."
        [[ "$output" != *"body.toml which is outside $P/tests/. How to fix: write under tmp_path or the run workspace (\$TESTFENCE_WORKSPACE). (in fixture"* ]]
    done
    printf 'import os\ntry:\n    os.remove("credentials.toml")\nexcept OSError:\n    pass\n\ndef test_x():\n    pass\n' >tests/test_import.py
    run $PY -m pytest tests/test_import.py
    expect_status 2
    expect_output_has "ERROR collecting tests/test_import.py"
    expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_import.py attempted to write to $P/credentials.toml"
    assert_outside_unchanged
}

# collection_of_record: "test phase" of every record in the workspace's report.json.
collection_of_record() {
    $PY -c 'import json, sys
for t in json.load(open(sys.argv[1]))["tests"]:
    for w in t["writes"]:
        print(t["test"], w["phase"])' tests/artifacts/_isolation_workspace_*/report.json
}

@test "a child's write while a module is imported: filed under that module's collection, by the plugin and under testfence run" {
    # Issue 26: the test variable was split by two parsers, the shim's without the plugin's
    # "(collect)", which filed the write under a test "tests/x.py (collect)" and failed
    # nothing; and under testfence run nobody named the collection at all.
    printf 'import subprocess\nsubprocess.run(["sh", "-c", "echo x > config.toml"])\n\ndef test_x():\n    pass\n' >tests/test_child_import.py
    run $PY -m pytest tests/test_child_import.py
    expect_status 2 # pytest's own: an error during collection
    expect_output_has "ERROR collecting tests/test_child_import.py"
    expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_child_import.py attempted to write to $P/config.toml"
    expect_output_has "  tests/test_child_import.py: 1 blocked write"
    [ "$(collection_of_record)" = "tests/test_child_import.py collect" ]
    assert_outside_unchanged
    rm -rf tests/artifacts
    # testfence run fences and reports; the plugin only names the module being collected.
    run "$TESTFENCE" run -- $PY -m pytest tests/test_child_import.py
    expect_status 120 # the tests passed, a write was blocked
    expect_output_has "already fenced by \`testfence run\`"
    expect_output_has "  tests/test_child_import.py: 1 blocked write"
    [[ "$output" != *"(outside any test)"* ]]
    [ "$(collection_of_record)" = "tests/test_child_import.py collect" ]
    assert_outside_unchanged
}

@test "a blocked write outside any test: the run exits 120" {
    printf 'from pathlib import Path\ntry:\n    Path("manual_slop.toml").write_text("x")\nexcept OSError:\n    pass\n' >conftest.py
    fingerprint >"$BATS_TEST_TMPDIR/before"
    run $PY -m pytest tests/test_settings.py -k tmp_path
    expect_status 120
    expect_output_has "(outside any test): 1 blocked write"
    assert_outside_unchanged
}

@test "a pytest a test runs in its own process (pytester) does not take the test's name away: what the test writes after is still its own" {
    cat >tests/test_inner.py <<'EOF'
from pathlib import Path

pytest_plugins = ["pytester"]
ROOT = Path(__file__).resolve().parent.parent


def test_runs_pytest_inside(pytester):
    pytester.makepyfile("def test_a():\n    pass\n")
    pytester.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
    (ROOT / "presets.toml").write_text("clobbered")
EOF
    fingerprint >"$BATS_TEST_TMPDIR/before"
    run $PY -m pytest -p no:cacheprovider tests/test_inner.py
    expect_status 1
    expect_output_has "tests/test_inner.py::test_runs_pytest_inside: 1 blocked write"
    expect_output_lacks "outside any test"
    rm tests/test_inner.py
    assert_outside_unchanged
}

@test "chmod outside the writable set is refused in-process (Landlock cannot)" {
    printf 'import os\ndef test_chmod():\n    os.chmod("config.toml", 0o600)\n' >tests/test_meta.py
    run $PY -m pytest tests/test_meta.py
    expect_status 1
    expect_output_has "PermissionError"
    expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_meta.py::test_chmod attempted to write to $P/config.toml"
    assert_outside_unchanged
}

@test "a hook added before the plugin's that refuses new hooks: the run stops, saying so (nothing would refuse chmod)" {
    mkdir "$BATS_TEST_TMPDIR/plug"
    printf 'import sys\ndef _refuse(event, args):\n    if event == "sys.addaudithook":\n        raise RuntimeError("no more hooks")\nsys.addaudithook(_refuse)\n' \
        >"$BATS_TEST_TMPDIR/plug/refusehooks.py"
    printf 'import os\ndef test_chmod():\n    os.chmod("config.toml", 0o600)\n' >tests/test_meta.py
    PYTHONPATH="$BATS_TEST_TMPDIR/plug${PYTHONPATH:+:$PYTHONPATH}" run $PY -m pytest -p refusehooks tests/test_meta.py
    expect_status 4
    expect_output_has "testfence: the audit hook could not be added: a hook added before testfence's"
    expect_output_lacks "passed"
    rm tests/test_meta.py
    assert_outside_unchanged
}

@test "metadata through a file descriptor is refused in-process too; what cannot be resolved is refused" {
    cat >tests/test_fdmeta.py <<'EOF'
import os
import pytest

@pytest.mark.parametrize("how", ["fchmod", "utime_fd", "setxattr_fd", "chown_fd", "chmod_dirfd"])
def test_fd(how):
    fd = os.open("config.toml", os.O_RDONLY)
    root = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    try:
        if how == "fchmod":
            os.fchmod(fd, 0o600)
        elif how == "utime_fd":
            os.utime(fd, (978307200, 978307200))
        elif how == "setxattr_fd":
            os.setxattr(fd, "user.escape", b"1")
        elif how == "chown_fd":
            os.fchown(fd, os.getuid(), os.getgid())
        else:
            os.chmod("config.toml", 0o600, dir_fd=root)
    finally:
        os.close(fd)
        os.close(root)

def test_inside_still_works():
    fd = os.open("tests/mine.txt", os.O_WRONLY | os.O_CREAT, 0o644)
    os.fchmod(fd, 0o600)
    os.utime(fd, (978307200, 978307200))
    os.close(fd)

def test_unresolvable_is_refused():
    # Named by an unlinked link while another link remains: where it lives cannot be told.
    with open("tests/a.txt", "w"):
        pass
    os.link("tests/a.txt", "tests/b.txt")
    fd = os.open("tests/a.txt", os.O_RDONLY)
    os.unlink("tests/a.txt")
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
EOF
    fingerprint_meta >"$BATS_TEST_TMPDIR/before"
    run $PY -m pytest tests/test_fdmeta.py
    expect_status 1
    expect_output_has "6 failed, 1 passed"
    for how in fchmod utime_fd setxattr_fd chown_fd chmod_dirfd; do
        expect_output_has "FAILED tests/test_fdmeta.py::test_fd[$how] - PermissionError"
        expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_fdmeta.py::test_fd[$how] attempted to write to $P/config.toml"
    done
    expect_output_has "FAILED tests/test_fdmeta.py::test_unresolvable_is_refused - PermissionError"
    fingerprint_meta >"$BATS_TEST_TMPDIR/after"
    diff -u "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
}

@test "an ioctl that changes a file outside (chattr's inode flags) is refused and reported, in-process and in a child; queries and files inside work" {
    command -v chattr >/dev/null || skip "no chattr (e2fsprogs)"
    cat >tests/test_ioctl.py <<'EOF'
import array, fcntl, os, subprocess
import pytest

FS_IOC_GETFLAGS, FS_IOC_SETFLAGS, FS_NOATIME_FL = 0x80086601, 0x40086602, 0x80

def set_noatime(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        buf = array.array("l", [0])
        fcntl.ioctl(fd, FS_IOC_GETFLAGS, buf, True)  # a query: runs on any file
        buf[0] |= FS_NOATIME_FL
        fcntl.ioctl(fd, FS_IOC_SETFLAGS, buf)
    finally:
        os.close(fd)

def test_setflags_in_process():
    set_noatime("config.toml")

def test_chattr_in_a_child():
    r = subprocess.run(["chattr", "+A", "config.toml"], capture_output=True, text=True)
    assert r.returncode != 0, r.stderr  # swallowed: the record still fails the test

def test_inside_still_works():
    with open("tests/mine.txt", "w"):
        pass
    set_noatime("tests/mine.txt")
    subprocess.run(["chattr", "-A", "tests/mine.txt"], check=True)
EOF
    fingerprint_meta >"$BATS_TEST_TMPDIR/before"
    run $PY -m pytest tests/test_ioctl.py
    expect_status 1
    expect_output_has "2 failed, 1 passed"
    expect_output_has "FAILED tests/test_ioctl.py::test_setflags_in_process - PermissionError"
    expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_ioctl.py::test_setflags_in_process attempted to write to $P/config.toml"
    expect_output_has "FAILED tests/test_ioctl.py::test_chattr_in_a_child"
    expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_ioctl.py::test_chattr_in_a_child attempted to write to $P/config.toml"
    fingerprint_meta >"$BATS_TEST_TMPDIR/after"
    diff -u "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
}

@test "nothing beneath the artifacts dir is collected: a conftest.py planted there cannot turn the plugin off" {
    # Red-team finding: pytest collected tests/artifacts, so a conftest.py a test left there
    # ran in every later pytest (set_blocked: no reporting, exit 0), and neither scan looks
    # beneath the artifacts dir.
    mkdir -p tests/artifacts/old
    cat >tests/artifacts/old/conftest.py <<'EOF'
def pytest_configure(config):
    config.pluginmanager.set_blocked("testfence")
EOF
    printf 'def test_in_artifacts():\n    pass\n' >tests/artifacts/old/test_old.py
    ln -s artifacts/old tests/linked # a link into it is judged where it leads
    cat >tests/test_swallow.py <<EOF
def test_swallows():
    try:
        open("config.toml", "w")
    except OSError:
        pass
EOF
    run $PY -m pytest -p testfence tests
    expect_status 1
    expect_output_has "tests/test_swallow.py::test_swallows attempted to write to $P/config.toml"
    [[ "$output" != *test_in_artifacts* ]]
    assert_outside_unchanged
}

@test "a test that plants what would switch the next run's fence off fails the run: 120, the files named" {
    cat >tests/test_plant.py <<'EOF'
from pathlib import Path

HERE = Path(__file__).parent

def test_plants_a_module():
    (HERE / "testfence.py").write_text("def pytest_configure(config): pass\n")

def test_plants_a_config():
    (HERE / "sub").mkdir(exist_ok=True)
    (HERE / "sub" / "pytest.ini").write_text("[pytest]\naddopts = -p no:testfence\n")

def test_plants_options():
    (HERE / "wide").mkdir(exist_ok=True)
    (HERE / "wide" / "setup.cfg").write_text("[tool:pytest]\naddopts = --testfence-allow=/\n")
EOF
    run $PY -m pytest tests/test_plant.py
    expect_status 120
    expect_output_has "3 passed"
    expect_output_has "testfence: the tests left 3 hazards in the writable set, which would switch the next run's fence off"
    expect_output_has "$P/tests/testfence.py is a module inside the writable set"
    expect_output_has "$P/tests/sub/pytest.ini"
    expect_output_has "$P/tests/wide/setup.cfg gives the testfence plugin options"
    # Made by this run: moved into its workspace's quarantine, out of the next run's way.
    expect_output_has "(this run made it: moved to $P/tests/artifacts/_isolation_workspace_"
    [ ! -e tests/testfence.py ]
    [ ! -e tests/sub/pytest.ini ]
    [ ! -e tests/wide/setup.cfg ]
    ls tests/artifacts/_isolation_workspace_*/quarantine/ | grep -q 'tests%testfence.py$'
    rm -r tests/wide
    # A failing test keeps its own status; what it planted is still said.
    printf 'def test_fails():\n    assert False\n' >tests/test_fail.py
    printf 'import os\n' >tests/sitecustomize.py
    run $PY -m pytest -p testfence tests/test_fail.py
    expect_status 4 # planted before this run: refused at start, as today
    rm tests/sitecustomize.py
    run $PY -m pytest tests/test_plant.py tests/test_fail.py
    expect_status 1
    expect_output_has "the tests left 3 hazards"
    assert_outside_unchanged
}

@test "a write C code makes in the test process is reported and fails its test: the shim is loaded into pytest; =always starts pytest again; =off says what it costs" {
    cat >tests/test_c.py <<'EOF2'
import ctypes, os, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

def test_sqlite_outside_swallowed():
    import sqlite3  # loaded during the test: the shim reaches it too
    try:
        sqlite3.connect(str(ROOT / "app.db")).execute("create table t(x)")
    except sqlite3.OperationalError:
        pass

def test_sqlite_inside(tmp_path):
    import sqlite3
    sqlite3.connect(str(tmp_path / "ok.db")).execute("create table t(x)")

def test_ctypes_libc_swallowed():
    ctypes.CDLL(None).open(str(ROOT / "c.txt").encode(), os.O_WRONLY | os.O_CREAT, 0o644)

def test_library_loaded_late_swallowed():
    lib = ctypes.CDLL(os.environ["TF_WRITELIB"])
    lib.tf_write.argtypes = [ctypes.c_char_p]
    assert lib.tf_write(str(ROOT / "lib.txt").encode()) != 0
    assert lib.tf_write(os.path.join(os.environ["TMPDIR"], "ok.txt").encode()) == 0

def test_stdin_is_the_callers():
    assert sys.stdin.read() == "from the caller\n"
EOF2
    run sh -c 'echo "from the caller" | "$0" -m pytest -s -p no:cacheprovider tests/test_c.py' "$PY"
    expect_status 1
    expect_output_has "3 failed, 2 passed"
    for t in test_sqlite_outside_swallowed test_ctypes_libc_swallowed test_library_loaded_late_swallowed; do
        expect_output_has "FAILED tests/test_c.py::$t"
    done
    expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_c.py::test_sqlite_outside_swallowed attempted to write to $P/app.db"
    expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_c.py::test_ctypes_libc_swallowed attempted to write to $P/c.txt"
    expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_c.py::test_library_loaded_late_swallowed attempted to write to $P/lib.txt"
    [ "$(grep -c 'test session starts' <<<"$output")" = 1 ]
    # pytest.main() inside a program: the shim is loaded all the same, nothing runs twice.
    run "$PY" -c 'import sys, pytest; print("program ran"); sys.exit(pytest.main(["tests/test_c.py", "-k", "sqlite"]))'
    [ "$(grep -c 'program ran' <<<"$output")" = 1 ]
    expect_status 1
    expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_c.py::test_sqlite_outside_swallowed attempted to write to $P/app.db"
    if [[ "${LD_PRELOAD:-}" != *libtestfence_preload* ]]; then # (nested: preloaded already)
        run sh -c 'echo "from the caller" | "$0" -m pytest -s --testfence-reexec=always tests/test_c.py' "$PY"
        expect_status 1
        expect_output_has "3 failed, 2 passed"
        expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_c.py::test_sqlite_outside_swallowed attempted to write to $P/app.db"
        [ "$(grep -c 'test session starts' <<<"$output")" = 1 ] # said once: nothing printed before
        run sh -c 'echo "from the caller" | "$0" -m pytest -s --testfence-reexec=off -k "not late" tests/test_c.py' "$PY"
        expect_status 0
        expect_output_has "writes refused in this process that C code makes (sqlite3, coverage's data file) are not reported (--testfence-reexec=off)"
        run "$PY" -c 'import sys, pytest; sys.exit(pytest.main(["--testfence-reexec=always", "tests/test_c.py", "-k", "sqlite"]))'
        expect_status 0
        expect_output_has "not reported (pytest was not started as \`pytest\` or \`python -m pytest\`)"
    fi
    [ ! -e app.db ]
    [ ! -e c.txt ]
    [ ! -e lib.txt ]
    assert_outside_unchanged
}

@test "the shim patched into pytest: an LD_PRELOADed interposer still gets the calls, text relocations load, \$ORIGIN is the caller's, an extension's init is reached" {
    [[ "${LD_PRELOAD:-}" != *libtestfence_preload* ]] || skip "preloaded already: nothing is patched"
    cat >"$BATS_TEST_TMPDIR/interpose.c" <<'EOF2'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/stat.h>
static int calls;
int tf_interposed_calls(void) { return calls; }
int mkdir(const char *p, mode_t m)
{
    int (*real)(const char *, mode_t) = (int (*)(const char *, mode_t))dlsym(RTLD_NEXT, "mkdir");
    calls++;
    return real(p, m);
}
EOF2
    printf '.section .rodata\n.globl tf_table\ntf_table:\n.quad open\n.section .note.GNU-stack,"",@progbits\n' >"$BATS_TEST_TMPDIR/textrel.S"
    cat >"$BATS_TEST_TMPDIR/initwrite.c" <<'EOF2'
#include <Python.h>
#include <fcntl.h>
#include <stdlib.h>
static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "initwrite", NULL, -1, NULL};
PyMODINIT_FUNC PyInit_initwrite(void)
{
    open(getenv("TF_INIT_TARGET"), O_WRONLY | O_CREAT, 0644); /* refused, and swallowed */
    return PyModule_Create(&def);
}
EOF2
    inc=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
    suffix=$("$PY" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
    mkdir "$BATS_TEST_TMPDIR/ext"
    cc -shared -fPIC -o "$BATS_TEST_TMPDIR/interpose.so" "$BATS_TEST_TMPDIR/interpose.c" -ldl
    cc -shared -fPIC -o "$BATS_TEST_TMPDIR/textrel.so" "$BATS_TEST_TMPDIR/textrel.S" -Wl,-z,notext
    cc -shared -fPIC -I"$inc" -o "$BATS_TEST_TMPDIR/ext/initwrite$suffix" "$BATS_TEST_TMPDIR/initwrite.c"
    cat >tests/test_patch.py <<'EOF2'
import ctypes, os, sys

def test_interposer_still_called(tmp_path):
    calls = ctypes.CDLL(None).tf_interposed_calls
    before = calls()
    os.mkdir(tmp_path / "d")
    assert calls() == before + 1

def test_textrel_library_loads():
    ctypes.CDLL(os.environ["TF_TEXTREL"])

def test_origin_is_the_callers():
    import _ctypes  # $ORIGIN in what ctypes loads is _ctypes' directory, as without the shim
    here, name = os.path.split(os.path.realpath(_ctypes.__file__))
    ctypes.CDLL("$ORIGIN/../%s/%s" % (os.path.basename(here), name))  # nowhere else

def test_extension_init_swallowed():
    sys.path.insert(0, os.environ["TF_EXT_DIR"])
    import initwrite  # its PyInit_ writes outside
EOF2
    TF_TEXTREL="$BATS_TEST_TMPDIR/textrel.so" TF_EXT_DIR="$BATS_TEST_TMPDIR/ext" TF_INIT_TARGET="$P/init.txt" \
        LD_PRELOAD="$BATS_TEST_TMPDIR/interpose.so" run "$PY" -m pytest -p no:cacheprovider tests/test_patch.py
    expect_status 1
    expect_output_has "1 failed, 3 passed"
    expect_output_has "FAILED tests/test_patch.py::test_extension_init_swallowed"
    expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_patch.py::test_extension_init_swallowed attempted to write to $P/init.txt"
    [ ! -e init.txt ]
    assert_outside_unchanged
}

@test "a test that plants a module of the standard library's name (or its bytecode) fails the run; one imported before the fence is refused" {
    cat >tests/test_stdlib_plant.py <<'EOF'
from pathlib import Path

HERE = Path(__file__).parent

def test_plants_argparse():
    (HERE / "argparse.py").write_text(
        "import os, sysconfig\n"
        "exec(compile(open(os.path.join(sysconfig.get_paths()['stdlib'], 'argparse.py')).read(),"
        " 'argparse', 'exec'))\n")

def test_plants_bytecode():
    (HERE / "inspect.pyc").write_bytes(b"")

def test_writes_a_helper_module():
    (HERE / "generated_helper.py").write_text("x = 1\n")  # no module's name: fine
EOF
    run $PY -m pytest tests/test_stdlib_plant.py
    expect_status 120
    expect_output_has "3 passed"
    expect_output_has "testfence: the tests left 2 hazards in the writable set"
    expect_output_has "$P/tests/argparse.py is a module inside the writable set: a Python started there would import it instead of the real argparse"
    expect_output_has "$P/tests/inspect.pyc is a module inside the writable set: a Python started there would import it instead of the real inspect"
    [[ "$output" != *generated_helper* ]]
    expect_output_has "(this run made it: moved to $P/tests/artifacts/_isolation_workspace_"
    [ ! -e tests/argparse.py ]
    [ ! -e tests/inspect.pyc ]
    [ -e tests/generated_helper.py ]
    # Put back by hand, the next pytest started in tests/ imports it before any plugin: the
    # fence then refuses to start (what ran cannot be undone; the planting run said it).
    mv tests/artifacts/_isolation_workspace_*/quarantine/*argparse.py tests/argparse.py
    cd tests
    run $PY -m pytest -p testfence test_stdlib_plant.py
    cd ..
    expect_status 4
    expect_output_has "testfence: argparse was imported from $P/tests/argparse.py, inside the writable set, before the fence"
    # A link to it from a directory outside: judged where it leads, not by its directory.
    mkdir "$BATS_TEST_TMPDIR/outside"
    ln -s "$P/tests/argparse.py" "$BATS_TEST_TMPDIR/outside/argparse.py"
    PYTHONPATH="$BATS_TEST_TMPDIR/outside${PYTHONPATH:+:$PYTHONPATH}" run $PY -m pytest -p testfence tests/test_stdlib_plant.py
    expect_status 4
    expect_output_has "testfence: argparse was imported from $BATS_TEST_TMPDIR/outside/argparse.py, inside the writable set, before the fence"
    # From a zip archive in tests/ (no file of its own: judged where the archive is).
    rm tests/argparse.py
    (cd tests && $PY -c 'import os, sysconfig, zipfile; src = open(os.path.join(sysconfig.get_paths()["stdlib"], "argparse.py")).read(); zipfile.ZipFile("mods.zip", "w").writestr("argparse.py", src)')
    PYTHONPATH="$P/tests/mods.zip${PYTHONPATH:+:$PYTHONPATH}" run $PY -m pytest -p testfence tests/test_stdlib_plant.py
    expect_status 4
    expect_output_has "testfence: argparse was imported from $P/tests/mods.zip/argparse.py, inside the writable set, before the fence"
    rm tests/mods.zip
    assert_outside_unchanged
}

@test "as nobody: the ioctl, the C-level write and the planted module are refused, reported, and the run fails; unfenced they all succeed" {
    command -v chattr >/dev/null || skip "no chattr (e2fsprogs)"
    reachable_by_others # nobody must reach the project
    cat >tests/test_nobody.py <<'EOF'
import array, fcntl, os, sqlite3, subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FS_IOC_GETFLAGS, FS_IOC_SETFLAGS, FS_NOATIME_FL = 0x80086601, 0x40086602, 0x80

def test_setflags_in_process():
    fd = os.open(ROOT / "config.toml", os.O_RDONLY)
    try:
        buf = array.array("l", [0])
        fcntl.ioctl(fd, FS_IOC_GETFLAGS, buf, True)
        buf[0] |= FS_NOATIME_FL
        fcntl.ioctl(fd, FS_IOC_SETFLAGS, buf)
    finally:
        os.close(fd)

def test_chattr_in_a_child():
    subprocess.run(["chattr", "+A", str(ROOT / "presets.toml")])

def test_sqlite_outside_swallowed():
    try:
        sqlite3.connect(str(ROOT / "app.db")).execute("create table t(x)")
    except sqlite3.OperationalError:
        pass

def test_plants_a_module():
    (ROOT / "tests" / "pluggy.py").write_text("")
EOF
    chown -R nobody "$P"
    mkdir -m 1777 "$BATS_TEST_TMPDIR/tmp" # a temp dir nobody can write (an outer run's is root's)
    local as=(setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/nonexistent
        TMPDIR="$BATS_TEST_TMPDIR/tmp")
    # Control: unfenced, nobody changes every one of them.
    cp -a "$P" "$BATS_TEST_TMPDIR/ctl"
    (cd "$BATS_TEST_TMPDIR/ctl" && "${as[@]}" "$PY" -m pytest -p no:cacheprovider --testfence=off tests/test_nobody.py >/dev/null 2>&1) || true
    [ -e "$BATS_TEST_TMPDIR/ctl/app.db" ]
    [ -e "$BATS_TEST_TMPDIR/ctl/tests/pluggy.py" ]
    lsattr "$BATS_TEST_TMPDIR/ctl/config.toml" | grep -q '^-*A'
    lsattr "$BATS_TEST_TMPDIR/ctl/presets.toml" | grep -q '^-*A'
    fingerprint_meta >"$BATS_TEST_TMPDIR/before"
    run "${as[@]}" "$PY" -m pytest tests/test_nobody.py
    expect_status 1
    expect_output_has "3 failed, 1 passed"
    for t in test_setflags_in_process test_chattr_in_a_child test_sqlite_outside_swallowed; do
        expect_output_has "FAILED tests/test_nobody.py::$t"
    done
    expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_nobody.py::test_sqlite_outside_swallowed attempted to write to $P/app.db"
    expect_output_has "the tests left 1 hazard in the writable set"
    fingerprint_meta >"$BATS_TEST_TMPDIR/after"
    diff -u "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
}

@test "a write refused at exit (a test's atexit handler) is reported after the summary, and report.json says 120" {
    cat >tests/test_atexit.py <<'EOF'
import atexit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

def _late():
    try:
        (ROOT / "config.toml").write_text("clobbered at exit")
    except OSError:
        pass

def test_registers_a_late_write():
    atexit.register(_late)
EOF
    run $PY -m pytest tests/test_atexit.py
    expect_status 0 # settled before exit handlers run: changing it would skip the ones due
    expect_output_has "1 passed"
    expect_output_has "testfence: 1 more write outside the writable set was blocked after the tests ended (at exit; the exit status stays 0, report.json says 120)"
    expect_output_has "$P/config.toml"
    grep -q '"blocked": 1,' tests/artifacts/_isolation_workspace_*/report.json
    grep -q '"status": 120' tests/artifacts/_isolation_workspace_*/report.json
    assert_outside_unchanged
}

@test "the exit handlers of plugins loaded after testfence keep automatic garbage collection; a cycle's __del__ still runs at exit" {
    # With the hook added by sys.addaudithook (forced here: on CPython 3.11+ it sits behind the
    # library's filter, and nothing is turned off), testfence's exit handler turns automatic
    # collection off (the hook's call at exit would set one off). A plugin loaded after
    # testfence (-p gcprobe after addopts' -p testfence) runs its handler before, with
    # collection as it was; one registered before testfence loaded (sitecustomize) runs after.
    mkdir "$BATS_TEST_TMPDIR/probe"
    cat >"$BATS_TEST_TMPDIR/probe/sitecustomize.py" <<'EOF'
import atexit
import gc
import os

atexit.register(lambda: os.write(1, b"first: automatic collection at exit: %s\n"
                                 % str(gc.isenabled()).encode()))
EOF
    cat >"$BATS_TEST_TMPDIR/probe/gcprobe.py" <<'EOF'
import atexit
import gc
import os

import _testfence.audithook

_testfence.audithook.add_filtered = lambda *args: False  # the hook in Python, as on 3.9/3.10


class Cycle:
    def __del__(self, write=os.write):
        write(1, b"gcprobe: a cycle's __del__ ran at exit\n")


def _at_exit():
    os.write(1, b"gcprobe: automatic collection at exit: %s\n" % str(gc.isenabled()).encode())
    c = Cycle()
    c.self = c


atexit.register(_at_exit)
EOF
    printf 'def test_ok():\n    pass\n' >tests/test_ok.py
    PYTHONPATH="$BATS_TEST_TMPDIR/probe:$PYTHONPATH" run $PY -m pytest -p gcprobe tests/test_ok.py
    expect_status 0
    expect_output_has "gcprobe: automatic collection at exit: True"
    expect_output_has "gcprobe: a cycle's __del__ ran at exit"
    expect_output_has "first: automatic collection at exit: False"
    PYTHONPATH="$BATS_TEST_TMPDIR/probe:$PYTHONPATH" run $PY -m pytest -p no:cacheprovider -p gcprobe --testfence=off tests/test_ok.py
    expect_status 0
    expect_output_has "gcprobe: automatic collection at exit: True" # no hook: nothing changed
    expect_output_has "first: automatic collection at exit: True"
    assert_outside_unchanged
}

@test "after the exit handlers, the audit hook reaches no pytest object (it would keep pytest's session to the interpreter's end)" {
    # CPython (or the library's filter) holds the hook to the very end, and with it all its
    # module reaches. A handler registered before testfence loaded (sitecustomize) runs after
    # testfence's: it walks what the hook references, leaving out what the interpreter holds
    # anyway (sys, builtins): what is left is what the hook alone keeps alive.
    mkdir "$BATS_TEST_TMPDIR/probe"
    cat >"$BATS_TEST_TMPDIR/probe/sitecustomize.py" <<'EOF'
import atexit
import builtins
import gc
import os
import sys


def _reached():
    hook = sys.modules["_testfence.audithook"]._audit
    cut = {id(sys), id(sys.modules), id(sys.__dict__), id(builtins), id(builtins.__dict__)}
    seen, todo = set(cut), [hook]
    while todo:
        o = todo.pop()
        if id(o) in seen:
            continue
        seen.add(id(o))
        if type(o).__module__.startswith("_pytest."):
            return type(o).__module__ + "." + type(o).__qualname__
        todo.extend(gc.get_referents(o))
    return "nothing of pytest's"


atexit.register(lambda: os.write(1, b"the hook reaches: %s\n" % _reached().encode()))
EOF
    printf 'def test_ok(pytestconfig):\n    pass\n' >tests/test_ok.py
    PYTHONPATH="$BATS_TEST_TMPDIR/probe:$PYTHONPATH" run $PY -m pytest tests/test_ok.py
    expect_status 0
    expect_output_has "the hook reaches: nothing of pytest's"
    assert_outside_unchanged
}

@test "a test that runs the exit handlers early (atexit._run_exitfuncs) leaves the run's end as it was: summary, status, quarantine, late writes" {
    # Real conftests do this after every test. The plugin's own exit handlers run then too;
    # the run must still be told apart from another pytest's at its end.
    cat >tests/test_exitfuncs.py <<'EOF'
import atexit
from pathlib import Path


def test_plants_a_module():
    (Path(__file__).parent / "testfence.py").write_text("")


def test_swallows_a_blocked_write():
    try:
        (Path(__file__).parent.parent / "config.toml").write_text("clobbered")
    except PermissionError:
        pass


def _late():
    try:
        (Path(__file__).parent.parent / "personas.toml").write_text("clobbered at exit")
    except OSError:
        pass


def test_runs_the_exit_handlers_then_registers_a_late_write():
    atexit._run_exitfuncs()
    atexit.register(_late)  # in the same phase: still runs before the plugin's
EOF
    run $PY -m pytest tests/test_exitfuncs.py
    expect_status 1 # the swallowed write fails its test
    expect_output_has "FAILED tests/test_exitfuncs.py::test_swallows_a_blocked_write"
    expect_output_has "testfence: 1 write outside the writable set was blocked"
    expect_output_has "$P/tests/testfence.py is a module inside the writable set"
    expect_output_has "(this run made it: moved to $P/tests/artifacts/_isolation_workspace_"
    [ ! -e tests/testfence.py ]
    # The plugin's own exit handlers, run early by the test, still run at the real exit: the
    # write refused there is said and counted.
    expect_output_has "testfence: 1 more write outside the writable set was blocked after the tests ended"
    expect_output_has "$P/personas.toml"
    grep -q '"blocked": 2,' tests/artifacts/_isolation_workspace_*/report.json
    assert_outside_unchanged
}

@test "exit handlers run early by a conftest's hook after the last test still run at the real exit: the run's temp dir is emptied" {
    export TMPDIR="$BATS_TEST_TMPDIR/tmpbase"
    mkdir -p "$TMPDIR"
    printf 'import atexit\n\ndef pytest_sessionfinish(session):\n    atexit._run_exitfuncs()\n' >tests/conftest.py
    printf 'import os\nfrom pathlib import Path\n\ndef test_writes_a_temp_file():\n    Path(__file__).with_name("tmpdir.txt").write_text(os.environ["TMPDIR"])\n    Path(os.environ["TMPDIR"], "f.txt").write_text("x")\n' >tests/test_tmp.py
    run $PY -m pytest tests/test_tmp.py
    expect_status 0
    tmp=$(cat tests/tmpdir.txt)
    [ -d "$tmp" ]
    [ -z "$(ls -A "$tmp")" ] || { ls -la "$tmp" >&2; return 1; }
    assert_outside_unchanged
}

@test "the library's fence probe directory is never collected, whatever norecursedirs says" {
    # A pytest-xdist worker probes whether it is fenced with a directory it makes in the
    # writable set for an instant; another worker collecting then must not look into it.
    mkdir -p tests/sub/.testfence-probe-Ab12Cd
    printf 'def test_not_mine():\n    assert False\n' >tests/sub/.testfence-probe-Ab12Cd/test_probe.py
    printf 'def test_ok():\n    pass\n' >tests/sub/test_ok.py
    run $PY -m pytest -o norecursedirs=build tests/sub
    expect_status 0
    expect_output_has "1 passed"
    expect_output_lacks "test_not_mine"
    rm -r tests/sub
    assert_outside_unchanged
}

@test "exit handlers run early by a conftest, then a usage error: the plugin's still run at the real exit (the failed start's temp dir is marked)" {
    export TMPDIR="$BATS_TEST_TMPDIR/tmpbase"
    mkdir -p "$TMPDIR"
    printf 'import atexit\n\natexit._run_exitfuncs()\n' >tests/conftest.py
    run $PY -m pytest --no-such-option tests
    expect_status 4
    expect_output_has "unrecognized arguments: --no-such-option"
    # The run's temp dir, made before pytest refused the option, was ended at exit as a
    # failed run's: marked to be kept (pruned later among the newest few).
    [ "$(find "$TMPDIR" -mindepth 3 -maxdepth 3 -name .testfence-failed | wc -l)" -eq 1 ]
    assert_outside_unchanged
}

@test "the run's temp dir is emptied at exit, never through a link; kept when the run failed; --testfence-keep-tmp keeps it" {
    # A temp base of the test's own: a kept dir would otherwise stay in the machine's /tmp.
    export TMPDIR="$BATS_TEST_TMPDIR/tmpbase"
    mkdir -p "$TMPDIR"
    cat >tests/test_tmp.py <<'EOF'
import os
from pathlib import Path

def test_writes_temp_files(tmp_path):
    Path(__file__).with_name("tmpdir.txt").write_text(os.environ["TMPDIR"])
    (tmp_path / "deep" / "er").mkdir(parents=True)
    (tmp_path / "deep" / "er" / "f.txt").write_text("x")
    # A link to a file outside: emptying removes the link, never what it names.
    os.symlink(Path(__file__).resolve().parent.parent / "config.toml", Path(os.environ["TMPDIR"]) / "out")
EOF
    run $PY -m pytest tests/test_tmp.py
    expect_status 0
    tmp=$(cat tests/tmpdir.txt)
    [ -d "$tmp" ]
    [ -z "$(ls -A "$tmp")" ] || { ls -laR "$tmp" >&2; return 1; }
    [ -f config.toml ]
    assert_outside_unchanged
    run $PY -m pytest --testfence-keep-tmp tests/test_tmp.py
    expect_status 0
    expect_output_has "testfence: kept the run's temp dir"
    tmp=$(cat tests/tmpdir.txt)
    [ -e "$tmp/.testfence-keep" ]
    [ -n "$(find "$tmp" -name f.txt)" ]
    # A failed run keeps it to look at, as pytest keeps a failed test's tmp_path.
    printf 'def test_fails(tmp_path):\n    assert not tmp_path.exists()\n' >tests/test_fails.py
    run $PY -m pytest tests/test_tmp.py tests/test_fails.py
    expect_status 1
    tmp=$(cat tests/tmpdir.txt)
    expect_output_has "tmp_path = PosixPath('$tmp/" # where, as pytest shows it
    expect_output_lacks "kept"
    [ -e "$tmp/.testfence-failed" ]
    [ -n "$(find "$tmp" -name f.txt)" ]
    run $PY -m pytest --testfence-no-keep-tmp tests/test_tmp.py tests/test_fails.py
    expect_status 1
    expect_output_lacks "kept"
    [ -z "$(ls -A "$(cat tests/tmpdir.txt)")" ]
    assert_outside_unchanged
}

@test "old runs beyond retain are pruned at the end, not before the tests start" {
    cat >tests/test_count.py <<'EOF'
from pathlib import Path

def test_counts_runs():
    here = Path(__file__).parent
    n = sum(1 for p in (here / "artifacts").iterdir() if p.name.startswith("_isolation_workspace_"))
    (here / "seen.txt").write_text(str(n))
EOF
    local i
    for i in 1 2 3 4; do # retain = 3 in the example's pyproject.toml
        run $PY -m pytest -p no:cacheprovider tests/test_count.py
        expect_status 0
    done
    [ "$(cat tests/seen.txt)" -eq 4 ] # the oldest was still there while the tests ran
    [ "$(ls -d tests/artifacts/_isolation_workspace_*/ | wc -l)" -eq 3 ]
    assert_outside_unchanged
}

@test "the temp dirs of earlier runs are pruned before the fence: a clean run stays clean" {
    # Failed runs' temp dirs beyond the newest three go; they lie outside this run's writable
    # set, so pruning them after the fence would be refused and reported (ci7's self-test).
    export TMPDIR="$BATS_TEST_TMPDIR/tmpbase"
    local user="$TMPDIR/testfence-$(id -u)" id
    for id in 20200101T000000Z-0000001 20200102T000000Z-0000001 20200103T000000Z-0000001 \
        20200104T000000Z-0000001 20200105T000000Z-0000001; do
        mkdir -p "$user/$id" && touch "$user/$id/.testfence-failed"
    done
    chmod 0711 "$user"
    run $PY -m pytest tests/test_settings.py -k tmp_path
    expect_status 0
    expect_output_lacks "TEST_SANDBOX_VIOLATION"
    [ ! -e "$user/20200101T000000Z-0000001" ]
    [ ! -e "$user/20200102T000000Z-0000001" ]
    [ -e "$user/20200105T000000Z-0000001" ]
}

@test "TESTFENCE_WORKSPACE in the environment does not make the plugin stand aside" {
    printf 'from pathlib import Path\ndef test_clobber():\n    Path("config.toml").write_text("clobbered")\n' >tests/test_env.py
    TESTFENCE_WORKSPACE="$P/tests" run $PY -m pytest tests/test_env.py
    expect_status 1
    expect_output_has "TESTFENCE_WORKSPACE is set ($P/tests), but this process is not fenced"
    expect_output_has "testfence: fenced (Landlock ABI"
    # The joining route too: a worker of a fenced pytest is believed only when it is fenced.
    ws=$(ls -d tests/artifacts/_isolation_workspace_*/ | head -1)
    TESTFENCE_WORKSPACE="${ws%/}" TESTFENCE_PLUGIN="${ws%/}" run $PY -m pytest tests/test_env.py
    expect_status 1
    expect_output_has "but this process is not fenced"
    [ "$(cat config.toml)" != clobbered ]
    assert_outside_unchanged
}

@test "pytest configuration inside the writable set: a note of doctor's; turning the plugin off from there is refused" {
    printf '[pytest]\n' >tests/pytest.ini
    run "$TESTFENCE" run -- true
    expect_status 0
    expect_output_lacks "pytest.ini" # a project's own (rich's) is no warning at every run
    run $PY -m pytest -p testfence tests/test_swallow.py
    expect_status 1
    expect_output_lacks "pytest configuration inside the writable set"
    expect_output_lacks "warning"
    run "$TESTFENCE" doctor
    expect_output_has "note:      $P/tests/pytest.ini is pytest configuration inside the writable set"
    # What a test can write there to switch the plugin off for the next pytest.
    printf '[pytest]\naddopts = -p no:testfence\n' >tests/pytest.ini
    run "$TESTFENCE" run -- true
    expect_status 0
    expect_output_has "warning: $P/tests/pytest.ini turns the testfence plugin off"
    run $PY -m pytest
    expect_status 4
    expect_output_has "$P/tests/pytest.ini turns the testfence plugin off, from inside the writable set"
    printf '[pytest]\naddopts = --testfence=off\n' >tests/pytest.ini
    run $PY -m pytest -p testfence tests/test_swallow.py
    expect_status 4
    expect_output_has "testfence: $P/tests/pytest.ini turns the plugin off (--testfence=off), from inside the writable set"
    # What a test can write there to widen the next plugin run's fence, or quiet it.
    for opt in "--testfence-allow=$P" "--testfence-output=$P/config.toml" "--testfence-reexec=off"; do
        printf '[pytest]\naddopts = %s\n' "$opt" >tests/pytest.ini
        run $PY -m pytest -p testfence -q tests/test_swallow.py
        expect_status 4
        expect_output_has "testfence: $P/tests/pytest.ini gives the plugin options (--testfence-...) from inside the writable set"
        run "$TESTFENCE" run -- true
        expect_status 0
        expect_output_has "warning: $P/tests/pytest.ini gives the testfence plugin options from inside the writable set"
    done
    rm tests/pytest.ini
    printf 'def pytest_configure(config):\n    config.pluginmanager.set_blocked("testfence")\n' >tests/conftest.py
    run $PY -m pytest
    expect_status 4
    expect_output_has "$P/tests/conftest.py turns the testfence plugin off"
    assert_outside_unchanged
}

@test "under testfence run: the plugin does nothing, no second workspace" {
    run "$TESTFENCE" run -- $PY -m pytest
    expect_status 1
    expect_output_has "already fenced by \`testfence run\`"
    expect_output_has "FAILED tests/test_settings.py::test_credentials_reset"
    [ "$(ls -d tests/artifacts/_isolation_workspace_*/ | wc -l)" -eq 1 ]
    assert_outside_unchanged
}

@test "no Landlock, the kernel backend asked for: pytest stops with the reason, nothing runs" {
    # Not asked for, the python backend fences instead (tests/lib/pybackend.bats).
    run "$TF_NOLANDLOCK" $PY -m pytest --testfence-backend=kernel
    expect_status 4
    expect_output_has "ERROR: testfence: cannot enforce the fence: the kernel has no Landlock"
    expect_output_has "--testfence=off"
    expect_output_has "--testfence-backend=python"
    [ ! -e tests/artifacts ]
    assert_outside_unchanged
}

@test "a config error: pytest stops with the file:line:col message, exit 4" {
    printf 'retain = "three"\n' >testfence.toml
    fingerprint >"$BATS_TEST_TMPDIR/before"
    run $PY -m pytest
    expect_status 4
    expect_output_has "ERROR: testfence: $P/testfence.toml:1:"
    expect_output_has "retain"
    assert_outside_unchanged
}

@test "--testfence=off: runs unfenced, loudly" {
    run $PY -m pytest --testfence=off tests/test_swallow.py
    expect_status 0
    expect_output_has "testfence: WARNING: --testfence=off: NOTHING IS FENCED"
    expect_output_has "testfence: OFF"
    [ "$(cat presets.toml)" = clobbered ]
}

# entry_point_site DIR: a site dir whose dist-info gives the plugin a pytest11 entry point and
# a RECORD naming its files as pip's and make install's do (pytest reads it to mark packages
# for assertion rewriting); the plugin's code stays where PYTHONPATH has it. Prints DIR, or
# nothing with TF_PLUGIN_PYTHON, whose venv has the wheel's own.
entry_point_site() {
    [ -z "${TF_PLUGIN_PYTHON:-}" ] || return 0
    local info="$1/testfence_ep-0.dist-info"
    mkdir -p "$info"
    printf 'Metadata-Version: 2.1\nName: testfence-ep\nVersion: 0\n' >"$info/METADATA"
    printf '[pytest11]\ntestfence = testfence\n' >"$info/entry_points.txt"
    printf 'testfence.py,,\n_testfence/__init__.py,,\n_testfence/hooks.py,,\n' >"$info/RECORD"
    echo "$1"
}

# others_blocked: "-p no:NAME" for each pytest plugin this Python would autoload but
# testfence: a case about autoloading loads no plugin of the machine's.
others_blocked() {
    $PY -c 'import importlib.metadata as m
names = sorted({e.name for e in m.entry_points(group="pytest11")} - {"testfence"})
print(" ".join("-p no:" + n for n in names))'
}

@test "installed, loaded by its entry point: a project never set up (no tests/, no config) is left alone; one that asks for it fails closed" {
    local site proj="$BATS_TEST_TMPDIR/testlayout" others
    site=$(entry_point_site "$BATS_TEST_TMPDIR/site")
    mkdir -p "$proj/test"
    printf '[project]\nname = "x"\n' >"$proj/pyproject.toml"
    printf 'def test_a():\n    assert True\n' >"$proj/test/test_a.py"
    cd "$proj"
    # This case is about autoloading: pytest loads entry points (the machine's blocked).
    others=$(PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" others_blocked)
    PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" run env -u PYTEST_DISABLE_PLUGIN_AUTOLOAD $PY -m pytest -p no:cacheprovider $others test
    expect_status 0
    expect_output_has "testfence: installed, not enabled here: this project has no tests/ directory and no testfence configuration"
    expect_output_has "1 passed"
    [ "$(grep -c '^testfence: ' <<<"$output")" -eq 1 ] # one line, nothing else
    [ ! -e tests ]
    [ ! -e test/artifacts ]
    # Asked for by name: the same project is an error, as before.
    PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" run env -u PYTEST_DISABLE_PLUGIN_AUTOLOAD $PY -m pytest -p no:cacheprovider $others -p testfence test
    expect_status 4
    expect_output_has "this project keeps its tests in test/"
    # Set up for testfence (a configuration), the missing tests/ is an error too.
    printf '[tool.testfence]\nretain = 2\n' >>pyproject.toml
    PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" run env -u PYTEST_DISABLE_PLUGIN_AUTOLOAD $PY -m pytest -p no:cacheprovider $others test
    expect_status 4
    expect_output_has "writable path $proj/tests cannot be used"
}

@test "installed: pytest leaves the plugin's package unrewritten, and a pytest inside a test does not warn about it" {
    local site
    site=$(entry_point_site "$BATS_TEST_TMPDIR/site")
    sed -i '/addopts = "-p testfence"/d' pyproject.toml
    mkdir -p tests/inner
    printf 'def test_in():\n    assert 1\n' >tests/inner/check_in.py
    cat >tests/test_rewrite.py <<'EOF'
import os
import sys

import pytest


def test_the_package_is_not_rewritten():
    for name in ("_testfence.hooks", "_testfence.startup", "_testfence.native"):
        assert type(sys.modules[name].__loader__).__name__ != "AssertionRewritingHook", name


def test_a_pytest_inside_does_not_warn(capsys):
    inner = os.path.join(os.path.dirname(__file__), "inner", "check_in.py")
    others = os.environ["TF_OTHERS_BLOCKED"].split()
    assert pytest.main(["-q", "-p", "no:cacheprovider"] + others + [inner]) == 0
    assert "cannot be rewritten: _testfence" not in capsys.readouterr().out
EOF
    fingerprint >"$BATS_TEST_TMPDIR/before"
    # This case is about autoloading: pytest loads entry points (the machine's blocked, here
    # and in the pytest inside).
    export TF_OTHERS_BLOCKED
    TF_OTHERS_BLOCKED=$(PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" others_blocked)
    PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" run env -u PYTEST_DISABLE_PLUGIN_AUTOLOAD \
        $PY -m pytest -p no:cacheprovider $TF_OTHERS_BLOCKED tests/test_rewrite.py
    expect_status 0
    expect_output_has "testfence: fenced (Landlock ABI"
    expect_output_has "2 passed"
    assert_outside_unchanged
}

@test "install: DESTDIR tree, pkg-config, and pytest loads the plugin by its entry point" {
    BIN=$(dirname "$TESTFENCE")
    [ -z "${TF_PLUGIN_PYTHON:-}" ] || skip "the cmake install, not the wheel's"
    if [ -n "$OUTER_RUN_ID" ]; then
        # Rightly so: cmake --install writes install_manifest.txt into the build dir.
        skip "under testfence run: cmake --install writes into the build dir, outside tests/"
    fi
    DESTDIR="$BATS_TEST_TMPDIR/root" run cmake --install "$BIN" --prefix /opt/tf
    expect_status 0
    R="$BATS_TEST_TMPDIR/root/opt/tf"
    [ -e "$R/include/testfence.h" ]
    [ -e "$R/lib/testfence/libtestfence_preload.so" ]
    site=$(dirname "$(ls "$R"/lib/python3*/dist-packages/testfence.py)")
    ls "$site"/testfence-*.dist-info/entry_points.txt
    # pip can uninstall it: its RECORD lists the plugin.
    grep -qx 'testfence.py,,' "$site"/testfence-*.dist-info/RECORD
    grep -qx '_testfence/hooks.py,,' "$site"/testfence-*.dist-info/RECORD
    [ -e "$site/_testfence/_native.abi3.so" ] # the compiled binding, recorded too
    grep -qx '_testfence/_native.abi3.so,,' "$site"/testfence-*.dist-info/RECORD
    # A C program builds against the installed header and library through pkg-config.
    printf '#include <testfence.h>\nint main(void)\n{\n    tf_session *s = tf_open();\n    int ok = tf_load(s, "%s", NULL, NULL, 0) == 0 && tf_api_version() == TF_API_VERSION;\n    tf_close(s);\n    return !ok;\n}\n' "$P" >"$BATS_TEST_TMPDIR/use.c"
    flags=$(PKG_CONFIG_PATH="$R/lib/pkgconfig" pkg-config --cflags --libs testfence)
    cc -std=c17 -Wall -Wextra -Werror -o "$BATS_TEST_TMPDIR/use" "$BATS_TEST_TMPDIR/use.c" $flags
    LD_LIBRARY_PATH="$R/lib" "$BATS_TEST_TMPDIR/use"
    # No -p, no TESTFENCE_LIBRARY: the entry point loads it, it finds the library.
    sed -i '/addopts = "-p testfence"/d' pyproject.toml
    fingerprint >"$BATS_TEST_TMPDIR/before"
    unset TESTFENCE_LIBRARY
    # This one case is about autoloading: pytest loads entry points (the machine's blocked).
    others=$(PYTHONPATH="$site" others_blocked)
    PYTHONPATH="$site" run env -u PYTEST_DISABLE_PLUGIN_AUTOLOAD $PY -m pytest $others tests/test_swallow.py
    expect_status 1
    expect_output_has "testfence: fenced (Landlock ABI"
    expect_output_has "FAILED tests/test_swallow.py::test_swallows_the_error"
    assert_outside_unchanged
}
