#!/usr/bin/env bash
# Paired startup of `testfence run -- true` (bench/pair.py: A B A B ..., the median of the
# pair-by-pair ratios) against bubblewrap with the namespaces testfence makes (user when not
# root, mount, PID, a fresh /proc) and, when given, a baseline testfence: one fresh project
# per call, so earlier calls' workspaces do not weigh on later ones.
# usage: bench/startup_pairs.sh [TESTFENCE [BASELINE_TESTFENCE]]
#        PROJECT_DIR: where the projects go (default: $TMPDIR, else /tmp); TMPDIR is where
#        testfence keeps the run's temp dir; N pairs (100), CALLS per comparison (2).
set -euo pipefail
cd "$(dirname "$0")/.."
tf=$(realpath "${1:-build/testfence}")
[ -x "$tf" ] || { echo "bench: build testfence first (make), or pass its path" >&2; exit 2; }
base=${2:+$(realpath "$2")}
pair=$(realpath bench/pair.py)
userns=$([ "$(id -u)" = 0 ] || echo --unshare-user)
echo "machine: $(nproc) cores, $(uname -srm); project on $(stat -f -c %T "${PROJECT_DIR:-${TMPDIR:-/tmp}}"), TMPDIR on $(stat -f -c %T "${TMPDIR:-/tmp}")"
one() { # one call in a fresh project: testfence against the command B
    local proj; proj=$(mktemp -d "${PROJECT_DIR:-${TMPDIR:-/tmp}}/tf-bench-XXXXXX")
    mkdir -p "$proj/tests" "$proj/.git"
    local b=${1//@P@/$proj}
    (cd "$proj" && /usr/bin/python3 "$pair" -n "${N:-100}" --warmup 10 --vs "$b" -- "$tf" run -- true) |
        awk '/^A\/B wall/ {print $4}'
    rm -rf "$proj"
}
for i in $(seq "${CALLS:-2}"); do
    echo "testfence / bwrap-pid: $(one "bwrap $userns --unshare-pid --ro-bind / / --dev /dev --proc /proc --bind @P@/tests @P@/tests true")"
    [ -z "$base" ] || echo "testfence / baseline:  $(one "$base run -- true")"
done
