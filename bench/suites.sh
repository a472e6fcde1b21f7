#!/usr/bin/env bash
# Real suites bare, under `testfence run` and with the plugin (issue 25: "a fenced run costs
# under 5%"). Each suite runs in every mode, one after another in each round, the order
# rotated every round, one warm-up round first (not counted), RUNS rounds counted:
#   bare    /usr/bin/python3 -m pytest -rfE ARGS
#   run     BUILD/testfence run -- /usr/bin/python3 -m pytest -rfE ARGS
#   plugin  /usr/bin/python3 -m pytest -rfE -p testfence ARGS   (PYTHONPATH=python/,
#           TESTFENCE_LIBRARY=BUILD/libtestfence.so)
# ARGS, the environment and testfence.toml are the suite's in bench/realsuites/manifest.toml
# (the commands are realsuites.py's); pytest runs with PYTEST_DISABLE_PLUGIN_AUTOLOAD=1, so the
# machine's pytest plugins play no part. All of it twice: PYTHONDONTWRITEBYTECODE=1 (CI: every
# project module compiled, every test module rewritten, at every start) and unset (a
# developer's checkout: bytecode read from __pycache__/), each from a checkout without
# __pycache__/, .pytest_cache/ or old runs. The plugin's own module is byte-compiled first, as
# pip and Debian install it.
# Wall: a monotonic clock around each run. CPU: user + system of everything the run started,
# from wait4's rusage (testfence reaps its namespace's init, whose rusage holds the command's).
# Ratios: the median over the rounds of each round's ratio to that round's bare run, and in
# brackets the middle half of them (quartiles): on a busy machine a round's ratio swings by tens
# of percent. "outcome": exit status, pytest's counts and failing tests, the same in every run
# or each different one's output kept.
# usage: bench/suites.sh [SUITE...]   (default: markupsafe itsdangerous more-itertools rich)
#        RUNS: rounds (default 5); BUILD: the build dir (default build); LOGDIR: where each
#        mode's last output is kept (default a new temp dir); MODES (default bare,run,plugin):
#        plugin-noreexec adds the plugin with --testfence-reexec=off, plugin-env the plugin
#        loaded by PYTEST_PLUGINS=testfence rather than -p (no entry-point search: suites.py),
#        plugin-ctypes the plugin through ctypes, not its compiled binding;
#        bare-ep,plugin-ep plain `pytest` with autoload on, the plugin found by its pytest11
#        entry point as pip installs it (blocked in bare-ep), the machine's other pytest
#        plugins blocked in both: plugin-ep's ratios are to bare-ep; run-ep: testfence run
#        -- pytest with the plugin so installed (it joins the run), ratios to bare-ep.
#        REALSUITES_EXT: where the checkouts are (default /work/ext/realsuites; a copy on
#        another file system)
set -euo pipefail
cd "$(dirname "$0")/.."
py=/usr/bin/python3 # Debian's, with python3-pytest; never the first python3 on PATH
build=$(realpath -m "${BUILD:-build}")
if [ ! -x "$build/testfence" ] || [ ! -e "$build/libtestfence.so" ]; then
    echo "bench/suites.sh: no testfence in $build: build it (make), or set BUILD=DIR" >&2; exit 1
fi
$py -c 'import pytest' 2>/dev/null ||
    { echo "bench/suites.sh: $py has no pytest: apt-get install python3-pytest" >&2; exit 1; }
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(markupsafe itsdangerous more-itertools rich)
ext=$(cd bench/realsuites && $py -c 'import realsuites; print(realsuites.EXT)')
for s in "${suites[@]}"; do
    [ -d "$ext/$s" ] ||
        { echo "bench/suites.sh: no checkout of $s in $ext: bench/realsuites/realsuites.py checkout $s" >&2; exit 1; }
done
logdir=${LOGDIR:-$(mktemp -d "${TMPDIR:-/tmp}/tf-suites-XXXXXX")}
$py -m compileall -q python

echo "machine: $(nproc) cores, $(uname -sr), $(date -u +%F); $($py -m pytest --version 2>&1)"
echo
echo "| suite | PYTHONDONTWRITEBYTECODE | mode | median wall | median CPU | wall / bare | CPU / bare | outcome |"
echo "|---|---|---|---|---|---|---|---|"
for s in "${suites[@]}"; do
    for bytecode in 1 unset; do
        $py bench/suites.py "$build" "$s" "$bytecode" "${RUNS:-5}" "$logdir"
    done
done
echo
echo "each mode's last output: $logdir"
