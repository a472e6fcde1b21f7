#!/usr/bin/env bash
# Why protect's binds grew dearer with each file (docs/performance.md): FILES (10000) files
# in a fresh mount namespace, each given a read-only copy of itself four ways (bench/
# mounts_bench.c, no testfence): by mount(MS_BIND) from the writable copy (testfence before),
# by open_tree from the same (the new mount API alone), by open_tree from beneath the copy
# (testfence now), by open_tree from a detached copy. As root.
# usage: bench/protect_mounts.sh [BUILD_DIR]   FILES (10000), PROJECT_DIR (TMPDIR, /tmp)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build}")/tf_bench_mounts
[ -x "$bin" ] || { echo "bench: build first (make): no $bin" >&2; exit 2; }
files=${FILES:-10000}
dir=$(mktemp -d "${PROJECT_DIR:-${TMPDIR:-/tmp}}/tf-bench-mounts-XXXXXX")
trap 'rm -rf "$dir"' EXIT
echo "machine: $(nproc) cores, $(uname -srm); files on $(stat -f -c %T "$dir")"
/usr/bin/python3 - "$dir" "$files" <<'PY'
import os, sys
for i in range(int(sys.argv[2])):
    d = os.path.join(sys.argv[1], "d%03d" % (i // 100))
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "f%05d" % i), "w").close()
PY
for how in bind tree beneath detached; do
    /usr/bin/time -f "$how: %e s wall, %S s system (with the namespace's end)" "$bin" "$how" "$dir" "$files"
done
