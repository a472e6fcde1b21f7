#!/usr/bin/env bats
# The macOS source set built on Linux (`make macos-posix`: build-macos-posix/, cmake
# -DTESTFENCE_MACOS_SET=ON, clang -Werror; docs/platforms.md): the files a Mac builds
# libtestfence.dylib from, with src/macos/darwin.c's macOS-only primitives on their Linux
# stand-ins (F_GETPATH by /proc/self/fd). Its library drives the plugin's python backend as
# a Mac's would: the careless example of tests/lib/pybackend.bats gives the kernel backend's
# failed and passed tests and violations (children aside: there is no shim there), the
# start-up, the redirects, the choice of backend and pytest-xdist's workers are
# pybackend.bats' cases; its resolver answers as Linux's for every path below; its unit test
# (tests/platforms/test_macos_path.c) passes. Skips, saying why, when the set is not built.

load ../support/helpers

MAC="${TF_MACOS_BUILD:-$TESTFENCE_SRC/build-macos-posix}"
MACLIB="$MAC/libtestfence.so"
LINUXLIB="$(dirname "$TESTFENCE")/libtestfence.so"
PY=/usr/bin/python3
# The child-process cases of the example: a shell's write is fenced by the shim on Linux, by
# nothing on macOS (its own test below).
CHILDREN=(--deselect tests/test_settings.py::test_shell_helper_clobbers_config
          --deselect tests/test_swallow.py::test_swallows_a_child_error)

setup() {
    [ -f "$MACLIB" ] || skip "no $MACLIB: run 'make macos-posix' first"
    [ -f "$LINUXLIB" ] || skip "libtestfence.so not built"
    unset TESTFENCE_WORKSPACE TESTFENCE_RUN_ID TESTFENCE_PLUGIN TESTFENCE_PLUGIN_BACKEND \
        PYTEST_ADDOPTS TESTFENCE_SHIM_CONF LD_PRELOAD
    export PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 PYTHONDONTWRITEBYTECODE=1
    export PYTHONPATH="$TESTFENCE_SRC/python" TESTFENCE_LIBRARY="$MACLIB"
    P="$BATS_TEST_TMPDIR/proj"
    cp -r "$TESTFENCE_SRC/examples/clobber" "$P"
    rm -rf "$P/tests/artifacts"
    sed -i 's/^pythonpath = \["."\]$/&\naddopts = "-p testfence"/' "$P/pyproject.toml"
    # pybackend.bats' own tests of the python backend, as there.
    sed -n "/^    cat >\"\$P\/tests\/test_swallow.py\" <<'PY'$/,/^PY$/p" \
        "$TESTFENCE_SRC/tests/lib/pybackend.bats" | sed '1d;$d' >"$P/tests/test_swallow.py"
    grep -q "def test_metadata" "$P/tests/test_swallow.py"
    cd "$P" || return 1
    fingerprint >"$BATS_TEST_TMPDIR/before"
}

# outcomes: each test's outcome and each violation's (test, path), sorted (pybackend.bats').
outcomes() {
    {
        grep -E '^(PASSED|FAILED|ERROR|XFAIL|XPASS|SKIPPED) ' <<<"$output" | sed 's/ - .*//'
        grep -oE 'TEST_SANDBOX_VIOLATION: [^ ]+ attempted to write to [^ ]+' <<<"$output"
        grep -E '^  tests/[^ ]+: [0-9]+ blocked write' <<<"$output"
    } | sort -u
}

