#!/bin/sh
# wine_run.sh [--merged] [--stdin] [--retry-silent] PROGRAM [ARG...]: wine PROGRAM ARGs, run
# again (twice at most) when wine failed rather than the program, so a test sees the
# program's own outcome. Used by tests/platforms/wine.bash for every .exe the tests start.
#
# What is retried, each seen in CI and never reproduced by hand:
# - wine's loader asserting as wine exits ("Inconsistency detected by ld.so: dl-fini.c: 87:
#   _dl_fini: Assertion ... failed!", status 127; 2026-12-07, testfence.exe audit): the
#   program had printed all it had to, but its exit status is lost;
# - with --retry-silent, a failure with nothing on stderr (status 1; the TOML decoder on
#   one of 210 valid cases): wine did not start the program. Only for programs that always
#   say why they fail.
# A retry can only turn wine's failure into the program's outcome, never a program's failure
# into a pass: a command that changed files (init, clean) and is run again sees its own
# changes and says so, and the test fails.
#
# --merged: stdout and stderr as one stream in the order written (as bats' `run` and `2>&1`
# take them); otherwise each to its own. --stdin: stdin is read first and given to each try.
merged=0 stdin=0 silent=0
while :; do
    case $1 in
    --merged) merged=1 ;;
    --stdin) stdin=1 ;;
    --retry-silent) silent=1 ;;
    *) break ;;
    esac
    shift
done
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
: >"$dir/in"
[ $stdin -eq 0 ] || cat >"$dir/in"
for try in 1 2 3; do
    if [ $merged -eq 1 ]; then
        wine "$@" <"$dir/in" >"$dir/out" 2>&1
        rc=$?
        cp "$dir/out" "$dir/err"
    else
        wine "$@" <"$dir/in" >"$dir/out" 2>"$dir/err"
        rc=$?
    fi
    if grep -q '^Inconsistency detected by ld\.so: ' "$dir/err"; then
        echo "wine_run.sh: try $try of $*: wine's loader failed at exit; again" >>"$dir/retries"
    elif [ $silent -eq 1 ] && [ $rc -ne 0 ] && [ ! -s "$dir/err" ]; then
        echo "wine_run.sh: try $try of $*: status $rc, nothing said; again" >>"$dir/retries"
    else
        break
    fi
done
cat "$dir/out"
[ $merged -eq 1 ] || cat "$dir/err" >&2
# Each retry is logged (wine.bash prints the log when the file's tests end), so a wine that
# fails more often is seen, not hidden.
[ ! -s "$dir/retries" ] || cat "$dir/retries" >>"${WINE_RUN_LOG:-/dev/null}"
exit "$rc"
