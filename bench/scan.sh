#!/usr/bin/env bash
# What a big tests/ costs `testfence run -- true`: the hazard scans before the command (what a
# test could have planted: modules, pytest configuration, hard links) and after it (what the
# command left), against the same run in a project whose tests/ is empty. Each project's
# tests/ holds FILES files in 100 directories (Python modules and data, as a suite has);
# bench/pair.py interleaves the two runs (A: the big tests/, B: the empty one).
# usage: bench/scan.sh [TESTFENCE]   FILES: counts (default "10000 100000"); N pairs (30);
#        PROJECT_DIR: where the projects go (default $TMPDIR, else /tmp)
set -euo pipefail
cd "$(dirname "$0")/.."
tf=$(realpath "${1:-build/testfence}")
[ -x "$tf" ] || { echo "bench: build testfence first (make), or pass its path" >&2; exit 2; }
pair=$(realpath bench/pair.py)
base=$(mktemp -d "${PROJECT_DIR:-${TMPDIR:-/tmp}}/tf-scan-XXXXXX")
trap 'rm -rf "$base"' EXIT
mkdir -p "$base/empty/tests" "$base/empty/.git"
echo "machine: $(nproc) cores, $(uname -srm); projects on $(stat -f -c %T "$base")"
for files in ${FILES:-10000 100000}; do
    p="$base/p$files"
    mkdir -p "$p/.git"
    /usr/bin/python3 - "$p/tests" "$files" <<'EOF'
import os, sys
top, n = sys.argv[1], int(sys.argv[2])
for d in range(100):
    sub = os.path.join(top, "pkg%02d" % d)
    os.makedirs(sub)
    open(os.path.join(sub, "__init__.py"), "w").close()
for i in range(n - 100):
    name = "test_%d.py" % i if i % 2 else "data_%d.json" % i
    with open(os.path.join(top, "pkg%02d" % (i % 100), name), "w") as f:
        f.write("x = 1\n")
EOF
    printf '%s files in tests/: ' "$files"
    /usr/bin/python3 "$pair" -n "${N:-30}" --warmup 3 \
        --vs "sh -c 'cd $base/empty && exec $tf run -- true'" -- \
        sh -c "cd $p && exec $tf run -- true" |
        awk '/^A wall/ {a=$5} /^B wall/ {b=$5} /^A\/B wall/ {r=$4} /^A\/B cpu/ {c=$4}
             END {printf "%s s against %s s: wall %s, cpu %s\n", a, b, r, c}'
done