@test "macOS set: the careless example gives the kernel backend's outcome, children aside" {
    run env TESTFENCE_LIBRARY="$LINUXLIB" $PY -m pytest -rA -p no:cacheprovider \
        --testfence-backend=kernel "${CHILDREN[@]}"
    expect_status 1
    expect_output_has "testfence: fenced (Landlock ABI"
    local kernel_status=$status
    outcomes >"$BATS_TEST_TMPDIR/kernel"
    assert_outside_unchanged
    rm -rf tests/artifacts
    run $PY -m pytest -rA -p no:cacheprovider --testfence-backend=python "${CHILDREN[@]}"
    expect_status "$kernel_status"
    outcomes >"$BATS_TEST_TMPDIR/macos"
    assert_outside_unchanged
    diff -u "$BATS_TEST_TMPDIR/kernel" "$BATS_TEST_TMPDIR/macos"
    # pybackend.bats' 8 failed, 6 passed and 10 writes, less the two child cases.
    expect_output_has "6 failed, 6 passed, 2 deselected"
    expect_output_has "testfence: 8 writes outside the writable set were blocked"
    expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_swallow.py::test_swallows_the_error attempted to write to $P/presets.toml which is outside $P/tests/. How to fix:"
    expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_swallow.py::test_metadata attempted to write to $P/config.toml"
    expect_output_has "PASSED tests/test_swallow.py::test_makedirs_existing_is_no_write"
    # Each write says its line (issue 32), as the kernel backend's do: a helper's, for its test.
    expect_output_has "      at slop/settings.py:$(grep -n write_text slop/settings.py | cut -d: -f1) in save, from tests/test_settings.py:$(grep -n 'settings.save(ROOT / "config.toml"' tests/test_settings.py | cut -d: -f1)"
    # One header line, saying what macOS's python backend does not cover: every child that is
    # not a Python (the library has no shim); the closing note says the same.
    [ "$(awk '/^platform / {h=1; next} /^(rootdir|collect)/ {h=0} h && /^testfence: /' <<<"$output" | wc -l)" -eq 1 ]
    expect_output_has "testfence: python backend (--testfence-backend=python), WEAKER than the kernel's:"
    expect_output_has "children: child Pythons run the same guard; other child processes are NOT fenced"
    expect_output_has "testfence: WARNING: python backend: the audit hook refused this process's writes and child"
    expect_output_lacks "the shim refuses"
    grep -q '"backend": *"python"' tests/artifacts/_isolation_workspace_*/report.json
    grep -q '"test": *"tests/test_swallow.py::test_swallows_the_error"' tests/artifacts/_isolation_workspace_*/report.json
    # No LD_PRELOAD, no shim configuration in the tests' environment.
    ! grep -q LD_PRELOAD tests/artifacts/_isolation_workspace_*/report.json
}

@test "macOS set: a child shell is not fenced (no shim there), a child Python is (the guard)" {
    cat >tests/test_children.py <<'PY'
import os, subprocess, sys

def test_child_shell_writes_outside():
    subprocess.run(["sh", "-c", "echo x > ../personas.toml"], cwd=os.path.dirname(__file__), check=True)

def test_child_python_writes_outside():
    out = subprocess.run([sys.executable, "-c", "open('config.toml', 'w')"], capture_output=True, text=True)
    assert "PermissionError" in out.stderr
PY
    [ -z "${LD_PRELOAD:-}" ]
    run $PY -m pytest -rA -p no:cacheprovider --testfence-backend=python tests/test_children.py
    expect_status 1
    expect_output_has "PASSED tests/test_children.py::test_child_shell_writes_outside"
    expect_output_has "FAILED tests/test_children.py::test_child_python_writes_outside"
    expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_children.py::test_child_python_writes_outside attempted to write to $P/config.toml"
    # The child Python was told the line that started it (issue 32): its guard's record says it.
    expect_output_has "(at tests/test_children.py:$(grep -n 'sys.executable' tests/test_children.py | cut -d: -f1) in test_child_python_writes_outside)"
    # The documented hole (docs/platforms.md, hole_child_static): the shell's write went through.
    [ "$(cat personas.toml)" = x ]
    grep -q 'theme = "dark"' config.toml
}

@test "macOS set: tests pass but a conftest's import-time write was blocked: exit 120" {
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
    expect_output_has "      at tests/conftest.py:2 in <module>" # the line, not only "outside any test"
    assert_outside_unchanged
}

@test "macOS set: tmp_path, the workspace, the env redirects, names relative to a dir_fd" {
    cat >tests/test_env.py <<'PY'
import os, tempfile

def test_env(tmp_path):
    ws = os.environ["TESTFENCE_WORKSPACE"]
    assert os.environ["SLOP_CREDENTIALS"] == ws + "/credentials.toml"
    assert "LD_PRELOAD" not in os.environ and "TESTFENCE_SHIM_CONF" not in os.environ
    assert str(tmp_path).startswith(os.environ["TMPDIR"])
    assert tempfile.gettempdir() == os.environ["TMPDIR"]
    (tmp_path / "x").write_text("ok")
    with open(os.path.join(ws, "notes.txt"), "w") as f:
        f.write("ok")
    os.makedirs(os.path.join(os.path.dirname(__file__), "made", "deep"))
    fd = os.open(os.path.dirname(__file__), os.O_RDONLY)
    os.close(os.open("at.txt", os.O_WRONLY | os.O_CREAT, dir_fd=fd))
    os.mkdir("at.d", dir_fd=fd)
    os.rename("at.txt", "at2.txt", src_dir_fd=fd, dst_dir_fd=fd)
PY
    run $PY -m pytest -p no:cacheprovider --testfence-backend=python tests/test_env.py
    expect_status 0
    expect_output_has "1 passed"
    [ -f tests/at2.txt ]
    [ -d tests/made/deep ]
    assert_outside_unchanged
}

