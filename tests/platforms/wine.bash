# Shared by tests/platforms/*.bats: testfence.exe (make windows) run under wine, in a wine
# prefix of the test's own (under the file's temp dir, so a fenced run of the suite may make
# it), with wine's own chatter off. Skips, saying why, when something is missing.

: "${TF_WINDOWS_BUILD:=${TESTFENCE_SRC:?}/build-windows}"
EXE="$TF_WINDOWS_BUILD/testfence.exe"
DECODER_EXE="$TF_WINDOWS_BUILD/toml_decoder.exe"
WINE_RUN="$TESTFENCE_SRC/tests/platforms/wine_run.sh"
export WINEDEBUG=-all

# wine_skip_reason: why these tests cannot run here, or nothing.
wine_skip_reason() {
    if [ -n "${TESTFENCE_WORKSPACE:-}" ]; then
        # scripts/check.sh's suite under testfence itself: wine names its threads by writing
        # /proc/self/task/*/comm, which the fence refuses and reports (a known false alarm,
        # docs/platforms.md), so every output here would carry violation lines.
        echo "inside 'testfence run': wine's thread-name writes would be reported"
    elif ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
        echo "mingw-w64 is missing (scripts/deps.sh windows)"
    elif ! command -v wine >/dev/null; then
        echo "wine is missing (scripts/deps.sh windows)"
    elif [ ! -f "$EXE" ] || [ ! -f "$DECODER_EXE" ]; then
        echo "no $EXE: run 'make windows' first"
    fi
}

# wine_setup_file: a wineserver kept for the file's life, then the prefix made once
# (wineboot: ~10 s), so each .exe starts in a fraction of a second (the server first: one
# wineboot starts exits with its last client, and each later .exe then boots the prefix
# again); WIN_SKIP set instead when the tests cannot run.
wine_setup_file() {
    WIN_SKIP=$(wine_skip_reason)
    export WIN_SKIP
    [ -z "$WIN_SKIP" ] || return 0
    export WINEPREFIX="$BATS_FILE_TMPDIR/wineprefix"
    export WINE_RUN_LOG="$BATS_FILE_TMPDIR/wine-retries.log"
    mkdir -p "$WINEPREFIX"
    wineserver -p 900 >/dev/null 2>&1 || true
    wineboot -i >/dev/null 2>&1 || true
}

# wine_teardown_file: the server stopped; the runs wine itself failed and wine_run.sh ran
# again are shown (bats prints fd 3), and kept for scripts/check.sh to show (ctest shows
# nothing of a test that passed).
wine_teardown_file() {
    [ -n "${WINEPREFIX:-}" ] && [ -z "${WIN_SKIP:-}" ] && wineserver -k >/dev/null 2>&1
    if [ -s "${WINE_RUN_LOG:-}" ]; then
        sed 's/^/# /' "$WINE_RUN_LOG" >&3
        cat "$WINE_RUN_LOG" >>"$TF_WINDOWS_BUILD/wine-retries.log"
    fi
    return 0
}

wine_skip_if_missing() {
    [ -z "${WIN_SKIP:-}" ] || skip "$WIN_SKIP"
}

# wine_run PROGRAM ARGS: PROGRAM under wine, stdout and stderr as one stream (every caller
# takes them so), run again when wine itself failed (wine_run.sh says when and why).
wine_run() {
    "$WINE_RUN" --merged "$@"
}

# win: testfence.exe with ARGS under wine. It says why whenever it fails (on stderr, or
# audit's findings on stdout), so a failure with nothing printed is wine's and is run again
# (--retry-silent). win_once: the same for a command that changes what it is given (init,
# clean, suggest --apply): not run again (wine_run.sh says why).
win() {
    wine_run --retry-silent "$EXE" "$@"
}
win_once() {
    wine_run --once "$EXE" "$@"
}

# wrappers: in $BATS_FILE_TMPDIR/bin, 'testfence-wine' and 'toml-decoder-wine', programs the
# Linux test runners can take as a binary (run_golden.sh, conformance.py).
wine_wrappers() {
    local bin="$BATS_FILE_TMPDIR/bin"
    mkdir -p "$bin"
    # run_golden.sh starts only `testfence audit`, which reads and never writes, and says on
    # stderr why it fails (every golden case that fails has its words there): a failure with
    # nothing said is wine's (seen once in CI, 2026-12-07: status 1, no output).
    printf '#!/bin/sh\nexec "%s" --retry-silent "%s" "$@"\n' "$WINE_RUN" "$EXE" >"$bin/testfence-wine"
    # The decoder always says why it rejects, so a silent failure is wine's too.
    printf '#!/bin/sh\nexec "%s" --stdin --retry-silent "%s" "$@"\n' "$WINE_RUN" "$DECODER_EXE" \
        >"$bin/toml-decoder-wine"
    chmod +x "$bin/testfence-wine" "$bin/toml-decoder-wine"
    echo "$bin"
}
