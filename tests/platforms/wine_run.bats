#!/usr/bin/env bats
# tests/platforms/wine_run.sh, the runner of every .exe the wine tests start, against a fake
# `wine` (no wine needed): it runs a program again only when wine itself failed, and never
# turns a program's own failure into anything else.

bats_require_minimum_version 1.5.0

setup() {
    RUNNER="$TESTFENCE_SRC/tests/platforms/wine_run.sh"
    mkdir -p "$BATS_TEST_TMPDIR/bin"
    PATH="$BATS_TEST_TMPDIR/bin:$PATH"
    export WINE_RUN_LOG="$BATS_TEST_TMPDIR/retries.log"
    export TRIES="$BATS_TEST_TMPDIR/tries"
    : >"$TRIES"
}

# fake_wine FAILS: a `wine` that fails as the real one did in CI on its first FAILS calls
# (FAIL_AS=loader: the program's output, then the loader's assertion, 127; FAIL_AS=silent:
# status 1, nothing printed), then runs its arguments as a command line: its output, and on
# stdin whatever it was given.
fake_wine() {
    cat >"$BATS_TEST_TMPDIR/bin/wine" <<END
#!/bin/sh
echo x >>"$TRIES"
n=\$(wc -l <"$TRIES")
if [ \$n -le $1 ]; then
    case "\$FAIL_AS" in
    loader)
        printf "out of try \$n"  # no newline: the loader's words follow on the same line
        echo "Inconsistency detected by ld.so: dl-fini.c: 87: _dl_fini: Assertion \\\`ns != LM_ID_BASE || i == nloaded' failed!" >&2
        exit 127 ;;
    silent) exit 1 ;;
    esac
fi
exec "\$@"
END
    chmod +x "$BATS_TEST_TMPDIR/bin/wine"
}

tries() { wc -l <"$TRIES"; }

@test "wine's loader failing at exit: run again, the program's own output and status" {
    fake_wine 1
    FAIL_AS=loader run "$RUNNER" --merged sh -c 'echo said; echo warned >&2; exit 3'
    [ "$status" -eq 3 ]
    [ "$output" = "said"$'\n'"warned" ]
    [ "$(tries)" -eq 2 ]
    grep -q "try 1 of sh -c .*: status 127, wine's loader failed at exit; again" "$WINE_RUN_LOG"
}

@test "separate streams: stdout and stderr each to its own, as the program wrote them" {
    fake_wine 2
    FAIL_AS=loader "$RUNNER" sh -c 'echo said; echo warned >&2' >"$BATS_TEST_TMPDIR/o" \
        2>"$BATS_TEST_TMPDIR/e"
    [ "$(cat "$BATS_TEST_TMPDIR/o")" = said ]
    [ "$(cat "$BATS_TEST_TMPDIR/e")" = warned ]
    [ "$(tries)" -eq 3 ]
}

@test "three failures of wine: the third's outcome, not a pass; each said" {
    fake_wine 3
    FAIL_AS=loader run -127 "$RUNNER" --merged true
    [ "$status" -eq 127 ]
    [[ "$output" == *"Inconsistency detected by ld.so"* ]]
    [ "$(tries)" -eq 3 ]
    [ "$(grep -c "; again$" "$WINE_RUN_LOG")" -eq 2 ]
    grep -q "try 3 of true: status 127, wine's loader failed at exit; given up$" "$WINE_RUN_LOG"
}

@test "--once: a command that changes what it is given is not run again; wine's failure stands" {
    fake_wine 1
    FAIL_AS=loader run -127 "$RUNNER" --merged --once true
    [ "$status" -eq 127 ]
    [ "$(tries)" -eq 1 ]
    grep -q "try 1 of true: .*; given up$" "$WINE_RUN_LOG"
}

@test "the loader's words with status 0: the program's outcome is known, not run again" {
    fake_wine 0
    run "$RUNNER" --merged sh -c 'echo "Inconsistency detected by ld.so: x"; exit 0'
    [ "$status" -eq 0 ]
    [ "$(tries)" -eq 1 ]
}

