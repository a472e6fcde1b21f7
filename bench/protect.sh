#!/usr/bin/env bash
# The cost of protect = "tracked" (each tracked file under tests/ bound read-only onto itself
# in the namespace layer) for a tests/ of FILES tracked files (10000), against protect =
# "none", in the same call: `testfence run -- true`, paired (bench/pair.py: A B A B ..., the
# median of the pair-by-pair ratios). Only the start and the end of a run change: reading or
# running a protected file is a read through a bind mount.
# usage: bench/protect.sh [TESTFENCE]   N pairs (20), FILES (10000), PER_DIR files in each
#        directory (100; 1: as many directories as files, each marked), PROJECT_DIR (TMPDIR, /tmp)
set -euo pipefail
cd "$(dirname "$0")/.."
tf=$(realpath "${1:-build/testfence}")
[ -x "$tf" ] || { echo "bench: build testfence first (make), or pass its path" >&2; exit 2; }
pair=$(realpath bench/pair.py)
files=${FILES:-10000}
proj=$(mktemp -d "${PROJECT_DIR:-${TMPDIR:-/tmp}}/tf-bench-protect-XXXXXX")
trap 'rm -rf "$proj"' EXIT
echo "machine: $(nproc) cores, $(uname -srm); project on $(stat -f -c %T "$proj")"
cd "$proj"
git init -q .
/usr/bin/python3 - "$files" "${PER_DIR:-100}" <<'PY'
import os, sys
n, per = int(sys.argv[1]), int(sys.argv[2])
for i in range(n):
    d = "tests/d%05d" % (i // per)
    os.makedirs(d, exist_ok=True)
    with open("%s/test_%05d.py" % (d, i), "w") as f:
        f.write("def test_%d():\n    assert True\n" % i)
PY
git add tests && git -c user.email=b@b -c user.name=b commit -qm bench
printf 'protect = "tracked"\n' >tracked.toml
printf 'protect = "none"\n' >none.toml
echo "tracked files under tests/: $(git ls-files tests | wc -l)"
"$tf" run --config tracked.toml -- true # once, to see it works (and warm the cache)
/usr/bin/python3 "$pair" -n "${N:-20}" --warmup 3 --vs "$tf run --config none.toml -- true" \
    -- "$tf" run --config tracked.toml -- true
