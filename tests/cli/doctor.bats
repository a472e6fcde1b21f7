#!/usr/bin/env bats
# doctor answers "would testfence run work here?" with its exit status, and every
# command follows the one exit-status rule for usage errors (125) and takes -V.

load ../support/helpers

setup() { mkproject; }

@test "doctor: 0 in a project run can fence" {
    run "$TESTFENCE" doctor
    expect_status 0
    expect_output_has "workspace: $P/tests/artifacts (can be created)"
    expect_output_has "hazards:   none"
    expect_output_has "verdict:   testfence run enforces the fence on this machine and can run here"
    [ ! -e tests/artifacts ] # doctor created nothing
}

@test "doctor: 1 without a tests/ directory, naming it" {
    rmdir tests
    run "$TESTFENCE" doctor
    expect_status 1
    expect_output_has "verdict:   testfence run would refuse here: writable path $P/tests cannot be used (it must exist)"
    run "$TESTFENCE" run -- true
    expect_status 125
}

@test "doctor: 1 when the workspace cannot be created (read-only root)" {
    [ "$(id -u)" -eq 0 ] || skip "needs root for a read-only bind mount"
    [ -z "${TESTFENCE_RUN_ID:-}" ] || skip "under testfence run: the fence refuses mounts"
    run unshare -m sh -c 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" &&
        "$2" doctor --root "$1"; echo "doctor=$?"; "$2" run --root "$1" -- true; echo "run=$?"' \
        sh "$P" "$TESTFENCE"
    expect_output_has "the run workspace cannot be created under $P/tests: Read-only file system"
    expect_output_has "doctor=1"
    expect_output_has "run=125"
    assert_outside_unchanged
}

@test "doctor: 1 when the writable set holds a hazard" {
    ln config.toml tests/config-link.toml
    run "$TESTFENCE" doctor
    expect_status 1
    expect_output_has "hard link"
    expect_output_has "verdict:   testfence run would refuse here: the writable set holds 1 hazard"
}

@test "every command: a usage error exits 125 and says so; -V and --version print the version" {
    for cmd in run doctor explain init clean audit; do
        run "$TESTFENCE" "$cmd" --no-such-option
        [ "$status" -eq 125 ] || { echo "$cmd --no-such-option exited $status: $output"; false; }
        [[ "$output" == *"--no-such-option"* ]] || { echo "$cmd: $output"; false; }
        run "$TESTFENCE" "$cmd" -V
        expect_status 0
        [[ "$output" == "testfence "[0-9]* ]] || { echo "$cmd -V: $output"; false; }
    done
    run "$TESTFENCE" --no-such-command
    expect_status 125
    run "$TESTFENCE"
    expect_status 125
    run "$TESTFENCE" -V
    expect_status 0
    [[ "$output" == "testfence "[0-9]* ]]
    run "$TESTFENCE" --help
    expect_output_has "exit status: 125 for a usage error"
}
