#!/usr/bin/env bash
# What installing the command's seccomp filter costs: the guard's (with its listener) and the
# mount refusals alone, three rounds of N installs each. usage: bench/filter.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
[ -x "$b/tf_bench_filter" ] || { echo "bench/filter.sh: build $b first (make)" >&2; exit 2; }
for round in 1 2 3; do
    "$b/tf_bench_filter" guard "${N:-200}"
    "$b/tf_bench_filter" mounts "${N:-200}"
done
