#!/usr/bin/env bats
# The namespace layer: a read-only view but the writable set, a PID namespace, nothing of the
# run outlives it; and where namespaces are refused, the guard (said) or a refusal (required).

load ../support/helpers

setup() {
    mkproject
    [ -z "${TESTFENCE_RUN_ID:-}" ] || skip "nested under testfence: the outer run forbids mounts"
}

# nons CMD...: CMD with namespaces refused, as in a container (a seccomp filter, not a sysctl).
nons() { "$TF_NONS" "$@"; }

@test "doctor and --dry-run name the namespace layer" {
    run "$TESTFENCE" doctor
    expect_output_has "namespace layer: yes: the command runs in its own mount and PID namespaces"
    run "$TESTFENCE" run --dry-run -- true
    expect_status 0
    expect_output_has "metadata:  namespace layer"
}

@test "metadata outside is refused by the kernel; inside it works; the command is PID 2" {
    echo mine >tests/mine.txt
    run "$TESTFENCE" run -- sh -c '
        echo "pid $$"
        chmod 600 tests/mine.txt && echo inside-ok
        python3 -c "import os; os.chmod(\"config.toml\", 0o600)" 2>&1 | tail -n 1'
    expect_output_has "pid 2"
    expect_output_has "inside-ok"
    expect_output_has "PermissionError: [Errno 13] Permission denied: 'config.toml'"
    [ "$(stat -c %a tests/mine.txt)" = 600 ]
    assert_outside_unchanged
    grep -q '"metadata_layer": "namespace"' tests/artifacts/_isolation_workspace_*/report.json
}

@test "the kernel's own answer is the read-only view's (a static program, no shim to speak): EROFS; without namespaces, Landlock's EACCES" {
    run "$TESTFENCE" run -- "$TF_PROBE_STATIC" write config.toml
    expect_status 1
    [ "$output" = EROFS ]
    run nons "$TESTFENCE" run -- "$TF_PROBE_STATIC" write config.toml
    expect_status 1
    [[ "$output" == *EACCES* ]]
    assert_outside_unchanged
}

@test "a cwd inside tests/ is the writable copy; stdin opened on an outside file is reopened read-only" {
    cd tests
    run "$TESTFENCE" run -- sh -c 'echo new > made-here && echo made'
    expect_status 0
    expect_output_has made
    [ "$(cat made-here)" = new ]
    cd ..
    # fchmod on stdin, opened by the shell on config.toml, must not reach the machine's mount.
    run sh -c "'$TESTFENCE' run -- python3 -c 'import os; os.fchmod(0, 0o600)' < config.toml"
    [ "$status" -ne 0 ]
    expect_output_has "PermissionError"
    assert_outside_unchanged
}

@test "removing a missing name outside says ENOENT, as without testfence, and is no violation" {
    run "$TESTFENCE" run -- python3 -c '
import pathlib
pathlib.Path("no-such-file").unlink(missing_ok=True)
try:
    pathlib.Path("no-such-file").unlink()
except FileNotFoundError:
    print("ENOENT")'
    expect_status 0
    expect_output_has ENOENT
    [[ "$output" != *TEST_SANDBOX_VIOLATION* ]]
}

@test "a process left running is killed when the command exits, reported with its test, exit 120" {
    PYTEST_CURRENT_TEST="tests/test_d.py::test_daemon (call)" run "$TESTFENCE" run -- sh -c '
        (sleep 2; echo late > config.toml; touch tests/late-marker) </dev/null >/dev/null 2>&1 &
        echo started'
    expect_status 120
    expect_output_has "started by tests/test_d.py::test_daemon was still running when the command exited: killed"
    [[ "$output" =~ "tests/test_d.py::test_daemon: "[12]" process"(es)?" left running" ]]
    expect_output_has "exiting 120 because processes it started outlived it"
    grep -q '"op": "outlived"' tests/artifacts/_isolation_workspace_*/report.json
    sleep 3
    [ ! -e tests/late-marker ] # it never got to act
    assert_outside_unchanged
    # --allow-violations keeps the command's status.
    run "$TESTFENCE" run --allow-violations -- sh -c 'sleep 5 & true'
    expect_status 0
}

@test "a clean command with no leftovers exits 0 and says nothing about processes" {
    run "$TESTFENCE" run -- sh -c 'sleep 0.1 & wait'
    expect_status 0
    [[ "$output" != *"still running"* ]]
}

@test "namespaces refused: the guard stands in and says so; metadata outside still refused" {
    run nons "$TESTFENCE" run --dry-run -- true
    expect_output_has "metadata:  seccomp guard (the namespace layer is unavailable"
    run nons "$TESTFENCE" doctor
    expect_output_has "namespace layer: NO"
    run nons "$TESTFENCE" run -- sh -c 'chmod 600 config.toml; echo "pid $$"'
    expect_status 120
    expect_output_has "warning: the namespace layer is unavailable"
    expect_output_has "seccomp guard alone"
    ! grep -qx "pid 2" <<<"$output" # no PID namespace
    assert_outside_unchanged
    grep -q '"metadata_layer": "guard"' "$(ls -td tests/artifacts/_isolation_workspace_* | head -1)/report.json"
    # Leftovers are swept by testfence as subreaper, a daemon's own children too, at once
    # (the sweep once waited for a grandchild to exit on its own).
    run nons "$TESTFENCE" run -- sh -c '(sleep 2; touch tests/late-marker) >/dev/null 2>&1 & true'
    expect_status 120
    expect_output_has "was still running when the command exited: killed"
    run timeout 20 "$TF_NONS" "$TESTFENCE" run -- sh -c '( ( sleep 297.5 & exec sleep 296.5 ) & )'
    expect_status 120
    ! pgrep -fx 'sleep 29[67].5'
    sleep 3
    [ ! -e tests/late-marker ]
}

