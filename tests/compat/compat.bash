# Shared by tests/compat: a project as a user has it, run bare and fenced.

load ../support/helpers

LIB="$(dirname "$TESTFENCE")/libtestfence.so"
PY=/usr/bin/python3

# compat_project: a git repository with one commit and a tests/ directory, cd into it.
compat_project() {
    OUTER_RUN_ID=${TESTFENCE_RUN_ID:-} # the suite's own run, when it runs under testfence
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
