#!/usr/bin/env bats
# The unfenced parent follows no link planted under the writable set: a command (or a
# process left over from an earlier run, after the hazard scan) that swaps tests/artifacts,
# or a directory in it, for a symlink makes run, clean and retention touch nothing outside.

load ../support/helpers

setup() {
    mkproject
    # Outside the project: what a planted symlink points at, dressed up as old runs.
    OUT="$BATS_TEST_TMPDIR/outside"
    local id=20200101T000000Z-0000001
    mkdir -p "$OUT/_isolation_workspace_$id" "$OUT/tmp/$id" "$OUT/_pytest_tmp/$id"
    printf 'testfence run workspace %s\n' "$id" >"$OUT/_isolation_workspace_$id/.testfence-workspace"
    echo precious >"$OUT/tmp/$id/data"
    echo precious >"$OUT/_pytest_tmp/$id/data"
    echo precious >"$OUT/config.toml"
    outside_print >"$BATS_TEST_TMPDIR/out_before"
}

outside_print() {
    (cd "$OUT" && find . -print0 | sort -z | xargs -0 stat -c '%n %F %a %s %Y' &&
        find . -type f -print0 | sort -z | xargs -0 sha256sum)
}

assert_nothing_outside_changed() {
    assert_outside_unchanged
    outside_print >"$BATS_TEST_TMPDIR/out_after"
    diff -u "$BATS_TEST_TMPDIR/out_before" "$BATS_TEST_TMPDIR/out_after"
}

@test "tests/artifacts swapped for a symlink mid-run: run, retention and clean stay inside" {
    run "$TESTFENCE" run -- sh -c 'mv tests/artifacts tests/moved && ln -s "$0" tests/artifacts' "$OUT"
    expect_status 0
    [ -L tests/artifacts ]
    # The next run and clean: the artifacts dir now resolves outside the writable set.
    run "$TESTFENCE" run --retain 1 --allow-hazards -- true
    expect_status 125
    expect_output_has "the artifacts dir $OUT (\"tests/artifacts\") is outside the writable set"
    run "$TESTFENCE" clean --all
    expect_status 125
    expect_output_has "the artifacts dir $OUT (\"tests/artifacts\") is outside the writable set"
    assert_nothing_outside_changed
}

@test "tests/artifacts swapped after the plan was made: the workspace is not created outside" {
    # libtestfence plans (tf_load) and creates (tf_prepare) in two steps: the swap goes in
    # between, where a leftover process could make it after the hazard scan of a run.
    LIB="$(dirname "$TESTFENCE")/libtestfence.so"
    [ -e "$LIB" ] || skip "libtestfence.so not built"
    mkdir -p tests/artifacts
    run /usr/bin/python3 - "$LIB" "$P" "$OUT" <<'PY'
import ctypes, os, sys
lib = ctypes.CDLL(sys.argv[1])
lib.tf_open.restype = ctypes.c_void_p
lib.tf_error.restype = ctypes.c_char_p
for f in ("tf_load", "tf_check", "tf_prepare", "tf_error", "tf_close"):
    getattr(lib, f).argtypes = [ctypes.c_void_p] + ([ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t] if f == "tf_load" else [])
s = lib.tf_open()
assert lib.tf_load(s, sys.argv[2].encode(), None, None, 0) == 0, lib.tf_error(s)
assert lib.tf_check(s) == 0, lib.tf_error(s)
os.rename(sys.argv[2] + "/tests/artifacts", sys.argv[2] + "/tests/moved")
os.symlink(sys.argv[3], sys.argv[2] + "/tests/artifacts")
print("prepare", lib.tf_prepare(s), lib.tf_error(s).decode())
PY
    expect_output_has "prepare -1 refusing to use $P/tests/artifacts: it is a symlink or not a directory"
    assert_nothing_outside_changed
}

@test "a directory in tests/artifacts swapped for a symlink: retention and clean leave it" {
    "$TESTFENCE" run --retain 10 -- true
    sleep 1.1 # a second run id
    id=$(ls tests/artifacts | sed -n 's/^_isolation_workspace_//p')
    mkdir -p "$OUT/$id" && echo precious >"$OUT/$id/data"
    outside_print >"$BATS_TEST_TMPDIR/out_before"
    run "$TESTFENCE" run --retain 10 -- sh -c 'rm -rf tests/artifacts/tmp && ln -s "$0" tests/artifacts/tmp' "$OUT"
    expect_status 0
    # The run's own temp dir is outside the project: nothing is made through the link; the
    # old runs' tmp/<id> (earlier versions made one) is not followed either.
    run "$TESTFENCE" run --retain 1 -- true
    expect_status 0
    expect_output_has "$P/tests/artifacts/tmp (a symlink is never followed)"
    run "$TESTFENCE" clean --all
    expect_status 125
    expect_output_has "(a symlink is never followed)"
    assert_nothing_outside_changed
    [ "$(ls -d tests/artifacts/_isolation_workspace_* | wc -l)" -eq 3 ] # the runs stay, said so
}

@test "clean refuses an artifacts dir outside the writable set, as run does" {
    printf 'artifacts = "elsewhere"\n' >testfence.toml
    mkdir elsewhere
    cp -a "$OUT/_isolation_workspace_20200101T000000Z-0000001" elsewhere/
    fingerprint >"$BATS_TEST_TMPDIR/before"
    run "$TESTFENCE" clean --all
    expect_status 125
    expect_output_has "is outside the writable set"
    assert_nothing_outside_changed
}

