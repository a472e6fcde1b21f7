#!/usr/bin/env bats
# git in a test: status and describe --dirty are harmless, a commit is a real write.

load compat

# git_test DIR: the test that runs git status and describe --dirty where it runs.
git_test() {
    cat >"$1/test_git.py" <<'PY'
import subprocess

def git(*args):
    return subprocess.run(["git", *args], capture_output=True, text=True)

def test_status_and_describe():
    assert git("status", "--short").returncode == 0
    assert git("describe", "--dirty", "--always").returncode == 0
PY
}

setup() {
    compat_project
    git_test tests
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

# Issue 27: a project below the git root (a monorepo's pkg/, the repository its parent). git
# finds the enclosing repository from the cwd: its index lock is harmless state too.
@test "a project below the git root: git status and describe --dirty in a test are quiet" {
    compat_monorepo
    git_test tests
    fenced $PY -m pytest -q -p no:cacheprovider tests
    expect_clean
    expect_output_has "1 passed"
    # From a subdirectory of the project (the root found above it) and under the plugin.
    (cd src && fenced $PY -m pytest -q -p no:cacheprovider ../tests && expect_clean)
    plugin -q -p no:cacheprovider tests
    expect_clean
    assert_mono_unchanged
}

@test "a project below the git root, as nobody: quiet too" {
    compat_monorepo
    git_test tests
    reachable_by_others
    chown -R nobody "$M" # git refuses a repository another user owns
    mkdir -m 1777 "$BATS_TEST_TMPDIR/tmp"
    mono_fingerprint >"$BATS_TEST_TMPDIR/mono-before"
    TMPDIR="$BATS_TEST_TMPDIR/tmp" run setpriv --reuid=nobody --regid=nogroup --clear-groups \
        env HOME=/nonexistent "$TESTFENCE" run -- $PY -m pytest -q -p no:cacheprovider tests
    expect_clean
    expect_output_has "1 passed"
    assert_mono_unchanged
}

@test "a project below the git root of a worktree (.git is a gitfile): the worktree's lock is quiet" {
    compat_monorepo
    git -C "$M" worktree add -q "$BATS_TEST_TMPDIR/wt"
    cd "$BATS_TEST_TMPDIR/wt/pkg"
    mkdir -p tests
    git_test tests
    git status --short >/dev/null
    mono_fingerprint >"$BATS_TEST_TMPDIR/mono-before" # the worktree's git dir is in $M/.git
    fenced $PY -m pytest -q -p no:cacheprovider tests
    expect_clean
    expect_output_has "1 passed"
    assert_mono_unchanged
}

@test "a project below the git root: a commit or a file written in the enclosing repository is refused and reported" {
    compat_monorepo
    cat >tests/test_top.py <<'PY'
import pathlib
import subprocess

import pytest

TOP = pathlib.Path(__file__).resolve().parents[2]


def git(*args):
    return subprocess.run(["git", *args], capture_output=True, text=True)


def test_describe_then_commit():
    assert git("describe", "--dirty", "--always").returncode == 0  # quiet
    commit = git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q",
                 "--allow-empty", "-m", "x")
    assert commit.returncode != 0  # the same lock, taken by a commit: reported


def test_write_at_the_top():
    with pytest.raises(PermissionError):
        (TOP / "README").write_text("clobbered")
PY
    fenced $PY -m pytest -q -p no:cacheprovider tests
    expect_status 120
    expect_output_has "2 passed"
    expect_output_has "2 writes outside the writable set were blocked"
    # The live lines went to the output pytest captured: the summary names both.
    expect_output_has "tests/test_top.py::test_describe_then_commit: 1 blocked write
    open64     $M/.git/index.lock (EACCES)"
    expect_output_has "git writing the repository"
    expect_output_has "tests/test_top.py::test_write_at_the_top: 1 blocked write
    open64     $M/README (EACCES)"
    assert_mono_unchanged
}

@test "what a test can leave under tests/ (a gitfile, a .benchmarks link) makes nothing quiet" {
    compat_monorepo
    O="$BATS_TEST_TMPDIR/other"
    git init -q "$O" && git -C "$O" -c user.name=t -c user.email=t@example.com commit -q \
        --allow-empty -m o && git -C "$O" status --short >/dev/null
    mkdir -p tests/sub "$M/precious"
    # As an earlier run's test could have left them, in the directory the next run starts in.
    printf 'gitdir: %s/.git\n' "$O" >tests/sub/.git
    ln -s "$M/precious" tests/sub/.benchmarks
    mono_fingerprint >"$BATS_TEST_TMPDIR/mono-before"
    local other_before
    other_before=$(cd "$O" && find . -print0 | sort -z | xargs -0 stat -c '%n %s %Y')
    cd tests/sub
    run "$TESTFENCE" run --root "$P" --dry-run -- true
    expect_status 0
    expect_output_has "$M/.git/index.lock"
    expect_output_lacks "$O/.git/index.lock"
    expect_output_lacks "$M/precious"
    run "$TESTFENCE" run --root "$P" -- sh -c 'git describe --dirty --always; mkdir .benchmarks/x; exit 0'
    expect_status 120
    expect_output_has "$O/.git/index.lock"
    expect_output_has "$M/precious/x"
    [ "$(cd "$O" && find . -print0 | sort -z | xargs -0 stat -c '%n %s %Y')" = "$other_before" ]
    assert_mono_unchanged
}