@test "macOS set: by default the python backend, said in one line; the kernel backend fails closed" {
    run $PY -m pytest -rA -p no:cacheprovider
    expect_status 1
    expect_output_has "testfence: python backend (the kernel cannot fence here: macOS has no kernel fence testfence can use; the plugin's python backend fences there), WEAKER"
    [ "$(awk '/^platform / {h=1; next} /^(rootdir|collect)/ {h=0} h && /^testfence: /' <<<"$output" | wc -l)" -eq 1 ]
    expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_settings.py::test_credentials_reset attempted to write to $P/credentials.toml"
    rm -rf tests/artifacts
    run $PY -m pytest -p no:cacheprovider --testfence-backend=kernel
    expect_status 4
    expect_output_has "cannot enforce the fence: macOS has no kernel fence"
}

@test "macOS set: the backend is chosen on the command line, never by a file the tests can write" {
    printf '[pytest]\naddopts = --testfence-backend=python\n' >tests/pytest.ini
    run $PY -m pytest -p testfence -p no:cacheprovider tests/test_workspace_files.py
    expect_status 4
    expect_output_has "gives the plugin options (--testfence-...) from inside the writable set"
    rm tests/pytest.ini
    assert_outside_unchanged
}

@test "macOS set: pytest -n 2: the workers join the run and refuse as the controller does" {
    $PY -c 'import xdist' 2>/dev/null || skip "pytest-xdist is not installed"
    run $PY -m pytest -rA -p xdist.plugin -n 2 -p no:cacheprovider --testfence-backend=python \
        "${CHILDREN[@]}"
    expect_status 1
    expect_output_has "FAILED tests/test_swallow.py::test_swallows_the_error"
    expect_output_has "FAILED tests/test_settings.py::test_credentials_reset"
    expect_output_has "testfence: 8 writes outside the writable set were blocked"
    [ "$(ls -d tests/artifacts/_isolation_workspace_*/ | wc -l)" -eq 1 ]
    assert_outside_unchanged
}

