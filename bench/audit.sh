#!/usr/bin/env bash
# Benchmark `testfence audit` against the original request's regex design
# (bench/regex_audit.py) on CPython's own test suite, in one hyperfine run: the audit
# with a cold cache (--no-cache), with a warm one (every file's facts cached), and the
# regex scanner. Then peak memory: the cold run, and one file of about 50 MB.
# Needs: hyperfine, libpython3.11-testsuite (scripts/deps.sh bench).
# usage: bench/audit.sh [TESTFENCE_BINARY]   (default: build/testfence; RUNS=10 JOBS=2)
set -euo pipefail
cd "$(dirname "$0")/.."

bin=$(realpath "${1:-build/testfence}")
suite=${SUITE:-/usr/lib/python3.11/test}
jobs=${JOBS:-2}
runs=${RUNS:-10}
out=${OUT:-build-audit/bench}
[ -x "$bin" ] || { echo "audit.sh: no binary at $bin (build first, or pass its path)" >&2; exit 2; }
[ -d "$suite" ] || { echo "audit.sh: $suite missing (apt-get install libpython3.11-testsuite)" >&2; exit 2; }
mkdir -p "$out"
out=$(realpath "$out")
cache="$out/cache"
rm -rf "$cache"
audit="$bin audit -j $jobs --exit-zero --cwd temporary --root $suite/.. $suite"

# What is scanned: the same .py files for all (the regex walk skips the same dirs).
$audit --no-cache --format json >"$out/audit.json" 2>/dev/null || true
read -r files bytes < <(/usr/bin/python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
print(s["files"] + s["not_collected"], s["bytes"])' "$out/audit.json")

hyperfine --warmup 1 --runs "$runs" --export-json "$out/hyperfine.json" \
    -n "audit, cold cache (-j$jobs)" "$audit --no-cache" \
    -n "audit, warm cache (-j$jobs)" "$audit --cache-dir $cache" \
    -n "regex_audit.py" "/usr/bin/python3 bench/regex_audit.py $suite"

/usr/bin/python3 - "$out/hyperfine.json" "$files" "$bytes" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
files, mb = int(sys.argv[2]), int(sys.argv[3]) / 1e6
print(f"\n{files} files walked, {mb:.1f} MB judged; wall = elapsed median, cpu = user + system mean")
print(f"{'command':30} {'wall s':>7} {'files/s':>8} {'MB/s':>7} {'cpu s':>7} {'MB/cpu-s':>9}")
for r in res:
    m, cpu = r["median"], r["user"] + r["system"]
    print(f"{r['command']:30} {m:7.3f} {files / m:8.0f} {mb / m:7.2f} {cpu:7.3f} {mb / cpu:9.2f}")
base = res[-1]
for r in res[:-1]:
    print(f"{r['command']}: {base['median'] / r['median']:.2f}x the regex baseline's throughput "
          f"(wall), {(base['user'] + base['system']) / (r['user'] + r['system']):.2f}x (cpu)")
PY

# Peak memory (maximum resident set size): the cold run, and a ~50 MB file made of the
# suite's own files (every test_*.py of the top directory, repeated).
echo
/usr/bin/time -f "peak RSS, cold run over the suite: %M KB" $audit --no-cache >/dev/null 2>"$out/time.txt" || true
tail -1 "$out/time.txt"
largest=$(find "$suite" -name '*.py' -printf '%s\n' | sort -n | tail -1)
echo "largest file of the suite: $((largest / 1024)) KB"
big="$out/big/tests"
mkdir -p "$big" "$out/big/.git"
: >"$big/test_big.py"
while [ "$(stat -c %s "$big/test_big.py")" -lt 50000000 ]; do
    cat "$suite"/test_*.py >>"$big/test_big.py"
done
size=$(stat -c %s "$big/test_big.py")
(cd "$out/big" && /usr/bin/time -f "%M" "$bin" audit --no-cache tests/test_big.py >/dev/null 2>"$out/time.txt") || true
peak=$(tail -1 "$out/time.txt")
echo "one file of $((size / 1000000)) MB: peak RSS $((peak / 1024)) MB, $(/usr/bin/python3 -c "print(f'{$peak * 1024 / $size:.1f}')")x the file"
rm -rf "$out/big"
