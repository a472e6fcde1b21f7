#!/usr/bin/env bash
# Benchmark `testfence audit` against the original request's regex design
# (bench/regex_audit.py) on CPython's own test suite, in one hyperfine run.
# Prints files/s, MB/s and the ratio. Needs: hyperfine, libpython3.11-testsuite.
# usage: bench/audit.sh [TESTFENCE_BINARY]   (default: build/testfence)
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${1:-build/testfence}
suite=${SUITE:-/usr/lib/python3.11/test}
jobs=${JOBS:-2}
runs=${RUNS:-10}
out=${OUT:-build-audit/bench}
[ -x "$bin" ] || { echo "audit.sh: no binary at $bin (build first, or pass its path)" >&2; exit 2; }
[ -d "$suite" ] || { echo "audit.sh: $suite missing (apt-get install libpython3.11-testsuite)" >&2; exit 2; }
mkdir -p "$out"

# What is scanned: the same .py files for both (the regex walk skips the same dirs).
"$bin" audit --root "$suite/.." --format json "$suite" >"$out/audit.json" 2>/dev/null || true
read -r files bytes < <(/usr/bin/python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
print(s["files"], s["bytes"])' "$out/audit.json")

hyperfine --warmup 1 --runs "$runs" --export-json "$out/hyperfine.json" \
    -n "testfence audit -j$jobs" "$bin audit -j $jobs --root $suite/.. $suite" \
    -n "testfence audit -j1" "$bin audit -j 1 --root $suite/.. $suite" \
    -n "regex_audit.py" "/usr/bin/python3 bench/regex_audit.py $suite"

/usr/bin/python3 - "$out/hyperfine.json" "$files" "$bytes" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
files, mb = int(sys.argv[2]), int(sys.argv[3]) / 1e6
print(f"\n{files} files, {mb:.1f} MB of Python; wall = elapsed, cpu = user + system")
print(f"{'command':24} {'wall s':>7} {'± s':>6} {'files/s':>8} {'MB/s':>6} {'cpu s':>7} {'MB/cpu-s':>9}")
for r in res:
    m, cpu = r["mean"], r["user"] + r["system"]
    print(f"{r['command']:24} {m:7.3f} {r['stddev']:6.3f} {files / m:8.0f} {mb / m:6.2f} {cpu:7.3f} {mb / cpu:9.2f}")
base = res[-1]
for r in res[:-1]:
    print(f"ratio {r['command']} / regex_audit.py: wall {r['mean'] / base['mean']:.2f}x, "
          f"cpu {(r['user'] + r['system']) / (base['user'] + base['system']):.2f}x")
PY
