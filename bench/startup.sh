#!/usr/bin/env bash
# Startup cost of `testfence run -- true` against bare `true`, `unshare -Ur true`
# and bubblewrap (plain, and with the namespaces testfence makes: user when not root,
# mount, PID, a fresh /proc), in one hyperfine run so the ratios share conditions.
# usage: bench/startup.sh [TESTFENCE [BASELINE_TESTFENCE]]   (default: build/testfence;
#        a baseline build, an older testfence, is timed beside it when given)
#        PROJECT_DIR: where the throwaway project goes (default: $TMPDIR, else /tmp); TMPDIR
#        is where testfence keeps the run's temp dir and private files. Each run creates and
#        later removes a dozen files and directories, bwrap none: on a file system whose
#        inode allocation slows with recent deletions (ext4 without a journal) a loop of
#        hundreds of runs measures that, not testfence; the file systems are printed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh bench >&2
tf=$(realpath "${1:-build/testfence}")
[ -x "$tf" ] || { echo "bench: build testfence first (make), or pass its path" >&2; exit 2; }
base=${2:+$(realpath "$2")}

# A throwaway project: testfence creates a run workspace per run and prunes to 3.
proj=$(mktemp -d "${PROJECT_DIR:-${TMPDIR:-/tmp}}/tf-bench-XXXXXX")
trap 'rm -rf "$proj"' EXIT
mkdir -p "$proj/tests" "$proj/.git"
cd "$proj"

cmds=(true "$tf run -- true")
names=(bare testfence)
if [ -n "$base" ]; then cmds+=("$base run -- true"); names+=(baseline); fi
if unshare -Ur true 2>/dev/null; then cmds+=("unshare -Ur true"); names+=(unshare); fi
if bwrap --ro-bind / / --dev /dev --bind "$proj/tests" "$proj/tests" true 2>/dev/null; then
    cmds+=("bwrap --ro-bind / / --dev /dev --bind $proj/tests $proj/tests true"); names+=(bwrap)
fi
userns=$([ "$(id -u)" = 0 ] || echo --unshare-user)
nsargs="$userns --unshare-pid --ro-bind / / --dev /dev --proc /proc --bind $proj/tests $proj/tests"
if bwrap $nsargs true 2>/dev/null; then
    cmds+=("bwrap $nsargs true"); names+=(bwrap-pid)
fi
args=()
for i in "${!cmds[@]}"; do args+=(-n "${names[$i]}" "${cmds[$i]}"); done

echo "machine: $(nproc) cores, $(uname -srm)"
fs() { # the file system holding $1, and whether an ext4 there has a journal
    local t; t=$(stat -f -c %T "$1")
    [ "$t" = ext2/ext3 ] && t="ext4 ($(tune2fs -l "$(df --output=source "$1" | tail -1)" 2>/dev/null |
        grep -q has_journal && echo journal || echo 'no journal, or unknown'))"
    echo "$t"
}
echo "project on: $(fs "$proj"); TMPDIR ${TMPDIR:-/tmp} on: $(fs "${TMPDIR:-/tmp}")"
hyperfine -N --warmup 20 --runs "${RUNS:-300}" --export-json "$proj/out.json" "${args[@]}"
/usr/bin/python3 - "$proj/out.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
base = r["bare"]["mean"]
print("\n| command | mean | ± σ | vs bare |")
print("|---|---|---|---|")
for name, x in r.items():
    print(f"| {name} | {x['mean']*1e3:.2f} ms | {x['stddev']*1e3:.2f} ms | {x['mean']/base:.1f}× |")
for other in ("bwrap", "bwrap-pid", "baseline"):
    if other in r:
        print(f"testfence / {other} = {r['testfence']['mean']/r[other]['mean']:.2f}")
PY
