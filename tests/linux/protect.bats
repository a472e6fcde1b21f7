#!/usr/bin/env bats
# protect: the user's own files under tests/ (what git tracks, or every file there before the
# run) are bound read-only onto themselves in the namespace layer: a test that empties tests/,
# runs git clean there, truncates a fixture, renames a test file or the directory holding it
# changes none of them, each attempt is reported, exit 120; new files and artifacts are
# written as before, and moved between those directories.

load ../support/helpers

setup() {
    [ -z "${TESTFENCE_RUN_ID:-}" ] || skip "nested under testfence: the outer run forbids mounts"
    mkproject
    rm -rf .git
    git init -q .
    mkdir -p tests/fixtures tests/sub
    printf 'def test_a():\n    pass\n' >tests/test_a.py
    printf 'golden\n' >tests/fixtures/golden.txt
    printf 'deep\n' >tests/sub/test_deep.py
    git add tests
    git -c user.email=t@t -c user.name=t commit -qm tests
    fingerprint >"$BATS_TEST_TMPDIR/before"
}

# sums: the tracked files under tests/, byte for byte.
sums() { git -c safe.directory='*' ls-files -z tests | xargs -0 sha256sum; }

# as_user WHO CMD...: CMD as root, or as nobody with a testfence of its own that nobody may
# run (the build dir may be out of its reach) and a TMPDIR it may write.
as_user() {
    local who=$1
    shift
    if [ "$who" = root ]; then
        "$TESTFENCE" "$@"
        return
    fi
    setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/nonexistent \
        TMPDIR="$BATS_TEST_TMPDIR/tmp" "$BATS_TEST_TMPDIR/testfence" "$@"
}

prepare_user() {
    [ "$1" = root ] && return
    reachable_by_others
    install -m 755 "$TESTFENCE" "$BATS_TEST_TMPDIR/testfence"
    install -m 755 "$(dirname "$TESTFENCE")/libtestfence_preload.so" "$BATS_TEST_TMPDIR/"
    mkdir -p -m 1777 "$BATS_TEST_TMPDIR/tmp"
    chown -R nobody:nogroup "$P"
}

# attack WHO MODE SCRIPT: SCRIPT run as a test under protect = MODE by WHO; tracked files
# unchanged, the attempt reported as a protected test file, exit 120, new files written.
attack() {
    local who=$1 mode=$2 script=$3
    printf 'protect = "%s"\n' "$mode" >testfence.toml
    prepare_user "$who"
    fingerprint >"$BATS_TEST_TMPDIR/before"
    sums >"$BATS_TEST_TMPDIR/sums"
    PYTEST_CURRENT_TEST="tests/test_a.py::test_attack (call)" run as_user "$who" run -- sh -c "
        $script
        echo new >tests/new-file.txt && echo new-ok
        mkdir -p tests/artifacts/out && echo a >tests/artifacts/out/a.txt && echo artifact-ok
        exit 0"
    expect_status 120
    expect_output_has "protected test file"
    expect_output_has "tests/test_a.py::test_attack: "
    expect_output_has new-ok
    expect_output_has artifact-ok
    sums | diff -u "$BATS_TEST_TMPDIR/sums" -
    [ "$(cat tests/new-file.txt)" = new ]
    assert_outside_unchanged
}

case_rm() {
    attack "$1" tracked 'rm -rf tests/*'
    expect_output_has "unlinkat   $P/tests/test_a.py (EACCES, your protected test file)"
    expect_output_has "unlinkat   $P/tests/fixtures/golden.txt (EACCES, your protected test file)"
}

case_truncate() {
    attack "$1" tracked 'true >tests/fixtures/golden.txt || echo refused
        truncate -s 0 tests/fixtures/golden.txt || echo refused2'
    expect_output_has refused
    expect_output_has refused2
    expect_output_has "attempted to change $P/tests/fixtures/golden.txt, a test file protected from the run"
}

case_rename() {
    attack "$1" tracked 'mv tests/test_a.py tests/test_b.py || echo refused
        echo x >tests/x.py; mv tests/x.py tests/sub/test_deep.py || echo refused2
        ln tests/fixtures/golden.txt tests/hard || echo refused3'
    expect_output_has refused
    expect_output_has refused2
    expect_output_has refused3
    expect_output_has "$P/tests/fixtures/golden.txt (EACCES, your protected test file)"
    [ ! -e tests/hard ]
    [ ! -e tests/test_b.py ]
}

