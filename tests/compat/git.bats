#!/usr/bin/env bats
# git in a test: status and describe --dirty are harmless, a commit is a real write.

load compat

setup() {
    compat_project
    cat >tests/test_git.py <<'PY'
import subprocess

def git(*args):
    return subprocess.run(["git", *args], capture_output=True, text=True)

def test_status_and_describe():
    assert git("status", "--short").returncode == 0
    assert git("describe", "--dirty", "--always").returncode == 0
PY
}

@test "git status and describe --dirty: bare and fenced exit 0, nothing reported" {
    run $PY -m pytest -q -p no:cacheprovider tests
    expect_status 0
    fingerprint >"$BATS_TEST_TMPDIR/before" # bare git refreshed .git/index; fenced, it is not
    fenced $PY -m pytest -q tests
    expect_clean
    fenced sh -c 'GIT_OPTIONAL_LOCKS=1 git status --short && git describe --dirty --always'
    expect_clean
    assert_outside_unchanged
}

@test "the plugin: git describe --dirty in a test is not a violation" {
    plugin -q tests
    expect_clean
    assert_outside_unchanged
}

@test "git commit in a test is a real write: reported, with a git hint" {
    fenced git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m x
    expect_status 128
    expect_output_has "attempted to write to $P/.git/index.lock"
    expect_output_has "git writing the repository"
    assert_outside_unchanged
}

@test "kept workspaces stay out of git status" {
    fenced true
    expect_status 0
    [ -d tests/artifacts ]
    [ -z "$(git status --short --untracked-files=all | grep artifacts)" ]
}
