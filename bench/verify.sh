#!/usr/bin/env bash
# Cost of `testfence run --verify` on a 100,000-file tree: snapshot before + snapshot
# after + diff, hashing on (≤ 1 MiB) and off, against find|sort and sha256sum doing
# the same two passes, in one hyperfine run so the ratios share conditions.
# usage: bench/verify.sh            FILES=100000 RUNS=10 COLD=1 (also drop the page cache, root)
set -euo pipefail
cd "$(dirname "$0")/.."
files=${FILES:-100000}
runs=${RUNS:-10}
command -v hyperfine >/dev/null || { echo "bench: hyperfine is needed" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/tf-verify-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
gcc -std=c17 -O2 -D_GNU_SOURCE -Wall -Wextra -Werror -Isrc \
    src/base/err.c src/base/vec.c src/core/path.c src/core/walk.c src/core/policy.c src/core/verify.c bench/verify_bench.c -o "$work/verify_bench"

# The tree: 100 top dirs x 10 subdirs x N files, sizes 0..8 KiB (source-tree-like),
# plus a tests/ dir (the writable set, skipped) and a .git/objects (skipped).
root="$work/proj"
python3 - "$root" "$files" <<'PY'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
random.seed(1)
per = max(1, n // 1000)
blob = os.urandom(8192)
made = 0
for i in range(100):
    for j in range(10):
        d = os.path.join(root, f"pkg{i:02d}", f"mod{j}")
        os.makedirs(d)
        for k in range(per):
            if made == n:
                break
            with open(os.path.join(d, f"f{k:03d}.py"), "wb") as f:
                f.write(blob[: random.randint(0, 8192)])
            made += 1
for d in ("tests", ".git/objects/ab"):
    os.makedirs(os.path.join(root, d))
for k in range(100):
    open(os.path.join(root, "tests", f"t{k}.py"), "w").write("x")
    open(os.path.join(root, ".git/objects/ab", f"{k:038d}"), "w").write("x")
PY
nfiles=$(find "$root" -type f | wc -l)
bytes=$(du -sb "$root" | cut -f1)

# Baselines: the same two passes and a comparison, with the standard tools.
stat_pass="find $root -printf '%p %s %m %U %G %T@ %C@ %i %l\n' | LC_ALL=C sort"
hash_pass="find $root -type f -print0 | xargs -0 sha256sum | LC_ALL=C sort"
base_stat="$stat_pass > $work/a; $stat_pass > $work/b; cmp $work/a $work/b"
base_hash="{ $stat_pass; $hash_pass; } > $work/a; { $stat_pass; $hash_pass; } > $work/b; cmp $work/a $work/b"

echo "machine: $(nproc) cores, $(uname -srm), $(df -T "$work" | awk 'NR==2{print $2}') at $work"
echo "tree: $nfiles files, $bytes bytes"
"$work/verify_bench" "$root" 1048576 -v
"$work/verify_bench" "$root" 0 -v

hyperfine -N --warmup 2 --runs "$runs" --export-json "$work/warm.json" \
    -n "verify, hash ≤1 MiB" "$work/verify_bench $root 1048576" \
    -n "verify, no hash" "$work/verify_bench $root 0" \
    -n "find|sort x2 + cmp" "bash -c \"$base_stat\"" \
    -n "find|sort + sha256sum x2 + cmp" "bash -c \"$base_hash\""

report() {
    /usr/bin/python3 - "$1" <<'PY'
import json, sys
r = [x for x in json.load(open(sys.argv[1]))["results"]]
m = {x["command"]: x["mean"] for x in r}
print("\n| command | wall mean | ± σ | user+sys | wall vs find\\|sort | wall vs find\\|sort + sha256sum |")
print("|---|---|---|---|---|---|")
fs = m.get("find|sort x2 + cmp")
fh = m.get("find|sort + sha256sum x2 + cmp")
for x in r:
    a = f"{x['mean']/fs:.2f}×" if fs else "-"
    b = f"{x['mean']/fh:.2f}×" if fh else "-"
    cpu = (x["user"] + x["system"]) * 1e3
    print(f"| {x['command']} | {x['mean']*1e3:.0f} ms | {x['stddev']*1e3:.0f} ms | {cpu:.0f} ms | {a} | {b} |")
PY
}
echo "warm page cache:"
report "$work/warm.json"

if [ "${COLD:-0}" = 1 ] && [ -w /proc/sys/vm/drop_caches ]; then
    hyperfine -N --runs "${COLD_RUNS:-3}" --export-json "$work/cold.json" \
        --prepare "bash -c 'sync; echo 3 > /proc/sys/vm/drop_caches'" \
        -n "verify, hash ≤1 MiB" "$work/verify_bench $root 1048576" \
        -n "verify, no hash" "$work/verify_bench $root 0" \
        -n "find|sort x2 + cmp" "bash -c \"$base_stat\"" \
        -n "find|sort + sha256sum x2 + cmp" "bash -c \"$base_hash\""
    echo "cold page cache (dropped before each run; the second pass of each is warm):"
    report "$work/cold.json"
fi