@test "macOS set: what the run planted is quarantined, as on Linux (birth time, rename without replacing)" {
    cat >tests/test_plant.py <<'PY'
import os
HERE = os.path.dirname(__file__)

def test_plant():
    with open(os.path.join(HERE, "pytest.ini"), "w") as f:
        f.write("[pytest]\naddopts = -p no:testfence\n")
    os.makedirs(os.path.join(HERE, "sitecustomize"))
    open(os.path.join(HERE, "sitecustomize", "__init__.py"), "w").close()
PY
    local q f=${P#/}
    f=${f//\//%}
    for lib in "$LINUXLIB" "$MACLIB"; do
        rm -rf tests/artifacts tests/pytest.ini tests/sitecustomize
        run env TESTFENCE_LIBRARY="$lib" $PY -m pytest -p no:cacheprovider --testfence-backend=python tests/test_plant.py
        expect_status 120
        expect_output_has "the tests left 2 hazards in the writable set"
        q=$(echo tests/artifacts/_isolation_workspace_*/quarantine)
        expect_output_has "(this run made it: moved to $P/$q/$f%tests%sitecustomize, so"
        expect_output_has "(this run made it: moved to $P/$q/$f%tests%pytest.ini, so"
        [ -f "$q/$f%tests%sitecustomize/__init__.py" ]
        [ ! -e tests/pytest.ini ]
    done
    assert_outside_unchanged
}

@test "macOS set: run and doctor fall back, loudly, to the plugin's guard without sandbox-exec; a pytest inside joins the run" {
    [ -x "$MAC/testfence" ] || skip "no $MAC/testfence"
    # Linux has no /usr/bin/sandbox-exec: sbrun.c's probe fails as it does inside another
    # sandbox on a Mac, and the run falls back (docs/platforms.md). The Seatbelt run itself
    # is the workflow's.
    run "$MAC/testfence" doctor
    expect_status 1
    expect_output_has "system:    macOS"
    expect_output_has "verdict:   testfence run would fall back to the plugin's guard here"
    run "$MAC/testfence" run -- $PY -m pytest -rA -p testfence -p no:cacheprovider "${CHILDREN[@]}"
    expect_status 1
    expect_output_has "falling back to the plugin's guard: only a pytest with the testfence plugin is fenced"
    expect_output_has "testfence: joined the run $P/tests/artifacts/_isolation_workspace_"
    expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_settings.py::test_credentials_reset attempted to write to $P/credentials.toml"
    expect_output_has "6 failed, 6 passed, 2 deselected"
    [ "$(ls -d tests/artifacts/_isolation_workspace_*/ | wc -l)" -eq 1 ]
    grep -q '"test": *"tests/test_swallow.py::test_swallows_the_error"' tests/artifacts/_isolation_workspace_*/report.json
    assert_outside_unchanged
    # Without a pytest, nothing is fenced: the fallback says so, and the write goes through.
    run "$MAC/testfence" run -- sh -c 'echo x > personas.toml'
    expect_status 0
    expect_output_has "other processes are NOT"
    [ "$(cat personas.toml)" = x ]
}

@test "macOS set: its resolver says what Linux's says of links, '..', missing and odd paths" {
    mkdir -p tests/sub/deeper other
    touch tests/sub/file other/f
    ln -s .. tests/up
    ln -s ../config.toml tests/dangling_out # config.toml exists: not dangling
    ln -s ../nowhere.toml tests/dangling
    ln -s sub tests/alias
    ln -s "$P/other" tests/abs
    ln -s sub/../../other tests/dotdot
    ln -s up/tests/sub tests/viaup
    ln -s loop tests/loop
    ln -s sub/file tests/tofile
    ln -s / tests/slash
    local paths="$BATS_TEST_TMPDIR/paths"
    for f in 0 1; do
        for p in tests tests/ tests/sub/file tests/sub/new tests/sub/deeper/../x tests/up \
            tests/up/config.toml tests/up/tests/sub tests/dangling_out tests/dangling \
            tests/alias/file tests/alias/ tests/abs/f tests/abs/../tests/x tests/dotdot \
            tests/dotdot/f tests/viaup/../x tests/viaup/file tests/loop tests/tofile \
            tests/tofile/ tests/sub/file/x tests/missing/deeper/f tests/missing/../x \
            tests/./sub//y tests/slash/etc/passwd config.toml ./x ../x "$P/tests/x" \
            "$P//tests///sub/" /etc/passwd / /.. tests/artifacts/x pyproject.toml tests/..; do
            echo "$f $p"
        done
    done >"$paths"
    env TESTFENCE_LIBRARY="$LINUXLIB" $PY "$TESTFENCE_SRC/tests/platforms/resolve_paths.py" <"$paths" >"$BATS_TEST_TMPDIR/linux"
    $PY "$TESTFENCE_SRC/tests/platforms/resolve_paths.py" <"$paths" >"$BATS_TEST_TMPDIR/macos"
    diff -u "$BATS_TEST_TMPDIR/linux" "$BATS_TEST_TMPDIR/macos"
    [ "$(wc -l <"$BATS_TEST_TMPDIR/macos")" -eq "$(wc -l <"$paths")" ]
    grep -qx "0 tests/dangling -> 0 $P/nowhere.toml" "$BATS_TEST_TMPDIR/macos"
    grep -qx "1 tests/dangling -> 1 $P/tests/dangling" "$BATS_TEST_TMPDIR/macos"
    grep -qx "0 tests/viaup/../x -> 1 $P/tests/x" "$BATS_TEST_TMPDIR/macos"
    grep -qx "0 tests/dotdot/f -> 0 $P/other/f" "$BATS_TEST_TMPDIR/macos"
}

@test "macOS set: its resolver's unit test passes" {
    run "$MAC/test_macos_path"
    printf '%s\n' "$output"
    expect_status 0
    expect_output_has "test_macos_path: "
}

@test "macOS set: only darwin.c calls what macOS lacks" {
    local objs bad=""
    objs=$(find "$MAC/src" -name '*.o' ! -name 'darwin.c.o')
    [ -n "$objs" ]
    for o in $objs; do
        for sym in $(nm -u "$o" | awk '{print $2}'); do
            case "$sym" in
            statx | renameat2 | getdents64 | syscall | openat2 | strerrorname_np | memfd_create | \
                pipe2 | dup3 | accept4 | ppoll | prctl | mount | unshare)
                bad="$bad $o:$sym" ;;
            esac
        done
    done
    [ -z "$bad" ] || { echo "Linux-only calls outside darwin.c:$bad" >&2; false; }
    nm -u "$MAC/src/macos/CMakeFiles/tf_macos.dir/darwin.c.o" | grep -qw statx
}

# same CMD...: the Linux build and the macOS set's testfence give the same stdout+stderr and
# the same status.
same() {
    local a b sa sb
    a=$("$TESTFENCE" "$@" 2>&1) && sa=0 || sa=$?
    b=$("$MAC/testfence" "$@" 2>&1) && sb=0 || sb=$?
    if [ "$a" != "$b" ] || [ "$sa" != "$sb" ]; then
        echo "linux (status $sa): $a"
        echo "macOS set (status $sb): $b"
        return 1
    fi
}

# mkrun ID [finished]: an old run as the plugin leaves it (windows_config.bats').
mkrun() {
    local a=tests/artifacts ws=tests/artifacts/_isolation_workspace_$1
    mkdir -p "$ws/xdg/cache" "$ws/xdg/data" "$a/tmp/$1/sub" "$a/_pytest_tmp/$1"
    printf 'testfence run workspace %s\n' "$1" >"$ws/.testfence-workspace"
    : >"$ws/violations.jsonl"
    echo data >"$a/tmp/$1/sub/data"
    echo data >"$a/_pytest_tmp/$1/data"
    [ -z "${2:-}" ] || echo '{}' >"$ws/report.json"
}

mkruns() {
    rm -rf tests/artifacts
    mkrun 20200101T000000Z-0000001 finished
    mkrun 20200102T000000Z-0000002
    mkdir -p tests/artifacts/_isolation_workspace_20200103T000000Z-0000003 tests/artifacts/.pytest_cache
    ln -s /etc tests/artifacts/_isolation_workspace_20200104T000000Z-0000004
}

@test "macOS set: explain and clean say what the Linux build says" {
    [ -x "$MAC/testfence" ] || skip "no $MAC/testfence"
    P="$BATS_TEST_TMPDIR/other"
    mkdir -p "$P/.git" "$P/tests/sub" "$P/out"
    cd "$P"
    touch config.toml
    ln -s ../config.toml tests/link_out
    ln -s sub tests/alias
    printf '[tool.testfence]\nwritable = ["tests", "out"]\noutputs = ["coverage.xml"]\n' >pyproject.toml
    fingerprint >"$BATS_TEST_TMPDIR/before"
    run "$MAC/testfence" explain tests/alias/x config.toml
    expect_status 1
    expect_output_has "tests/alias/x: allowed"
    expect_output_has "config.toml: blocked"
    same explain tests/x tests/sub/new/deep/y out/z coverage.xml config.toml .git/index.lock \
        tests/../pyproject.toml tests/link_out tests/alias/x /etc/passwd "$P//tests/./x"
    same explain tests/x
    same explain
    same explain --bogus
    local args la ta
    for args in "--all" "--retain 1" "" "--all --retain 1"; do
        mkruns
        # shellcheck disable=SC2086 # the options, split
        la=$("$TESTFENCE" clean $args 2>&1) && sa=0 || sa=$?
        ta=$(cd tests/artifacts && find . | LC_ALL=C sort)
        mkruns
        # shellcheck disable=SC2086
        run "$MAC/testfence" clean $args
        [ "$output" = "$la" ] && [ "$status" = "$sa" ] || { echo "clean $args: linux ($sa): $la"$'\n'"macOS set ($status): $output"; false; }
        [ "$(cd tests/artifacts && find . | LC_ALL=C sort)" = "$ta" ]
    done
    [ -f /etc/passwd ]
    rm -rf tests/artifacts
    same clean
    same clean --bogus
    assert_outside_unchanged
}
