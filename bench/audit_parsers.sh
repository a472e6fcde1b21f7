#!/usr/bin/env bash
# The benchmark that chose the audit's parser: tree-sitter-python 0.23.6 (the newest
# grammar Debian's libtree-sitter 0.20.7 can load: 0.25 is ABI 15, the library reads 13-14)
# against the audit's own recursive-descent parser, on every .py file of /usr/lib/python3.11
# (with its test suite) and of DIRS (say, a newer CPython's Lib): CPU time, throughput, peak
# memory on the largest file, and how many files each rejects. CPython 3.11 itself rejects 17
# of its own files: 5 Python 2 files (lib2to3 data) for their grammar, 12 for reasons beyond
# it (future statements, encodings, identifiers), which neither parser checks.
# usage: bench/audit_parsers.sh [BUILD_DIR [DIR...]]   (default: build; scripts/deps.sh bench)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
prog=$build/tf_bench_parsers
[ -x "$prog" ] || { echo "audit_parsers.sh: build $prog first" >&2; exit 2; }
mapfile -t files < <(find /usr/lib/python3.11 -name '*.py' -not -path '*/site-packages/*' | sort)
largest=$(find /usr/lib/python3.11 -name '*.py' -not -path '*/site-packages/*' -printf '%s %p\n' |
    sort -n | tail -1 | cut -d' ' -f2)
for parser in ours tree-sitter; do
    "$prog" "$parser" "${files[@]}" || continue
    for dir in "$@"; do
        mapfile -t more < <(find "$dir" -name '*.py' -not -path '*/site-packages/*' | sort)
        SHOW_REJECTED=1 "$prog" "$parser" "${more[@]}" | sed "s|^|  $dir: |"
    done
    /usr/bin/time -f "%M" "$prog" "$parser" "$largest" >/dev/null 2>"$build/parsers.time" || true
    kb=$(tail -1 "$build/parsers.time")
    echo "             peak RSS parsing $(basename "$largest") ($(($(stat -c %s "$largest") / 1024)) KB): $((kb / 1024)) MB"
done
