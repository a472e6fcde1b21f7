#!/usr/bin/env bash
# The audit's labelled corpus: real test suites at pinned commits, scored against the labels
# in tests/audit/corpus/<name>.labels (path, line, code, verdict, reason; tab-separated).
#
#   scripts/audit-corpus.sh fetch NAME SNAPSHOT   extract NAME's pinned commit from SNAPSHOT
#                                                 (a git directory) into $CORPUS_DIR/NAME
#   scripts/audit-corpus.sh score NAME [BINARY]   audit it, compare with the labels, print
#                                                 precision and recall; exit 1 when a finding
#                                                 has no label, a labelled escape is missed or
#                                                 precision is below 80%
#   scripts/audit-corpus.sh findings NAME [BINARY]  the audit's findings, one per line
#
# CORPUS_DIR defaults to /work/ext/audit-corpus. cpython needs no fetch: it is Debian's
# libpython3.11-testsuite (scripts/deps.sh test installs it); score exits 77 when it is
# missing or another version. Nothing is ever committed from the projects themselves.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
corpus=$here/tests/audit/corpus
dest=${CORPUS_DIR:-/work/ext/audit-corpus}

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# project NAME: sets repo, commit, tests, args from projects.tsv
project() {
    local line
    line=$(awk -F'\t' -v n="$1" '$1 == n' "$corpus/projects.tsv")
    [ -n "$line" ] || { echo "audit-corpus.sh: no project '$1' in projects.tsv" >&2; exit 2; }
    IFS=$'\t' read -r _ repo commit tests args <<<"$line"
    [ "$args" = - ] && args=""
    args=${args//@/$corpus}
}

# root NAME: where the project's tree is; exits 77 when it is not there
root_of() {
    if [ "$1" = cpython ]; then
        local have
        have=$(dpkg-query -W -f='${Version}' libpython3.11-testsuite 2>/dev/null || true)
        if [ "$have" != "$commit" ]; then
            echo "audit-corpus.sh: cpython's labels are for libpython3.11-testsuite $commit;" \
                "installed: ${have:-none} (scripts/deps.sh test installs it)" >&2
            exit 77
        fi
        root=/usr/lib/python3.11
    else
        root=$dest/$1
        [ -f "$root/.corpus-commit" ] && [ "$(cat "$root/.corpus-commit")" = "$commit" ] || {
            echo "audit-corpus.sh: $root is not $1 at $commit; run: $0 fetch $1 SNAPSHOT" >&2
            exit 77
        }
    fi
}

fetch() {
    local name=$1 snap=$2
    project "$name"
    git --git-dir="$snap" cat-file -e "$commit^{commit}" 2>/dev/null ||
        { echo "audit-corpus.sh: $snap has no commit $commit" >&2; exit 1; }
    # Replace only a tree this script made (it holds .corpus-commit): never someone else's.
    if [ -e "$dest/$name" ] && [ ! -f "$dest/$name/.corpus-commit" ]; then
        echo "audit-corpus.sh: $dest/$name exists and was not made by this script; not touching it" >&2
        exit 1
    fi
    rm -rf "${dest:?}/$name"
    mkdir -p "$dest/$name"
    git --git-dir="$snap" archive "$commit" | tar -x -C "$dest/$name"
    echo "$commit" >"$dest/$name/.corpus-commit"
    echo "audit-corpus.sh: $name at $commit in $dest/$name" >&2
}

# Findings as "path<TAB>line<TAB>code<TAB>severity<TAB>message", paths relative to the root.
findings() {
    local name=$1 bin
    bin=$(realpath "${2:-$here/build/testfence}")
    project "$name"
    root_of "$name"
    # shellcheck disable=SC2086 # args are split on purpose
    (cd "$root" && "$bin" audit --no-cache --exit-zero --root "$root" $args --format json "$tests") |
        /usr/bin/python3 -c '
import json, sys
for f in json.load(sys.stdin)["findings"]:
    print("\t".join([f["path"], str(f["line"]), f["code"], f["severity"], f["message"]]))'
}

score() {
    local name=$1 bin
    bin=$(realpath "${2:-$here/build/testfence}")
    project "$name"
    root_of "$name"
    findings "$name" "$bin" >"${TMPDIR:-/tmp}/corpus-$name.$$" || exit 1
    /usr/bin/python3 - "$name" "$corpus/$name.labels" "${TMPDIR:-/tmp}/corpus-$name.$$" <<'PY'
import sys
name, labels_file, found_file = sys.argv[1:]
labels = {}
for n, line in enumerate(open(labels_file, encoding="utf-8"), 1):
    if not line.strip() or line.startswith("#"):
        continue
    path, lineno, code, verdict, reason = line.rstrip("\n").split("\t")
    assert verdict in ("real", "false"), f"{labels_file}:{n}: verdict must be real or false"
    labels[(path, int(lineno), code)] = (verdict, reason)
found = {}
for line in open(found_file, encoding="utf-8"):
    path, lineno, code, sev, msg = line.rstrip("\n").split("\t", 4)
    if sev in ("error", "warning"):
        found[(path, int(lineno), code)] = (sev, msg)
unlabelled = [k for k in found if k not in labels]
tp = sum(1 for k in found if labels.get(k, ("",))[0] == "real")
fp = sum(1 for k in found if labels.get(k, ("",))[0] == "false")
real = {k for k, v in labels.items() if v[0] == "real"}
# A real escape counts as found when a finding is on its line (whatever its code).
found_lines = {(p, l) for p, l, _ in found}
missed = sorted(k for k in real if (k[0], k[1]) not in found_lines)
stale = sorted(k for k in labels if labels[k][0] == "false" and k not in found)
prec = tp / (tp + fp) if tp + fp else 1.0
rec = (len(real) - len(missed)) / len(real) if real else 1.0
by_sev = {s: sum(1 for v in found.values() if v[0] == s) for s in ("error", "warning")}
print(f"{name}: {len(found)} findings ({by_sev['error']} error, {by_sev['warning']} warning): "
      f"{tp} real, {fp} false, {len(unlabelled)} unlabelled; precision {prec:.1%}; "
      f"recall {rec:.1%} ({len(real) - len(missed)} of {len(real)} real escapes)")
for k in unlabelled:
    print(f"  UNLABELLED {k[0]}:{k[1]} {k[2]} {found[k][1]}")
for k in missed:
    print(f"  MISSED {k[0]}:{k[1]} {k[2]} ({labels[k][1]})")
for k in stale:
    print(f"  no longer reported (labelled false) {k[0]}:{k[1]} {k[2]}")
sys.exit(1 if unlabelled or missed or prec < 0.8 else 0)
PY
    local rc=$?
    rm -f "${TMPDIR:-/tmp}/corpus-$name.$$"
    return $rc
}

case "${1:-}" in
fetch) [ $# = 3 ] || usage; fetch "$2" "$3" ;;
score) [ $# -ge 2 ] || usage; score "$2" "${3:-}" ;;
findings) [ $# -ge 2 ] || usage; findings "$2" "${3:-}" ;;
*) usage ;;
esac
