#!/usr/bin/env bash
# The shim's cost on the success path: 1,000,000 successful open()+close() pairs on a
# file inside tests/, under the Landlock fence, with and without the shim preloaded,
# in one hyperfine run. usage: bench/shim.sh [BUILD_DIR] [COUNT]
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(cd "${1:-build}" && pwd)
count=${2:-1000000}
command -v hyperfine >/dev/null || { echo "bench/shim.sh: needs hyperfine (scripts/deps.sh bench)" >&2; exit 1; }

proj=$(mktemp -d)
trap 'rm -rf "$proj"' EXIT
mkdir -p "$proj/tests" "$proj/.git"
: >"$proj/tests/target"
cd "$proj"
bench="$build/tf_bench_open"
# Both commands go through env(1), so they differ only in LD_PRELOAD.
"$build/testfence" run -- hyperfine -N --warmup 2 --runs "${RUNS:-10}" \
    --export-json tests/shim-bench.json \
    -n "without shim ($count opens for writing)" "env -u LD_PRELOAD $bench tests/target $count write" \
    -n "with shim ($count opens for writing)" "env $bench tests/target $count write" \
    -n "without shim ($count opens for reading)" "env -u LD_PRELOAD $bench tests/target $count read" \
    -n "with shim ($count opens for reading)" "env $bench tests/target $count read"
/usr/bin/python3 - tests/shim-bench.json <<'PY'
import json, sys
res = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
for kind in ("writing", "reading"):
    base = next(v for n, v in res.items() if n.startswith("without") and kind in n)
    shim = next(v for n, v in res.items() if n.startswith("with ") and kind in n)
    cpu = lambda v: v["user"] + v["system"]
    print(f"opens for {kind}: with/without shim: wall {shim['median'] / base['median']:.3f} "
          f"(medians {shim['median']:.3f}s / {base['median']:.3f}s), "
          f"cpu {cpu(shim) / cpu(base):.3f} (user+sys {cpu(shim):.3f}s / {cpu(base):.3f}s)")
PY
