#!/usr/bin/env bats
# Other runners: make check with its test log, make's jobserver, npm, a project whose tests
# are not in tests/.

load compat

setup() { compat_project; }

@test "tests in t/: the error proposes t, and with writable = [\"t\"] artifacts follows" {
    rmdir tests && mkdir t
    fenced true
    expect_status 125
    expect_output_has 'this project keeps its tests in t/: write writable = ["t"]'
    run "$TESTFENCE" init --dry-run
    expect_output_has 'writable = ["t"]'
    printf 'writable = ["t"]\n' >testfence.toml
    fenced sh -c 'echo ok > t/out && echo "$TESTFENCE_WORKSPACE"'
    expect_clean
    expect_output_has "$P/t/artifacts/_isolation_workspace_"
}

@test "make check writing test-suite.log at the root: a hint to declare it; declared, clean" {
    rmdir tests && mkdir t
    printf 'check:\n\techo PASS > t/one.log\n\tcat t/one.log > test-suite.log\n' >Makefile
    printf 'writable = ["t"]\n' >testfence.toml
    fenced make -s check
    [ "$status" -ne 0 ]
    expect_output_has "attempted to write to $P/test-suite.log"
    expect_output_has 'outputs = ["test-suite.log"]'
    printf 'writable = ["t"]\noutputs = ["test-suite.log"]\n' >testfence.toml
    fenced make -s check
    expect_clean
    [ "$(cat test-suite.log)" = PASS ]
}

@test "make -j2 calling testfence run -- \$(MAKE): the jobserver reaches the inner make" {
    mkdir -p tests/sub
    printf 'all: a b\na b:\n\t@sleep 0.2\n' >tests/sub/Makefile
    printf 'all:\n\t"$(TF)" run -- $(MAKE) -C tests/sub\n' >Makefile
    run make -j2 TF="$TESTFENCE"
    expect_status 0
    [[ "$output" != *"jobserver unavailable"* ]] || { echo "$output"; false; }
    [[ "$output" != *"was blocked"* ]]
}

@test "--keep-fd N: the command inherits N, and only what it is told" {
    run bash -c 'exec 7>"$1/tests/seven"; "$2" run --keep-fd 7 -- sh -c "echo kept >&7"' _ "$P" "$TESTFENCE"
    expect_status 0
    [ "$(cat tests/seven)" = kept ]
    run bash -c 'exec 7>"$1/tests/seven"; "$2" run -- sh -c "echo lost >&7"' _ "$P" "$TESTFENCE"
    [ "$status" -ne 0 ]
    run "$TESTFENCE" run --keep-fd 99 -- true
    expect_status 125
    expect_output_has "--keep-fd 99: not an open descriptor"
}

@test "npm test: its cache and logs are redirected, exit 0, nothing reported" {
    command -v npm >/dev/null || skip "npm is not installed"
    printf '{"name": "demo", "version": "1.0.0", "scripts": {"test": "node tests/t.js"}}\n' >package.json
    printf 'require("fs").writeFileSync("tests/ok", "ok")\n' >tests/t.js
    mkdir "$BATS_TEST_TMPDIR/home"
    fingerprint >"$BATS_TEST_TMPDIR/before"
    HOME="$BATS_TEST_TMPDIR/home" fenced npm test --silent
    expect_clean
    [ "$(cat tests/ok)" = ok ]
    [ -z "$(ls -A "$BATS_TEST_TMPDIR/home")" ] # npm's logs went to the artifacts dir
    assert_outside_unchanged
}

@test "an interactive python's history in HOME is refused quietly" {
    mkdir "$BATS_TEST_TMPDIR/home"
    HOME="$BATS_TEST_TMPDIR/home" fenced $PY -c '
import os, readline
try:
    readline.write_history_file(os.path.expanduser("~/.python_history"))
except OSError:
    pass'
    expect_clean
    [ ! -e "$BATS_TEST_TMPDIR/home/.python_history" ]
}
