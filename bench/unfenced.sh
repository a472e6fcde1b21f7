#!/usr/bin/env bash
# What the unfenced side's safety costs (issue 13): a baseline testfence against a
# candidate, in one hyperfine run each, on three loads:
#   startup   `testfence run -- true` (the private directory, socket and lock, the marker
#             locked before it shows, the pytest-configuration scan, report.json always)
#   records   10,000 blocked writes (the shim sends each record; testfence receives them)
#   guard     2,000 chmods inside tests/ (each a supervisor round trip; the target resolved
#             component by component through fds in the caller's view)
# usage: bench/unfenced.sh BASELINE_BUILD_DIR CANDIDATE_BUILD_DIR   (each holds testfence,
#        its shim and tf_shimdrv)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh bench >&2
base=$(realpath "${1:?usage: bench/unfenced.sh BASELINE_BUILD CANDIDATE_BUILD}")
cand=$(realpath "${2:?usage: bench/unfenced.sh BASELINE_BUILD CANDIDATE_BUILD}")
runs=${RUNS:-100}

proj=$(mktemp -d "${TMPDIR:-/tmp}/tf-unfenced-XXXXXX")
trap 'rm -rf "$proj"' EXIT
mkdir -p "$proj/tests" "$proj/.git"
printf 'x\n' >"$proj/config.toml"
printf 'y\n' >"$proj/tests/f"
cd "$proj"
chmods='import os
for _ in range(2000):
    os.chmod("tests/f", 0o644)'

echo "machine: $(nproc) cores, $(uname -srm), load $(cut -d' ' -f1-3 /proc/loadavg)"
bench() { # NAME COMMAND-TAIL: the same command under both builds
    local name=$1
    shift
    hyperfine -N -i --warmup 3 --runs "$runs" --export-json "$proj/$name.json" \
        -n "$name baseline" "$base/testfence run -- $*" \
        -n "$name candidate" "$cand/testfence run -- $*" >&2
    /usr/bin/python3 - "$proj/$name.json" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
b, c = r[0], r[1]
print(f"| {sys.argv[2]} | {b['median']*1e3:.2f} ms | {c['median']*1e3:.2f} ms | "
      f"{c['median']/b['median']:.2f}x |")
PY
}
echo "| load | baseline median | candidate median | candidate / baseline |"
echo "|---|---|---|---|"
bench startup true
bench records "$cand/tf_shimdrv many config.toml 10000"
bench guard "/usr/bin/python3 -c '$chmods'"