@test "require = [\"namespace\"] or --require namespace: refused (125) where it cannot be had" {
    run nons "$TESTFENCE" run --require namespace -- touch tests/ran
    expect_status 125
    expect_output_has "refusing to run: the namespace layer is unavailable"
    [ ! -e tests/ran ]
    printf 'require = ["namespace"]\n' >testfence.toml
    run nons "$TESTFENCE" run -- touch tests/ran
    expect_status 125
    [ ! -e tests/ran ]
    run nons "$TESTFENCE" doctor
    expect_status 1
    expect_output_has "requires the namespace layer"
    run "$TESTFENCE" run -- touch tests/ran # where it can be had, it runs
    expect_status 0
    [ -e tests/ran ]
    run "$TESTFENCE" run --backend preload --require namespace -- touch tests/ran2
    expect_status 125
    expect_output_has "--backend preload has no namespace layer, and this run requires it"
    [ ! -e tests/ran2 ]
    printf 'require = ["namespaces"]\n' >testfence.toml
    run "$TESTFENCE" run -- true
    expect_status 125
    expect_output_has "testfence.toml:1:12: require: unknown layer \"namespaces\""
    run "$TESTFENCE" run --require guard -- true
    expect_status 125
    expect_output_has "--require: unknown layer \"guard\""
}

@test "pytest: a process a test starts writes two seconds after pytest exits: killed, reported, 120" {
    cat >tests/test_daemon.py <<'PY'
import subprocess, sys

def test_starts_a_writer():
    code = "import time; time.sleep(2); open('config.toml', 'w').write('late')"
    subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
PY
    run "$TESTFENCE" run -- /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/test_daemon.py
    expect_status 120
    expect_output_has "1 passed"
    expect_output_has "started by tests/test_daemon.py::test_starts_a_writer was still running when the command exited: killed"
    expect_output_has "tests/test_daemon.py::test_starts_a_writer: 1 process left running"
    sleep 3
    assert_outside_unchanged
}

@test "the workspace is made beside the command's set-up: where it cannot be, the command never runs (125)" {
    # As nobody (root passes file modes), with an artifacts dir nobody may not write: the
    # workspace, made while the command is set up, fails; the command waits for it and so
    # never starts. With namespaces and without.
    reachable_by_others # nobody must reach the project
    install -m 755 "$TESTFENCE" "$BATS_TEST_TMPDIR/testfence"
    install -m 755 "$(dirname "$TESTFENCE")/libtestfence_preload.so" "$BATS_TEST_TMPDIR/"
    mkdir -p tests/artifacts
    chown -R nobody "$P"
    chmod 555 tests/artifacts
    mkdir -m 1777 "$BATS_TEST_TMPDIR/tmp"
    fingerprint >"$BATS_TEST_TMPDIR/before"
    for wrap in "" "$TF_NONS"; do
        TMPDIR="$BATS_TEST_TMPDIR/tmp" run $wrap setpriv --reuid=nobody --regid=nogroup --clear-groups \
            "$BATS_TEST_TMPDIR/testfence" run -- touch tests/ran
        expect_status 125
        expect_output_has "cannot create the run workspace $P/tests/artifacts/_isolation_workspace_"
        expect_output_has "Permission denied"
        [ ! -e tests/ran ]
    done
    assert_outside_unchanged
}

@test "the command's CPU time is testfence's children's, as time and getrusage report it" {
    # testfence reaps the namespace's init after its report: the command's CPU counts.
    run /usr/bin/python3 -c '
import resource, subprocess, sys
subprocess.run([sys.argv[1], "run", "--", sys.executable, "-c", "sum(range(20_000_000))"], check=True)
print("user=%.2f" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime)' "$TESTFENCE"
    expect_status 0
    user=$(sed -n 's/^user=//p' <<<"$output")
    awk -v u="$user" 'BEGIN { exit !(u >= 0.1) }' || { echo "$output"; false; }
}

@test "two runs nested in runs of their own, started together, get workspaces of their own" {
    # Each inner testfence is pid 2 in its namespace: a run id made of the time and the pid
    # gave both the same workspace (exit 125, "File exists").
    # The outer run preloads its shim ahead of a sanitizer build's runtime: expected here.
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
    inner='echo "ws=$TESTFENCE_WORKSPACE"; sleep 1'
    "$TESTFENCE" run -- "$TESTFENCE" run -- sh -c "$inner" >"$BATS_TEST_TMPDIR/a" 2>&1 &
    a=$!
    "$TESTFENCE" run -- "$TESTFENCE" run -- sh -c "$inner" >"$BATS_TEST_TMPDIR/b" 2>&1 &
    b=$!
    sa=0; wait $a || sa=$?
    sb=0; wait $b || sb=$?
    [ "$sa" = 0 ] && [ "$sb" = 0 ] || { cat "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"; false; }
    wa=$(sed -n 's/^ws=//p' "$BATS_TEST_TMPDIR/a")
    wb=$(sed -n 's/^ws=//p' "$BATS_TEST_TMPDIR/b")
    [ -n "$wa" ]
    [ -n "$wb" ]
    [ "$wa" != "$wb" ]
    assert_outside_unchanged
}
