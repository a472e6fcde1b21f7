#!/usr/bin/env bats
# testfence run as a command: exit statuses, signals, workspace, environment, errors.

load ../support/helpers

setup() { mkproject; }

@test "exit status is the command's own" {
    run "$TESTFENCE" run -- true
    expect_status 0
    run "$TESTFENCE" run -- sh -c 'exit 42'
    expect_status 42
}

@test "a command killed by signal N gives 128+N" {
    run "$TESTFENCE" run -- sh -c 'kill -TERM $$'
    expect_status 143
}

@test "command not found is 127, not executable is 126, with a message" {
    run -127 "$TESTFENCE" run -- no-such-command-xyz
    expect_status 127
    expect_output_has "command not found: no-such-command-xyz"
    printf 'echo hi\n' >tests/noexec.sh
    chmod 644 tests/noexec.sh
    run "$TESTFENCE" run -- ./tests/noexec.sh
    expect_status 126
    expect_output_has "cannot execute ./tests/noexec.sh"
}

@test "own errors are 125: bad option, missing command, bad --retain, bad backend" {
    run "$TESTFENCE" run --frobnicate -- true
    expect_status 125
    expect_output_has "unknown option --frobnicate"
    run "$TESTFENCE" run
    expect_status 125
    expect_output_has "no command given"
    run "$TESTFENCE" run --retain 0 -- true
    expect_status 125
    run "$TESTFENCE" run --backend seatbelt -- true
    expect_status 125
    expect_output_has 'unknown backend "seatbelt"'
}

@test "no project root is a clear error" {
    cd "$BATS_TEST_TMPDIR"
    mkdir -p lonely && cd lonely
    # A marker further up (the test tmp dir may sit in a project) would make this pass; guard it.
    run "$TESTFENCE" run --root /nonexistent-root -- true
    expect_status 125
    expect_output_has "--root /nonexistent-root"
}

@test "a tests/ directory that is missing or leaves the root is refused" {
    rmdir tests
    run "$TESTFENCE" run -- true
    expect_status 125
    expect_output_has "(it must exist)"
    mkdir "$BATS_TEST_TMPDIR/elsewhere"
    ln -s "$BATS_TEST_TMPDIR/elsewhere" tests
    run "$TESTFENCE" run -- true
    expect_status 125
    expect_output_has "outside the project root"
    [ -z "$(ls -A "$BATS_TEST_TMPDIR/elsewhere")" ]
}

@test "SIGTERM to testfence reaches the command, whose status is returned" {
    "$TESTFENCE" run -- sh -c 'trap "echo term > tests/got; exit 7" TERM; echo up > tests/up; sleep 30 & wait' &
    pid=$!
    for _ in $(seq 100); do [ -f tests/up ] && break; sleep 0.05; done
    kill -TERM "$pid"
    status=0; wait "$pid" || status=$?
    expect_status 7
    [ "$(cat tests/got)" = term ]
}

