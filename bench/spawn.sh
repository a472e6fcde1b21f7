#!/usr/bin/env bash
# What each process started under `testfence run` costs: a "suite" that starts N short
# processes (a shell loop of /bin/true; then Python's subprocess.run, as a test that runs a
# CLI does), timed bare, under `testfence run`, and under it with the shim left out
# (LD_PRELOAD unset: the kernel's fence alone), paired and interleaved by bench/pair.py.
# The shim's load per process is (run - run without the shim) / N.
# usage: bench/spawn.sh [BUILD_DIR]   (N=1000 processes, RUNS=10 pairs)
set -euo pipefail
cd "$(dirname "$0")/.."
src=$(pwd)
build=$(cd "${1:-build}" && pwd)
tf=$build/testfence
n=${N:-1000}
runs=${RUNS:-10}

proj=$(mktemp -d)
trap 'rm -rf "$proj"' EXIT
mkdir -p "$proj/tests" "$proj/.git"
printf '#!/bin/sh\ni=0\nwhile [ $i -lt %d ]; do /bin/true; i=$((i + 1)); done\n' "$n" >"$proj/tests/loop.sh"
printf 'import subprocess\nfor _ in range(%d):\n    subprocess.run(["/bin/true"], check=True)\n' "$n" \
    >"$proj/tests/loop.py"
chmod +x "$proj/tests/loop.sh"
cd "$proj"
unset TESTFENCE_WORKSPACE TESTFENCE_RUN_ID TESTFENCE_PLUGIN
for load in "sh tests/loop.sh" "/usr/bin/python3 tests/loop.py"; do
    echo "== $n processes from: $load"
    echo "-- A = testfence run, B = bare"
    "$src/bench/pair.py" -n "$runs" --vs "$load" -- "$tf" run -- $load
    echo "-- A = testfence run, B = testfence run with LD_PRELOAD unset (no shim)"
    "$src/bench/pair.py" -n "$runs" --vs "$tf run -- env -u LD_PRELOAD $load" -- "$tf" run -- $load
done
