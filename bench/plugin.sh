#!/usr/bin/env bash
# The plugin's start-up cost: `pytest --collect-only -q` on a small project (20 test
# modules, 10 tests each), without and with `-p testfence`, in one hyperfine run.
# "with" loads libtestfence.so, builds the plan, creates a workspace, writes the shim's
# configuration, applies the fence and installs the audit hook; by default it also starts
# pytest once more with the shim preloaded (timed apart with --testfence-reexec=off).
# usage: bench/plugin.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
src=$(pwd)
build=$(cd "${1:-build}" && pwd)
command -v hyperfine >/dev/null || { echo "bench/plugin.sh: needs hyperfine (scripts/deps.sh bench)" >&2; exit 1; }
[ -e "$build/libtestfence.so" ] || { echo "bench/plugin.sh: $build/libtestfence.so not built" >&2; exit 1; }

proj=$(mktemp -d)
trap 'rm -rf "$proj"' EXIT
mkdir -p "$proj/tests" "$proj/.git"
for m in $(seq 1 20); do
    for t in $(seq 1 10); do printf 'def test_%d():\n    assert %d\n\n' "$t" "$t"; done >"$proj/tests/test_m$m.py"
done
printf '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n' >"$proj/pyproject.toml"
cd "$proj"
# Not under an outer run; the same bytecode settings for both; retain keeps the dir small.
unset TESTFENCE_WORKSPACE TESTFENCE_RUN_ID TESTFENCE_PLUGIN PYTEST_ADDOPTS
export PYTHONPATH="$src/python" TESTFENCE_LIBRARY="$build/libtestfence.so" PYTHONDONTWRITEBYTECODE=1
py=/usr/bin/python3
hyperfine -N --warmup 3 --runs "${RUNS:-30}" --export-json "$proj/plugin-bench.json" \
    -n "pytest --collect-only -q (no plugin)" "$py -m pytest --collect-only -q -p no:cacheprovider" \
    -n "pytest --collect-only -q -p testfence --testfence-reexec=off" "$py -m pytest --collect-only -q -p no:cacheprovider -p testfence --testfence-reexec=off" \
    -n "pytest --collect-only -q -p testfence" "$py -m pytest --collect-only -q -p no:cacheprovider -p testfence"
$py - "$proj/plugin-bench.json" <<'PY'
import json, sys
a, *rest = json.load(open(sys.argv[1]))["results"]
ms = lambda x: x * 1000
cpu = lambda v: v["user"] + v["system"]
for b in rest:
    print(b["command"] + ":")
    for k in ("min", "median"):
        print(f"  {k:6} wall: {ms(a[k]):7.1f} ms -> {ms(b[k]):7.1f} ms ({ms(b[k] - a[k]):+.1f} ms)")
    print(f"  mean user+sys: {ms(cpu(a)):7.1f} ms -> {ms(cpu(b)):7.1f} ms ({ms(cpu(b) - cpu(a)):+.1f} ms)")
PY