@test "SIGINT, SIGHUP and SIGQUIT are forwarded too" {
    for sig in INT HUP QUIT; do
        rm -f tests/up tests/got
        # A background job starts with SIGINT and SIGQUIT ignored; undo that first.
        /usr/bin/python3 -c 'import os, signal, sys
for s in (signal.SIGINT, signal.SIGQUIT): signal.signal(s, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$TESTFENCE" run -- \
            sh -c "trap 'echo $sig > tests/got; exit 5' $sig; echo up > tests/up; sleep 30 & wait" &
        pid=$!
        for _ in $(seq 100); do [ -f tests/up ] && break; sleep 0.05; done
        kill -"$sig" "$pid"
        status=0; wait "$pid" || status=$?
        expect_status 5
        [ "$(cat tests/got)" = "$sig" ]
    done
}

@test "the command runs in its own process group" {
    run "$TESTFENCE" run -- sh -c 'ps -o pgid= -p $$; ps -o pid= -p $$'
    expect_status 0
    set -- $output
    [ "$1" = "$2" ]
}

@test "no file descriptor other than 0, 1 and 2 reaches the command" {
    exec 7>"$BATS_TEST_TMPDIR/leak"
    run "$TESTFENCE" run -- "$TF_PROBE" fds
    exec 7>&-
    expect_status 0
    [ "$output" = "0 1 2 " ]
}

@test "--dry-run prints the plan and creates nothing" {
    run "$TESTFENCE" run --dry-run -- pytest -x
    expect_status 0
    expect_output_has "root:      $P"
    expect_output_has "$P/tests "
    expect_output_has "/dev/null"
    expect_output_has "TMPDIR=$(runtmp_user)/"
    expect_output_has "PYTEST_ADDOPTS="
    expect_output_has "command:   pytest -x"
    [ ! -e tests/artifacts ]
    assert_outside_unchanged
}

@test "the workspace, temp dir and pytest options are set up under tests/artifacts" {
    unset PYTHONPYCACHEPREFIX
    PYTEST_ADDOPTS="-q" run "$TESTFENCE" run -- sh -c '
        echo "ws=$TESTFENCE_WORKSPACE"; echo "id=$TESTFENCE_RUN_ID"; echo "tmp=$TMPDIR $TMP $TEMP"
        echo "addopts=$PYTEST_ADDOPTS"; echo "pycache=$PYTHONPYCACHEPREFIX"
        cat "$TESTFENCE_WORKSPACE/.testfence-workspace"'
    expect_status 0
    id=$(sed -n 's/^id=//p' <<<"$output")
    ws="$P/tests/artifacts/_isolation_workspace_$id"
    expect_output_has "ws=$ws"
    t="$(runtmp_user)/$id"
    expect_output_has "tmp=$t $t $t"
    # No --basetemp: a pytest a test starts would inherit it and empty the outer one.
    expect_output_has "addopts=-q -o cache_dir=$P/tests/artifacts/.pytest_cache"
    expect_output_has "pycache=" # unset: Python reads its .pyc files where they are
    [[ "$output" != *"pycache=/"* ]]
    grep -qx 'pycache=' <<<"$output" # set to nothing at all
    expect_output_has "testfence run workspace $id"
    [ ! -e "$t" ] # the private temp dir is removed at the end
    [ "$(cat tests/artifacts/.gitignore | tail -1)" = "*" ]
    [ ! -e "$ws/quarantine" ] # made only when a run left something to move
}

@test "old run workspaces beyond --retain are removed, nothing else" {
    mkdir -p tests/artifacts/mine
    for _ in 1 2 3 4; do "$TESTFENCE" run --retain 2 -- true; sleep 1.1; done
    [ "$(ls -d tests/artifacts/_isolation_workspace_* | wc -l)" -eq 2 ]
    [ -d tests/artifacts/mine ]
}

@test "pytest's tmp_path lands in the run's temp dir and a root write fails the test" {
    cat >tests/test_sample.py <<PY
import os, pathlib
def test_tmp(tmp_path):
    (tmp_path / "x.txt").write_text("ok")
    assert str(tmp_path).startswith("$(runtmp_user)/" + os.environ["TESTFENCE_RUN_ID"] + "/")
def test_clobber():
    pathlib.Path("config.toml").write_text("clobbered")
PY
    run "$TESTFENCE" run -- /usr/bin/python3 -m pytest -p no:cacheprovider tests
    expect_status 1
    expect_output_has "1 failed, 1 passed"
    expect_output_has "PermissionError"
    assert_outside_unchanged
}

@test "explain names the entry that allows a path, or says it is blocked" {
    run "$TESTFENCE" explain tests/x/y.txt
    expect_status 0
    expect_output_has "allowed: $P/tests/x/y.txt is beneath $P/tests (project \"tests\")"
    run "$TESTFENCE" explain config.toml
    expect_status 1
    expect_output_has "blocked: $P/config.toml is outside the writable set of $P"
    run "$TESTFENCE" explain /dev/null
    expect_status 0
    expect_output_has "(system)"
    ln -s ../config.toml tests/link
    run "$TESTFENCE" explain tests/link
    expect_status 1
    expect_output_has "blocked: $P/config.toml"
}

@test "doctor reports the ABI, the enforced classes and the writable set" {
    run "$TESTFENCE" doctor
    expect_status 0
    expect_output_has "landlock:  ABI"
    expect_output_has "truncate files"
    expect_output_has "never covered by Landlock"
    expect_output_has "root:      $P"
    expect_output_has "verdict:   testfence run enforces the fence"
}

@test "without Landlock, run fails closed, doctor says why, --backend none warns" {
    run "$TF_NOLANDLOCK" "$TESTFENCE" run -- sh -c 'echo x > config.toml'
    expect_status 125
    expect_output_has "cannot enforce the fence: the kernel has no Landlock"
    assert_outside_unchanged
    [ ! -e tests/artifacts ]
    run "$TF_NOLANDLOCK" "$TESTFENCE" doctor
    expect_status 1
    expect_output_has "landlock:  unavailable"
    run "$TF_NOLANDLOCK" "$TESTFENCE" run --backend none -- sh -c 'echo ran > tests/ran'
    expect_status 0
    expect_output_has "NOTHING IS FENCED"
    [ "$(cat tests/ran)" = ran ]
}

@test "on a terminal the command owns it: it reads input, Ctrl-C reaches it, TIOCSTI does not" {
    run /usr/bin/python3 "$TESTFENCE_SRC/tests/support/pty_drive.py" "$TESTFENCE"
    expect_status 0
    expect_output_has "read: hello"
    expect_output_has "interrupted: 130"
    if [ -z "${TESTFENCE_RUN_ID:-}" ]; then
        expect_output_has "TIOCSTI refused: 1" # EPERM: no typing into the user's terminal
    fi
}

@test "--verify reports nothing for a fenced run, and every change when unfenced" {
    run "$TESTFENCE" run --verify -- sh -c 'echo ok > tests/ok.txt; echo x > config.toml'
    [ "$status" -ne 0 ]
    expect_output_has "testfence: --verify: nothing outside the writable set changed"
    run "$TESTFENCE" run --backend none --verify -- sh -c 'chmod 600 config.toml; echo new > data/new.csv'
    expect_status 120
    expect_output_has "VERIFY: config.toml: mode 0644 → 0600"
    expect_output_has "VERIFY: data/new.csv: created"
    expect_output_has "--verify: 3 paths outside the writable set changed"
    run "$TESTFENCE" run --backend none --verify --allow-violations -- true
    expect_status 0
}

@test "a run still going is never pruned by another run's retention" {
    "$TESTFENCE" run -- sh -c 'echo up > tests/up; sleep 3
        test -d "$TESTFENCE_WORKSPACE" && test -d "$TMPDIR" && echo alive > tests/alive' &
    pid=$!
    for _ in $(seq 100); do [ -f tests/up ] && break; sleep 0.05; done
    sleep 1.1 # a newer run id
    run "$TESTFENCE" run --retain 1 -- true
    expect_status 0
    status=0; wait "$pid" || status=$?
    expect_status 0
    [ "$(cat tests/alive)" = alive ]
    # Once it has ended, it is fair game.
    sleep 1.1
    "$TESTFENCE" run --retain 1 -- true
    [ "$(ls -d tests/artifacts/_isolation_workspace_* | wc -l)" -eq 1 ]
}

@test "a long PYTEST_ADDOPTS is appended to, never cut" {
    long="-p $(printf 'x%.0s' $(seq 9000))"
    PYTEST_ADDOPTS="$long" run "$TESTFENCE" run -- sh -c 'printf %s "$PYTEST_ADDOPTS"'
    expect_status 0
    [[ "$output" == "$long -o cache_dir="* ]]
}

@test "close_range failing (an old kernel): testfence's own files still do not reach the command" {
    run bash -c 'exec 9<config.toml; exec "$0" close_range=ENOSYS -- "$1" run -- sh -c "ls /proc/self/fd"' \
        "$TF_FAILSYS" "$TESTFENCE"
    expect_status 0
    [ "$(echo "$output" | tr '\n' ' ')" = "0 1 2 3 " ] || { echo "$output"; false; }
}

@test "a poll that fails stops the run with a message, instead of spinning" {
    run timeout -k 5 30 "$TF_FAILSYS" poll=EIO ppoll=EIO -- "$TESTFENCE" run -- sleep 60
    expect_status 125
    expect_output_has "testfence: cannot wait for the command (poll): Input/output error"
}
