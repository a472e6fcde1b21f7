#!/usr/bin/env bats
# The seccomp metadata guard fails closed: every way of naming a file outside tests/ that
# it used to resolve in its own context, or give up on and allow, is refused; the same
# calls on files inside tests/ still work. As root, and as nobody where it matters.

load ../support/helpers

bats_require_minimum_version 1.5.0

setup_file() {
    # Copies nobody can execute (the build dir may not be reachable for it).
    local b="$BATS_FILE_TMPDIR/bin" v
    mkdir -p "$b"
    install -m 755 "$TESTFENCE" "$TF_GUARDDRV" "$b/"
    for v in "$(dirname "$TESTFENCE")"/libtestfence_preload.so*; do
        [ -e "$v" ] && install -m 755 "$v" "$b/"
    done
    chmod 755 "$BATS_FILE_TMPDIR"
}

setup() {
    if [ -n "${TESTFENCE_RUN_ID:-}" ]; then
        skip "nested under testfence: the outer run's guard holds the one seccomp listener"
    fi
    mkproject
    printf 'inside\n' >tests/inside.txt
    chmod 644 tests/inside.txt
    fingerprint_meta >"$BATS_TEST_TMPDIR/before"
    TF="$BATS_FILE_TMPDIR/bin/testfence"
    DRV="$BATS_FILE_TMPDIR/bin/$(basename "$TF_GUARDDRV")"
}

# assert_meta_unchanged: nothing outside tests/ changed, metadata included.
assert_meta_unchanged() {
    fingerprint_meta >"$BATS_TEST_TMPDIR/after"
    diff -u "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
}

# as_nobody CMD...: run CMD as nobody in a copy of the project nobody owns.
as_nobody() {
    reachable_by_others # nobody must reach the project
    chown -R nobody:nogroup "$P"
    fingerprint_meta >"$BATS_TEST_TMPDIR/before"
    run --separate-stderr setpriv --reuid nobody --regid nogroup --clear-groups -- "$@"
}

@test "chmod without following links (glibc: /proc/self/fd/N) is judged in the child's view" {
    run --separate-stderr "$TF" run -- "$DRV" procfd-nofollow config.toml
    [ "$output" = EACCES ] || { echo "$output"; false; }
    run --separate-stderr "$TF" run -- "$DRV" procfd-nofollow tests/inside.txt
    [ "$output" = ok ] || { echo "$output"; false; }
    [ "$(stat -c %a tests/inside.txt)" = 600 ]
    assert_meta_unchanged
}

@test "an empty path with AT_EMPTY_PATH on AT_FDCWD is the cwd" {
    run --separate-stderr "$TF" run -- "$DRV" empty-cwd "$P"
    [ "$output" = EACCES ] || { echo "$output"; false; }
    run --separate-stderr "$TF" run -- "$DRV" empty-cwd "$P/tests"
    [ "$output" = ok ] || { echo "$output"; false; }
    assert_meta_unchanged
}

@test "a path of PATH_MAX-1 bytes is resolved, not let through" {
    run --separate-stderr "$TF" run -- "$DRV" long-path config.toml
    [ "$output" = EACCES ] || { echo "$output"; false; }
    run --separate-stderr "$TF" run -- "$DRV" long-path tests/inside.txt
    [ "$output" = ok ] || { echo "$output"; false; }
    assert_meta_unchanged
}

@test "a cwd deeper than PATH_MAX is walked by fds, not let through" {
    run --separate-stderr "$TF" run -- "$DRV" deep-cwd tests config.toml
    [ "$output" = EACCES ] || { echo "$output"; false; }
    rm -rf tests/ddd* # the hazard scan refuses a tree too deep to check
    run --separate-stderr "$TF" run -- "$DRV" deep-cwd tests tests/inside.txt
    [ "$output" = ok ] || { echo "$output"; false; }
    assert_meta_unchanged
}

@test "an ioctl the guard does not know is refused on a file outside, allowed inside" {
    run --separate-stderr "$TF" run -- "$DRV" ioctl-setversion config.toml
    [ "$output" = EACCES ] || { echo "$output"; false; }
    run --separate-stderr "$TF" run -- "$DRV" ioctl-setversion tests/inside.txt
    [ "$output" != EACCES ] || { echo "$output"; false; }
    assert_meta_unchanged
}

@test "a non-dumpable caller is refused, as root and as nobody" {
    run --separate-stderr "$TF" run -- "$DRV" undumpable config.toml
    [ "$output" = EACCES ] || { echo "$output"; false; }
    as_nobody "$TF" run -- "$DRV" undumpable config.toml
    [ "$output" = EACCES ] || { echo "$output"; false; }
    assert_meta_unchanged
}

@test "as nobody: the same ways in and out" {
    as_nobody "$TF" run -- "$DRV" procfd-nofollow config.toml
    [ "$output" = EACCES ] || { echo "$output"; false; }
    run --separate-stderr setpriv --reuid nobody --regid nogroup --clear-groups -- "$TF" run -- "$DRV" long-path config.toml
    [ "$output" = EACCES ] || { echo "$output"; false; }
    run --separate-stderr setpriv --reuid nobody --regid nogroup --clear-groups -- "$TF" run -- "$DRV" procfd-nofollow tests/inside.txt
    [ "$output" = ok ] || { echo "$output"; false; }
    assert_meta_unchanged
}
