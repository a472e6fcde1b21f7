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

@test "a pyproject.toml without [tool.testfence] and tests in testing/: the error proposes it" {
    rmdir tests && mkdir testing
    printf '[project]\nname = "demo"\n' >pyproject.toml
    fenced true
    expect_status 125
    expect_output_has 'keeps its tests in testing/: write writable = ["testing"]'
    mkdir -p src/pkg/tests && rmdir testing
    fenced true
    expect_output_has 'keeps its tests in src/pkg/tests/'
}

@test "make check's test-suite.log at the root: a hint naming TEST_SUITE_LOG; moved, clean" {
    rmdir tests && mkdir t
    # As automake's harness does it: remove the old log, write a new one aside, rename it.
    cat >Makefile <<'MK'
TEST_SUITE_LOG = test-suite.log
check:
	@rm -f $(TEST_SUITE_LOG)
	@echo PASS > t/one.log
	@cat t/one.log > $(TEST_SUITE_LOG)-t && mv $(TEST_SUITE_LOG)-t $(TEST_SUITE_LOG)
MK
    printf 'writable = ["t"]\n' >testfence.toml
    fenced make check
    [ "$status" -ne 0 ]
    expect_output_has "attempted to write to $P/test-suite.log-t"
    expect_output_has "make check TEST_SUITE_LOG=tests/test-suite.log"
    fenced make check TEST_SUITE_LOG=t/test-suite.log
    expect_clean
    [ "$(cat t/test-suite.log)" = PASS ]
    [ ! -e test-suite.log ]
    [ ! -e test-suite.log-t ]
}

@test "a report a runner writes in place: declared in outputs, written, clean" {
    printf 'check:\n\t@echo "<testsuite/>" > report.xml\n' >Makefile
    printf 'outputs = ["report.xml"]\n' >testfence.toml
    fenced make check
    expect_clean
    [ "$(cat report.xml)" = "<testsuite/>" ]
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

@test "a MAKEFLAGS jobserver fifo that names a regular file does not make it writable" {
    MAKEFLAGS="-j2 --jobserver-auth=fifo:$P/config.toml" fenced sh -c 'echo x >>config.toml; true'
    expect_status 120
    [[ "$output" == *"config.toml"* ]]
    assert_outside_unchanged
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

@test "the ctest recipe: build first, then fence ctest with the test dirs writable" {
    command -v cmake >/dev/null && command -v cc >/dev/null || skip "cmake or cc missing"
    printf 'cmake_minimum_required(VERSION 3.13)\nproject(demo C)\nenable_testing()\nadd_test(NAME writes COMMAND sh -c "echo ok > out.txt && test -s out.txt")\n' >CMakeLists.txt
    cmake -S . -B build >/dev/null
    mkdir -p build/Testing
    printf 'writable = ["tests", "build/Testing"]\n' >testfence.toml
    fenced ctest --test-dir build
    [ "$status" -ne 0 ] # the test writes out.txt in the build dir, not declared
    expect_output_has "$P/build/out.txt"
    printf 'writable = ["tests", "build"]\n' >testfence.toml
    fenced ctest --test-dir build
    expect_clean
}

@test "the cargo recipe: writable target/, cargo's package-cache lock refused quietly" {
    PATH="$PATH:$HOME/.cargo/bin"
    command -v cargo >/dev/null || skip "cargo is not installed"
    printf '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n[lib]\npath = "lib.rs"\n' >Cargo.toml
    printf 'pub fn add(a: i32, b: i32) -> i32 { a + b }\n' >lib.rs
    printf '#[test]\nfn adds() { assert_eq!(demo::add(2, 2), 4); }\n' >tests/t.rs
    cargo test -q --offline --no-run 2>/dev/null # build first (Cargo.lock), then fence
    printf 'writable = ["tests", "target"]\n' >testfence.toml
    fenced cargo test -q --offline
    expect_clean
    expect_output_has "test result: ok. 1 passed"
}

@test "the go recipe: t.TempDir and the build cache, nothing reported" {
    command -v go >/dev/null || skip "go is not installed"
    rmdir tests && mkdir testdata
    printf 'module example.com/demo\n\ngo 1.19\n' >go.mod
    printf 'package demo\nimport "testing"\nfunc TestTemp(t *testing.T) {\n\tif d := t.TempDir(); d == "" {\n\t\tt.Fatal("no temp dir")\n\t}\n}\n' >demo_test.go
    fenced go test ./...
    expect_status 125
    expect_output_has 'keeps its tests in testdata/'
    printf 'writable = ["testdata"]\n[env]\nGOCACHE = "{artifacts}/go-build"\n' >testfence.toml
    fenced go test ./...
    expect_clean
    expect_output_has "ok  	example.com/demo"
}
