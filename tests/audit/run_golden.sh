#!/usr/bin/env bash
# Golden tests of `testfence audit`: each tests/audit/cases/<name>.py is copied
# into a throwaway project (root files config.toml, manual_slop.toml, ... and a
# tests/ dir), audited there by the real binary, and the output compared with
# <name>.expected (stdout, stderr, exit status; the temp root shows as <ROOT>).
# A first line "# audit-args: ..." gives extra arguments, and a line "# audit-env: VAR=x ..."
# among the first five sets environment variables (HOME=/tmp/somehome: a CI container's
# HOME). A case that needs several files (conftest.py fixtures, helper modules, the shell
# scripts a test runs) is a directory cases/<name>/ copied over the project root and audited
# as a whole (`audit tests`); its files "args" and "env" give extra arguments and variables.
# usage: run_golden.sh TESTFENCE_BINARY [--update] [NAME...]
# The binary may spell the temp root otherwise (testfence.exe): GOLDEN_DRIVE=Z: (under wine,
# tests/platforms/: Z:<root>) or GOLDEN_PATHCONV="cygpath -m" (Git Bash on Windows, the
# workflow: C:/Users/...); that spelling, and /<it> in a file: URI, are <ROOT> too.
set -uo pipefail

bin=$(realpath "${1:?usage: run_golden.sh TESTFENCE_BINARY [--update] [NAME...]}")
shift
update=0
if [ "${1:-}" = --update ]; then update=1; shift; fi
here=$(cd "$(dirname "$0")" && pwd)
cases="$here/cases"

work=$(mktemp -d "${TMPDIR:-/tmp}/tf-audit-golden.XXXXXX")
trap 'rm -rf "$work"' EXIT

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    for f in "$cases"/*.expected; do names+=("$(basename "$f" .expected)"); done
fi

# native PATH: PATH as the binary spells it (see GOLDEN_DRIVE, GOLDEN_PATHCONV above).
native() {
    if [ -n "${GOLDEN_PATHCONV:-}" ]; then
        $GOLDEN_PATHCONV "$1"
    else
        printf '%s%s\n' "${GOLDEN_DRIVE:-}" "$1"
    fi
}

run_case() {
    local name=$1 proj="$work/$1"
    mkdir -p "$proj/.git" "$proj/tests"
    # The seed's scenario: user-owned files at the project root.
    for f in config.toml manual_slop.toml manual_slop_history.toml credentials.toml \
        presets.toml personas.toml tool_presets.toml; do
        echo "# user data" >"$proj/$f"
    done
    local args target envs
    if [ -d "$cases/$name" ]; then
        cp -a "$cases/$name/." "$proj/"
        args=$(cat "$proj/args" 2>/dev/null)
        envs=$(cat "$proj/env" 2>/dev/null)
        rm -f "$proj/args" "$proj/env"
        target=tests
    else
        cp "$cases/$name.py" "$proj/tests/$name.py"
        args=$(sed -n '1s/^# audit-args: //p' "$cases/$name.py")
        envs=$(sed -n '1,5s/^# audit-env: //p' "$cases/$name.py")
        target="tests/$name.py"
    fi
    local root root_n work_n sed_root
    root=$(cd "$proj" && pwd -P)
    root_n=$(native "$root")
    work_n=$(native "$(cd "$work" && pwd -P)")
    sed_root="s|$root|<ROOT>|g"
    [ "$root_n" = "$root" ] || sed_root="s|/$root_n|<ROOT>|g;s|$root_n|<ROOT>|g"
    (
        cd "$proj" || exit 125
        # The per-file cache: one per case (a shared one would make a case's summary depend
        # on the cases before it), never in the HOME of whoever runs this.
        export XDG_CACHE_HOME="$work/cache-$name"
        # shellcheck disable=SC2086 # args and envs are split on purpose
        env NO_COLOR=1 $envs "$bin" audit $args "$target" >"$work/$name.out" 2>"$work/$name.err"
        echo "[exit $?]" >>"$work/$name.err"
    )
    { cat "$work/$name.out"; echo "--- stderr"; cat "$work/$name.err"; } |
        sed -e "$sed_root" -e "s|$work_n|<WORK>|g" >"$work/$name.actual"
}

# incidents.tsv: each row's case exists, names its link in its header, and its .expected
# reports exactly the codes in "after" ('-': none); every incident_* case has a row.
check_incidents() {
    local tsv="$here/incidents.tsv" bad=0 case after link got
    while IFS=$'\t' read -r case _ _ after link _; do
        case $case in '#'* | case | '') continue ;; esac
        if ! grep -rqsF -- "$link" "$cases/$case.py" "$cases/$case"; then
            echo "FAIL incidents.tsv: $case: no case with $link in its header"; bad=1; continue
        fi
        got=$(grep -o '^tests/[^ ]* TF[0-9]*' "$cases/$case.expected" | sed 's/.* //' | sort -u |
            paste -sd, -)
        if [ "${got:--}" != "$after" ]; then
            echo "FAIL incidents.tsv: $case reports '${got:--}', labelled '$after'"; bad=1
        fi
    done <"$tsv"
    for f in "$cases"/incident_*.expected; do
        grep -q "^$(basename "$f" .expected)"$'\t' "$tsv" ||
            { echo "FAIL incidents.tsv: no row for $(basename "$f" .expected)"; bad=1; }
    done
    [ $bad = 0 ] && echo "ok   incidents.tsv ($(grep -c '^incident_' "$tsv") incidents)"
    return $bad
}

fail=0
if [ $# -eq 0 ] && [ $update = 0 ]; then
    check_incidents || fail=1
fi
for name in "${names[@]}"; do
    [ -f "$cases/$name.py" ] || [ -d "$cases/$name" ] || { echo "no such case: $name" >&2; fail=1; continue; }
    run_case "$name"
    if [ $update = 1 ]; then
        cp "$work/$name.actual" "$cases/$name.expected"
    elif ! diff -u "$cases/$name.expected" "$work/$name.actual" >"$work/$name.diff" 2>&1; then
        echo "FAIL $name"
        cat "$work/$name.diff"
        fail=1
    else
        echo "ok   $name"
    fi
done
exit $fail
