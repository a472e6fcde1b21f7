#!/bin/sh
# wine_run.sh [--merged] [--stdin] [--retry-silent] [--once] PROGRAM [ARG...]: wine PROGRAM
# ARGs, run again (twice at most) when wine failed rather than the program, so a test sees the
# program's own outcome. tests/platforms/wine.bash starts with it every .exe whose outcome a
# test reads (not windows_run.bats' run it kills, whose output it reads as it comes).
#
# What is retried, each seen in CI and never reproduced by hand:
# - wine's loader asserting as wine exits ("Inconsistency detected by ld.so: dl-fini.c: 87:
#   _dl_fini: Assertion ... failed!", status 127; 2026-12-07, testfence.exe audit): the
#   program had printed all it had to, but its exit status is lost;
# - with --retry-silent, a failure with nothing printed at all (status 1; the TOML decoder on
#   one of 210 valid cases, testfence.exe audit on one of 82 golden cases and on a config
#   error, 2026-12-08): wine did not start the program. Only for programs that always say
#   why they fail (an audit's findings on stdout are said: not run again).
# A retry is sound only for a command whose outcome is the same when it runs twice (audit,
# doctor, explain, a run): a command that changes what it is given (init, clean, suggest
# --apply) is started with --once, so that wine's failure fails the test rather than a second
# try that meets the first one's changes.
#
# --merged: stdout and stderr as one stream in the order written (as bats' `run` and `2>&1`
# take them); otherwise each to its own, all of stdout first. --stdin: stdin is read first and
# given to each try (else the program reads an empty stdin).
merged=0 stdin=0 silent=0 tries=3
while :; do
    case $1 in
    --merged) merged=1 ;;
    --stdin) stdin=1 ;;
    --retry-silent) silent=1 ;;
    --once) tries=1 ;;
    *) break ;;
    esac
    shift
done
# A shell killed by a signal runs no EXIT trap: a timeout's TERM, a Ctrl-C or a closed
# terminal would leave the temp dir behind. On each, the dir is removed and the shell then
# dies of that signal, so a caller sees it killed (bash stops at a Ctrl-C only when its child
# died of it; an `exit 130` would let it go on). Set before the dir exists (only a signal
# between mktemp making it and `dir=` naming it can leave it). A signal sent to this shell
# alone, not to its group (a timeout and a terminal signal the group), acts once the wine it
# waits for has ended.
dir=
trap 'rm -rf "$dir"' EXIT
for sig in HUP INT TERM; do
    trap 'rm -rf "$dir"; trap - EXIT '"$sig"'; kill -s '"$sig"' $$' "$sig"
done
dir=$(mktemp -d) || exit 2
: >"$dir/in"
[ $stdin -eq 0 ] || cat >"$dir/in"
try=1
while :; do
    # 3>&-: bats' output pipe is not wine's. A wine service left running after the program
    # (winedevice.exe once outlived its wineserver in CI, 2026-12-07) held it open, and bats
    # waited for it until ctest's timeout.
    if [ $merged -eq 1 ]; then
        wine "$@" <"$dir/in" >"$dir/out" 2>&1 3>&-
        rc=$?
        cp "$dir/out" "$dir/err"
    else
        wine "$@" <"$dir/in" >"$dir/out" 2>"$dir/err" 3>&-
        rc=$?
    fi
    why=
    if [ $rc -ne 0 ] && grep -q 'Inconsistency detected by ld\.so: ' "$dir/err"; then
        why="status $rc, wine's loader failed at exit"
    elif [ $silent -eq 1 ] && [ $rc -ne 0 ] && [ ! -s "$dir/err" ] && [ ! -s "$dir/out" ]; then
        why="status $rc, nothing said"
    fi
    [ -n "$why" ] || break
    if [ $try -ge $tries ]; then
        echo "wine_run.sh: try $try of $*: $why; given up" >>"$dir/retries"
        break
    fi
    echo "wine_run.sh: try $try of $*: $why; again" >>"$dir/retries"
    try=$((try + 1))
done
cat "$dir/out"
[ $merged -eq 1 ] || cat "$dir/err" >&2
# Each retry is logged (wine.bash shows the log when the file's tests end, and scripts/check.sh
# at its end), so a wine that fails more often is seen, not hidden.
[ ! -s "$dir/retries" ] || cat "$dir/retries" >>"${WINE_RUN_LOG:-/dev/null}"
exit "$rc"
