# Shared setup for the integration tests: a throwaway project and a fingerprint
# of everything outside its tests/ directory.

: "${TESTFENCE:?set TESTFENCE to the testfence binary (ctest does)}"

# The suite must not depend on which pytest plugins this machine has (pytest-benchmark,
# say, which makes .benchmarks at the root): every pytest loads only what it names with -p.
export PYTEST_DISABLE_PLUGIN_AUTOLOAD=1

# runtmp_user: where runs make their private temp dirs (TMPDIR, else /tmp), as
# /tmp/testfence-<uid>; each run's is <that>/<run_id>.
runtmp_user() {
    local base
    base=$(realpath "${TMPDIR:-/tmp}")
    echo "$base/testfence-$(id -u)"
}

# reachable_by_others: let other users (nobody) reach $BATS_TEST_TMPDIR: o+x on every
# directory above it that has neither x for others nor the sticky bit.
reachable_by_others() {
    local d="$BATS_TEST_TMPDIR"
    while [ "$d" != / ]; do
        case $(stat -c %A "$d") in *[xt]) ;; *) chmod o+x "$d" ;; esac
        d=$(dirname "$d")
    done
}

# mkproject: a project with root files worth protecting, and cd into it.
mkproject() {
    unset PYTEST_ADDOPTS # an outer run (the suite under itself) sets it
    # The pytest plugins installed on this machine take no part: a test names each one it
    # needs with -p (pytest-benchmark, for one, writes .benchmarks at the root).
    export PYTEST_DISABLE_PLUGIN_AUTOLOAD=1
    P="$BATS_TEST_TMPDIR/proj"
    mkdir -p "$P/tests" "$P/data"
    mkdir "$P/.git"
    printf 'theme = "dark"\n' >"$P/config.toml"
    printf '[keys]\nopenai = "sk-secret"\n' >"$P/credentials.toml"
    printf 'sample\n' >"$P/data/sample.csv"
    cd "$P" || return 1
    fingerprint >"$BATS_TEST_TMPDIR/before"
}

# fingerprint: content hash, mode, owner and mtime of every file outside tests/,
# and the list of every directory entry, so any change shows up.
fingerprint() {
    (cd "$P" && find . -path ./tests -prune -o -print0 | sort -z |
        xargs -0 stat -c '%n %F %a %u:%g %s %Y' &&
        find . -path ./tests -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)
}

# assert_outside_unchanged: nothing outside tests/ changed since mkproject.
assert_outside_unchanged() {
    fingerprint >"$BATS_TEST_TMPDIR/after"
    if ! diff -u "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"; then
        echo "files outside tests/ changed" >&2
        return 1
    fi
}

# expect_status N: the last `run` exited with N.
expect_status() {
    if [ "$status" -ne "$1" ]; then
        echo "exit status $status, expected $1; output:" >&2
        echo "$output" >&2
        return 1
    fi
}

# expect_output_has TEXT: the last `run` printed TEXT.
expect_output_has() {
    if [[ "$output" != *"$1"* ]]; then
        echo "output lacks \"$1\"; output:" >&2
        echo "$output" >&2
        return 1
    fi
}

# expect_output_lacks TEXT: the last `run` did not print TEXT.
expect_output_lacks() {
    if [[ "$output" == *"$1"* ]]; then
        echo "output has \"$1\"; output:" >&2
        echo "$output" >&2
        return 1
    fi
}

# fingerprint_meta: fingerprint, plus what a metadata change touches: inode and link
# count, mtime and ctime to the nanosecond (not atime: reading changes it), every
# xattr in every namespace, and the inode flags (chattr) of files and directories.
fingerprint_meta() {
    fingerprint
    (cd "$P" && find . -path ./tests -prune -o -print0 | sort -z |
        xargs -0 stat -c '%n inode=%i links=%h mtime=%.9Y ctime=%.9Z' &&
        find . -path ./tests -prune -o -print0 | sort -z |
        xargs -0 getfattr -h -d -m - --absolute-names 2>&1 &&
        find . -path ./tests -prune -o \( -type f -o -type d \) -print0 | sort -z |
        xargs -0 lsattr -d 2>&1)
}