@test "the program's own failure is never run again, with or without --retry-silent" {
    fake_wine 0
    run "$RUNNER" --merged --retry-silent sh -c 'echo "bad input" >&2; exit 1'
    [ "$status" -eq 1 ]
    [ "$output" = "bad input" ]
    [ "$(tries)" -eq 1 ]
    : >"$TRIES"
    run "$RUNNER" --merged sh -c 'exit 4'
    [ "$status" -eq 4 ]
    [ "$(tries)" -eq 1 ]
    [ ! -e "$WINE_RUN_LOG" ]
}

@test "killed by a signal (a timeout's TERM, Ctrl-C): its temp dir removed, it dies of the signal" {
    fake_wine 0
    for sig in TERM INT HUP; do
        mkdir "$BATS_TEST_TMPDIR/tmp-$sig"
        : >"$TRIES"
        # Started by a caller that outlives the signal and writes down how its child ended
        # (Python: -N when killed by signal N), all in a process group of their own killed
        # whole, as a timeout or a terminal kills it; INT not ignored, as a command started in
        # the background has it. Dying of the signal, not exiting 128+N, is what makes a bash
        # script that started it stop at a Ctrl-C. The program says it started before it
        # waits: no sleep decides when the signal comes. (bats waits for whatever holds its
        # fd 3: closed, a failing check leaves no wait.)
        TMPDIR="$BATS_TEST_TMPDIR/tmp-$sig" env --default-signal=INT setsid /usr/bin/python3 -c '
import signal, subprocess, sys
for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(s, lambda *_: None)  # a handler, not SIG_IGN: the child gets the default
with open(sys.argv[1], "w") as f:
    f.write(str(subprocess.run(sys.argv[2:]).returncode))' "$BATS_TEST_TMPDIR/ended-$sig" \
            "$RUNNER" sh -c 'echo started >"$0"; exec sleep 30' "$BATS_TEST_TMPDIR/started-$sig" 3>&- &
        pid=$!
        n=0 # at most 10 s for a start that takes milliseconds: a bound, not a timing
        until [ -s "$BATS_TEST_TMPDIR/started-$sig" ] || [ $n -ge 1000 ]; do
            sleep 0.01
            n=$((n + 1))
        done
        ls -A "$BATS_TEST_TMPDIR/tmp-$sig" | grep -q . || { kill -s KILL -- "-$pid"; false; }
        kill -s "$sig" -- "-$pid"
        wait "$pid"
        case $sig in TERM) want=-15 ;; INT) want=-2 ;; HUP) want=-1 ;; esac
        [ "$(cat "$BATS_TEST_TMPDIR/ended-$sig")" = "$want" ]
        [ -z "$(ls -A "$BATS_TEST_TMPDIR/tmp-$sig")" ]
    done
}

@test "wine is given no fd 3 (bats' output): a wine service it leaves running cannot hold the test open" {
    fake_wine 0
    [ -e /proc/$$/fd/3 ] # bats' own, open in every test
    run "$RUNNER" --merged sh -c '[ -e /proc/$$/fd/3 ] && echo "fd 3 open" || echo "no fd 3"'
    [ "$status" -eq 0 ]
    [ "$output" = "no fd 3" ]
}

@test "with --retry-silent, a failure that printed anything (audit's findings on stdout) is not run again" {
    fake_wine 0
    run "$RUNNER" --retry-silent sh -c 'echo "tests/t.py:3: finding"; exit 1'
    [ "$status" -eq 1 ]
    [ "$output" = "tests/t.py:3: finding" ]
    [ "$(tries)" -eq 1 ]
    [ ! -e "$WINE_RUN_LOG" ]
}

@test "a silent failure is run again only with --retry-silent; stdin given to each try" {
    fake_wine 1
    FAIL_AS=silent run "$RUNNER" sh -c 'exit 0'
    [ "$status" -eq 1 ]
    [ "$(tries)" -eq 1 ]
    : >"$TRIES"
    run sh -c 'printf "a = 1\n" | FAIL_AS=silent "$0" --stdin --retry-silent cat' "$RUNNER"
    [ "$status" -eq 0 ]
    [ "$output" = "a = 1" ]
    [ "$(tries)" -eq 2 ]
}
