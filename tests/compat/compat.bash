# Shared by tests/compat: a project as a user has it, run bare and fenced.

load ../support/helpers

LIB="$(dirname "$TESTFENCE")/libtestfence.so"
PY=/usr/bin/python3

# compat_project: a git repository with one commit and a tests/ directory, cd into it.
compat_project() {
    unset PYTEST_ADDOPTS TESTFENCE_WORKSPACE TESTFENCE_RUN_ID TESTFENCE_PLUGIN
    P="$BATS_TEST_TMPDIR/proj"
    mkdir -p "$P/tests"
    cd "$P" || return 1
    printf 'name = "demo"\n' >config.toml
    git init -q . && git add -A && git -c user.name=t -c user.email=t@example.com commit -qm init
    fingerprint >"$BATS_TEST_TMPDIR/before"
}

# fenced CMD...: testfence run -- CMD, as `run` does it.
fenced() { run "$TESTFENCE" run -- "$@"; }

# plugin ARGS...: pytest with the plugin (and only the plugins named).
plugin() {
    PYTHONPATH="$TESTFENCE_SRC/python${PYTHONPATH:+:$PYTHONPATH}" TESTFENCE_LIBRARY="$LIB" \
        run $PY -m pytest -p testfence "$@"
}

# expect_clean: exit 0, and no blocked write printed or summarised.
expect_clean() {
    expect_status 0
    if [[ "$output" == *TEST_SANDBOX_VIOLATION* || "$output" == *"were blocked"* ||
        "$output" == *"was blocked"* ]]; then
        echo "a blocked write was reported:" >&2
        echo "$output" >&2
        return 1
    fi
}

# compat_monorepo: a git repository at the top ($M, one commit) whose project is pkg/ ($P:
# its own pyproject.toml and tests/, so the root is pkg/ and git's repository its parent),
# cd into pkg/. The enclosing repository's fingerprint goes to mono-before.
compat_monorepo() {
    unset PYTEST_ADDOPTS TESTFENCE_WORKSPACE TESTFENCE_RUN_ID TESTFENCE_PLUGIN
    M="$BATS_TEST_TMPDIR/mono"
    P="$M/pkg"
    mkdir -p "$P/tests" "$P/src"
    printf 'the top of the monorepo\n' >"$M/README"
    printf '[project]\nname = "pkg"\n' >"$P/pyproject.toml"
    printf 'x = 1\n' >"$P/src/mod.py"
    (cd "$M" && git init -q . && git add -A &&
        git -c user.name=t -c user.email=t@example.com commit -qm init &&
        git status --short >/dev/null) # the index refreshed now, bare, not by a test later
    cd "$P" || return 1
    fingerprint >"$BATS_TEST_TMPDIR/before"
    mono_fingerprint >"$BATS_TEST_TMPDIR/mono-before"
}

# mono_fingerprint: fingerprint of the whole monorepo, its .git included, but pkg/tests.
mono_fingerprint() {
    (cd "$M" && find . -path ./pkg/tests -prune -o -print0 | sort -z |
        xargs -0 stat -c '%n %F %a %u:%g %s %Y' &&
        find . -path ./pkg/tests -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)
}

# assert_mono_unchanged: nothing in the monorepo outside pkg/tests changed.
assert_mono_unchanged() {
    mono_fingerprint >"$BATS_TEST_TMPDIR/mono-after"
    if ! diff -u "$BATS_TEST_TMPDIR/mono-before" "$BATS_TEST_TMPDIR/mono-after"; then
        echo "files of the enclosing repository changed" >&2
        return 1
    fi
}