case_dir() {
    mkdir -p tests/sub/inner/most
    printf 'data\n' >tests/sub/inner/most/data.txt
    git add tests && git -c user.email=t@t -c user.name=t commit -qm inner
    attack "$1" tracked 'mv tests/sub tests/old || echo refused
        mv tests/sub/inner tests/inner2 || echo refused-inner
        mv tests/sub/inner/most tests/most2 || echo refused-most
        mkdir tests/empty; mv -T tests/empty tests/fixtures || echo refused2
        rmdir tests/fixtures || echo refused3
        /usr/bin/python3 -c "import os; os.rename(\"tests/fixtures\", \"tests/fx\")" || echo refused4
        echo n >tests/fixtures/n.txt && /usr/bin/python3 -c "import os
os.rename(\"tests/fixtures/n.txt\", \"tests/sub/n.txt\")
os.rename(\"tests/sub/n.txt\", \"tests/n.txt\")
os.mkdir(\"tests/sub/d\"); os.rename(\"tests/sub/d\", \"tests/fixtures/d\")" && echo moved-ok'
    expect_output_has refused
    expect_output_has refused2
    expect_output_has refused3
    expect_output_has refused4
    expect_output_has refused-inner
    expect_output_has refused-most
    expect_output_has "$P/tests/sub/inner/most/ (EACCES, a directory of your protected test files)"
    expect_output_has moved-ok
    expect_output_has "$P/tests/sub/ (EACCES, a directory of your protected test files)"
    expect_output_has "$P/tests/fixtures/ (EACCES, a directory of your protected test files)"
    expect_output_has "attempted to move or remove $P/tests/sub/, a directory holding test files"
    expect_output_has "changes to your protected test files (protect in the config) were refused"
    [ ! -e tests/old ]
    [ ! -e tests/fx ]
    [ ! -e tests/inner2 ]
    [ ! -e tests/most2 ]
    [ -d tests/fixtures/d ]
    [ "$(cat tests/n.txt)" = n ]
}

case_git_clean() {
    printf 'uncommitted\n' >tests/test_new.py
    attack "$1" existing 'git clean -fdx tests || true'
    [ "$(cat tests/test_new.py)" = uncommitted ]
    expect_output_has "$P/tests/test_new.py, a test file protected from the run (by git)"
}

@test "rm -rf tests/* as root: every tracked file stays, each removal reported, 120" { case_rm root; }
@test "rm -rf tests/* as nobody: every tracked file stays, each removal reported, 120" { case_rm nobody; }
@test "truncating a tracked fixture as root: refused, unchanged, reported" { case_truncate root; }
@test "truncating a tracked fixture as nobody: refused, unchanged, reported" { case_truncate nobody; }
@test "renaming a test file (and onto one) as root: refused, reported" { case_rename root; }
@test "renaming a test file (and onto one) as nobody: refused, reported" { case_rename nobody; }
@test "renaming or removing a directory of tracked files as root: refused, reported; new files move between them" { case_dir root; }
@test "renaming or removing a directory of tracked files as nobody: refused, reported; new files move between them" { case_dir nobody; }
@test "git clean -fdx tests as root under protect = existing: the uncommitted test stays" { case_git_clean root; }
@test "git clean -fdx tests as nobody under protect = existing: the uncommitted test stays" { case_git_clean nobody; }

@test "protect = none (the default) behaves as before: the test may empty tests/" {
    run "$TESTFENCE" run -- sh -c 'rm -rf tests/fixtures; echo gone'
    expect_status 0
    expect_output_has gone
    [ ! -e tests/fixtures/golden.txt ]
    [[ "$output" != *TEST_SANDBOX_VIOLATION* ]]
}

@test "--update-snapshots: protection off for the run, a snapshot may be rewritten" {
    printf 'protect = "tracked"\n' >testfence.toml
    run "$TESTFENCE" run --update-snapshots -- sh -c 'echo new >tests/fixtures/golden.txt'
    expect_status 0
    [ "$(cat tests/fixtures/golden.txt)" = new ]
}

@test "a snapshot tool's refusal names the tool and the command with --update-snapshots" {
    mkdir tests/__snapshots__
    printf 'old\n' >tests/__snapshots__/test_a.ambr
    git add tests && git -c user.email=t@t -c user.name=t commit -qm snap
    printf 'protect = "tracked"\n' >testfence.toml
    run "$TESTFENCE" run -- sh -c 'echo new >tests/__snapshots__/test_a.ambr
        /usr/bin/python3 -c "open(\"tests/fixtures/golden.txt\", \"w\")" --force-regen; exit 0'
    expect_status 120
    expect_output_has "syrupy rewrote one of your snapshots (pytest --snapshot-update)"
    expect_output_has "testfence run --update-snapshots -- pytest --snapshot-update"
    expect_output_has "pytest-regressions regenerated one of your data files (--force-regen)"
    expect_output_has "2 changes to your protected test files (protect in the config) were refused"
    [ "$(cat tests/__snapshots__/test_a.ambr)" = old ]
}

@test "report.json says blocked_by protect" {
    printf 'protect = "tracked"\n' >testfence.toml
    run "$TESTFENCE" run -- sh -c 'echo x >>tests/test_a.py; exit 0'
    expect_status 120
    grep -q '"blocked_by": "protect"' tests/artifacts/_isolation_workspace_*/report.json
}

@test "a hard link from a protected file to another file system fails with EXDEV, as without testfence: no record, 0" {
    shm=$(mktemp -d /dev/shm/tf-protect-XXXXXX)
    printf 'protect = "tracked"\n' >testfence.toml
    fingerprint >"$BATS_TEST_TMPDIR/before" # the config is the user's, made before the run
    run "$TESTFENCE" run --allow "$shm" -- /usr/bin/python3 -c '
import errno, os, sys
try:
    os.link("tests/fixtures/golden.txt", sys.argv[1] + "/x")
except OSError as e:
    print("errno", errno.errorcode[e.errno])' "$shm"
    rm -rf "$shm"
    expect_status 0
    expect_output_has "errno EXDEV"
    expect_output_lacks "protected test file"
    [ "$(cat tests/fixtures/golden.txt)" = golden ]
    assert_outside_unchanged
}

@test "protect = tracked outside a git repository says so and protects nothing" {
    rm -rf .git
    printf 'protect = "tracked"\n' >testfence.toml
    run "$TESTFENCE" run -- true
    expect_status 0
    expect_output_has "is not in a git repository, nothing is protected"
}

@test "without the namespace layer, one line says protect is not enforced" {
    printf 'protect = "tracked"\n' >testfence.toml
    run "$TF_NONS" "$TESTFENCE" run -- true
    expect_status 0
    expect_output_has 'protect = "tracked" is not enforced without the namespace layer'
}

@test "a bad protect value is a config error with its place, 125" {
    printf 'retain = 3\nprotect = "all"\n' >testfence.toml
    run "$TESTFENCE" run -- true
    expect_status 125
    expect_output_has 'testfence.toml:2:11: protect must be "tracked", "existing" or "none", not "all"'
}

@test "a tracked file with a second name a run made (a hard link) refuses the next run: it could be changed through that name" {
    printf 'protect = "tracked"\n' >testfence.toml
    echo snap >tests/snap.txt
    run "$TESTFENCE" run -- ln tests/snap.txt tests/.cache_link # untracked yet: allowed
    expect_status 0
    git add tests/snap.txt && git -c user.email=t@t -c user.name=t commit -qm snap
    run "$TESTFENCE" run -- sh -c 'echo PWNED >tests/.cache_link'
    expect_status 125
    expect_output_has "$P/tests/snap.txt has 2 names (hard links): the run could change it through another"
    run "$TESTFENCE" run --allow-hazards -- sh -c 'echo PWNED >tests/.cache_link'
    expect_status 125
    [ "$(cat tests/snap.txt)" = snap ]
    # protect = existing: a link a run made in tests/artifacts to a new file, the same.
    rm tests/.cache_link
    printf 'protect = "existing"\n' >testfence.toml
    run "$TESTFENCE" run -- sh -c 'echo m >tests/fixtures/new.txt; mkdir -p tests/artifacts/k; ln tests/fixtures/new.txt tests/artifacts/k/a'
    expect_status 0
    run "$TESTFENCE" run -- sh -c 'echo PWNED >tests/artifacts/k/a'
    expect_status 125
    expect_output_has "tests/fixtures/new.txt has 2 names (hard links)"
    [ "$(cat tests/fixtures/new.txt)" = m ]
}

@test "a tracked file the parent cannot open (nobody made its directory unreadable) refuses the run, even with --allow-hazards" {
    printf 'protect = "tracked"\n' >testfence.toml
    prepare_user nobody
    chmod 700 tests/fixtures
    chown root tests/fixtures # nobody may no longer enter it
    run as_user nobody run --allow-hazards -- sh -c 'true'
    chown nobody tests/fixtures
    expect_status 125
    expect_output_has "protect = \"tracked\": cannot open $P/tests/fixtures/golden.txt to protect it"
}
