#!/usr/bin/env bash
# The plugin's start-up as pip installs it: plain `pytest` on a project of one passing test,
# autoload on, testfence found by its pytest11 entry point (a dist-info written into a temp
# dir on PYTHONPATH), the machine's other pytest plugins blocked (-p no:NAME); against the
# same command with testfence blocked too. bench/pair.py: A and B in turn, N pairs, the
# median of the pair-by-pair ratios. The dist-info has a RECORD naming the plugin's files, as
# pip's does: pytest reads it to mark packages for assertion rewriting. PROJECT_DIR: where the
# temp project goes (default TMPDIR; a journaled file system's directory measures a user's
# disk), TMPDIR: where the run's temp dir goes; PYTHONDONTWRITEBYTECODE as the caller has it.
# VS=ctypes: B is the same plugin through ctypes (TESTFENCE_BINDING=ctypes), so A/B is what
# the compiled binding (src/pyext/) saves.
# usage: bench/plugin_ep.sh [BUILD_DIR]     (N pairs, default 100; VS=bare or ctypes)
set -euo pipefail
cd "$(dirname "$0")/.."
src=$(pwd)
build=$(realpath -m "${1:-build}")
py=/usr/bin/python3 # Debian's, with python3-pytest
if [ ! -e "$build/libtestfence.so" ]; then
    echo "bench/plugin_ep.sh: no $build/libtestfence.so: build it (make), or name the build dir" >&2
    exit 1
fi
$py -c 'import pytest' 2>/dev/null ||
    { echo "bench/plugin_ep.sh: $py has no pytest: apt-get install python3-pytest" >&2; exit 1; }

work=$(mktemp -d "${PROJECT_DIR:-${TMPDIR:-/tmp}}/tf-plugin-ep-XXXXXX")
trap 'rm -rf "$work"' EXIT
info="$work/ep/testfence-0.dist-info"
mkdir -p "$work/proj/tests" "$work/proj/.git" "$info"
printf 'def test_one():\n    assert 1\n' >"$work/proj/tests/test_one.py"
printf 'Metadata-Version: 2.1\nName: testfence\nVersion: 0\n' >"$info/METADATA"
printf '[pytest11]\ntestfence = testfence\n' >"$info/entry_points.txt"
printf 'testfence.py,,\n_testfence/__init__.py,,\n_testfence/hooks.py,,\n' >"$info/RECORD"
$py -m compileall -q python # as pip installs it

unset PYTEST_DISABLE_PLUGIN_AUTOLOAD PYTEST_ADDOPTS PYTEST_PLUGINS
unset TESTFENCE_WORKSPACE TESTFENCE_RUN_ID TESTFENCE_PLUGIN
export PYTHONPATH="$work/ep:$src/python" TESTFENCE_LIBRARY="$build/libtestfence.so"
blocks=$($py -c 'import importlib.metadata as m
names = sorted({e.name for e in m.entry_points(group="pytest11")} - {"testfence"})
print(" ".join("-p no:" + n for n in names))')
cd "$work/proj"
# shellcheck disable=SC2086  # the blocks are words
out=$($py -m pytest $blocks 2>&1) || true
if ! grep -q '^testfence: fenced (' <<<"$out" || ! grep -q ' 1 passed' <<<"$out"; then
    echo "bench/plugin_ep.sh: the one-test run was not fenced, or did not pass: $out" >&2
    exit 1
fi
echo "machine: $(nproc) cores, $(uname -sr), $(date -u +%F)"
echo "project on $(findmnt -no FSTYPE,OPTIONS -T .); TMPDIR ${TMPDIR:-/tmp};" \
    "PYTHONDONTWRITEBYTECODE=${PYTHONDONTWRITEBYTECODE-(unset)}"
if [ "${VS:-bare}" = ctypes ]; then
    [ -e "$build/_native.abi3.so" ] ||
        { echo "bench/plugin_ep.sh: VS=ctypes: no $build/_native.abi3.so to compare with (python3-dev)" >&2; exit 1; }
    echo "A: pytest with the plugin (entry point), compiled binding; B: the same through ctypes"
    vs="env TESTFENCE_BINDING=ctypes $py -m pytest -q $blocks"
    a=(env TESTFENCE_BINDING= "$py") # both through env: its start is in both
else
    echo "A: pytest with the plugin (entry point); B: the same with -p no:testfence"
    vs="$py -m pytest -q $blocks -p no:testfence"
    a=("$py")
fi
# shellcheck disable=SC2086  # the blocks are words
$py "$src/bench/pair.py" -n "${N:-100}" --warmup 5 --vs "$vs" -- "${a[@]}" -m pytest -q $blocks