@test "an old run a test made unremovable is a warning, not a reason to stop the next run" {
    "$TESTFENCE" run -- sh -c 'mkdir "$TESTFENCE_WORKSPACE/stuck" && touch "$TESTFENCE_WORKSPACE/stuck/f"'
    ws=$(ls -d tests/artifacts/_isolation_workspace_*)
    if [ "$(id -u)" -eq 0 ]; then
        chattr +i "$ws/stuck/f" || skip "no chattr on this file system"
    else
        chmod 555 "$ws/stuck"
    fi
    sleep 1.1
    run "$TESTFENCE" run --retain 1 -- true
    chattr -i "$ws/stuck/f" 2>/dev/null || chmod 755 "$ws/stuck"
    expect_status 0
    expect_output_has "testfence: warning: the old run $(basename "$ws" | sed 's/_isolation_workspace_//') was not removed"
    [ -d "$ws" ]
    run "$TESTFENCE" clean --retain 1
    expect_status 0
    [ ! -d "$ws" ]
}

@test "a nested writable entry a run swapped for a link up: the next run refuses, nothing outside is writable" {
    mkdir tests/out
    printf 'writable = ["tests", "tests/out"]\n' >testfence.toml
    fingerprint >"$BATS_TEST_TMPDIR/before"
    run "$TESTFENCE" run -- sh -c 'rm -rf tests/out && ln -s .. tests/out'
    expect_status 0
    # Resolved through the link, "tests/out" would be the project root.
    run "$TESTFENCE" run -- sh -c 'echo PWNED >config.toml'
    expect_status 125
    expect_output_has "testfence: writable entry \"tests/out\" goes through the symlink $P/tests/out inside the writable set"
    run "$TESTFENCE" run --allow-hazards -- sh -c 'echo PWNED >config.toml'
    expect_status 125
    assert_outside_unchanged
    # An --allow through the link: the same.
    rm tests/out && printf 'writable = ["tests"]\n' >testfence.toml && ln -s .. tests/out
    run "$TESTFENCE" run --allow tests/out -- true
    expect_status 125
    expect_output_has "writable entry \"tests/out\" goes through the symlink"
}

@test "tests/artifacts a run made a link into tests/ itself: the next run refuses (it would own all of tests/)" {
    run "$TESTFENCE" run -- sh -c 'rm -rf tests/artifacts && ln -s . tests/artifacts'
    expect_status 0
    run "$TESTFENCE" run -- true
    expect_status 125
    expect_output_has "testfence: the artifacts dir \"tests/artifacts\" goes through the symlink $P/tests/artifacts inside the writable set"
    run "$TESTFENCE" clean --all
    expect_status 125
    assert_outside_unchanged
}

@test "a config a run planted in tests/ never becomes the root for a user who runs from there" {
    echo gold >tests/golden.txt
    run "$TESTFENCE" run -- sh -c 'printf "writable = [\".\"]\n" >tests/testfence.toml
        mkdir -p tests/sub && printf "[tool.testfence]\nwritable = [\".\"]\n" >tests/sub/pyproject.toml'
    expect_status 0
    cd tests
    run "$TESTFENCE" run -- sh -c 'echo PWNED >golden.txt'
    expect_status 125
    expect_output_has "testfence: the project root $P/tests lies in the writable set of the project at $P (writable \"tests\"), where a test could have written its marker"
    cd sub
    run "$TESTFENCE" run -- sh -c 'echo PWNED >../golden.txt'
    expect_status 125
    expect_output_has "the project root $P/tests/sub lies in the writable set of the project at"
    run "$TESTFENCE" run --dry-run -- true
    expect_status 125
    cd "$P"
    [ "$(cat tests/golden.txt)" = gold ]
    # The user's own choice: --root.
    run "$TESTFENCE" run --root tests -- true
    expect_status 0
    assert_outside_unchanged
}

@test "a config a run planted in a declared output directory never becomes the root either" {
    printf 'outputs = ["reports/"]\n' >testfence.toml
    mkdir reports && echo gold >golden.txt
    run "$TESTFENCE" run -- sh -c 'mkdir -p reports/sub && printf "writable = [\"../..\"]\n" >reports/sub/testfence.toml'
    expect_status 0
    fingerprint >"$BATS_TEST_TMPDIR/before" # the planted config (a declared output) included
    cd reports/sub
    run "$TESTFENCE" run -- sh -c 'echo PWNED >../../golden.txt'
    expect_status 125
    expect_output_has "testfence: the project root $P/reports/sub lies in the writable set of the project at $P (writable \"reports/\"), where a test could have written its marker"
    cd "$P"
    [ "$(cat golden.txt)" = gold ]
    assert_outside_unchanged
}

@test "a root inside a project whose config cannot be read is refused: its writable set is unknown" {
    mkdir -p inner && printf 'writable = ["data"]\n' >inner/testfence.toml
    mkdir -p inner/data && echo gold >golden.txt
    printf 'writable = [\n' >testfence.toml # the outer project's config, broken
    cd inner
    run "$TESTFENCE" run -- sh -c 'echo PWNED >../golden.txt'
    expect_status 125
    expect_output_has "testfence: the project root $P/inner lies inside the project at $P, whose configuration cannot be read ("
    expect_output_has "pass --root $P/inner if the inner project is yours"
    [ "$(cat ../golden.txt)" = gold ]
    run "$TESTFENCE" run --root . -- true
    expect_status 0
}
