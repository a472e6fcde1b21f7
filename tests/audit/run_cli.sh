#!/usr/bin/env bash
# CLI behaviour of `testfence audit` beyond the golden cases: exit statuses,
# usage errors, --explain, default paths, directory walks and the guarantee
# that parallel scans print exactly what a serial scan prints.
# usage: run_cli.sh TESTFENCE_BINARY
set -uo pipefail

bin=$(realpath "${1:?usage: run_cli.sh TESTFENCE_BINARY}")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/tf-audit-cli.XXXXXX")
export XDG_CACHE_HOME="$work/cache" # the per-file cache: never the real HOME
trap 'rm -rf "$work"' EXIT
export NO_COLOR=1
fails=0

# expect STATUS DESCRIPTION -- COMMAND...: run COMMAND in $work/proj, check its status.
expect() {
    local want=$1 what=$2
    shift 3
    (cd "$work/proj" && "$@") >"$work/out" 2>"$work/err"
    local got=$?
    if [ "$got" != "$want" ]; then
        echo "FAIL $what: exit $got, expected $want"
        sed 's/^/  stdout: /' "$work/out"
        sed 's/^/  stderr: /' "$work/err"
        fails=$((fails + 1))
    else
        echo "ok   $what"
    fi
}

# contains FILE TEXT DESCRIPTION
contains() {
    if grep -qF -- "$2" "$work/$1"; then
        echo "ok   $3"
    else
        echo "FAIL $3: '$2' not in $1"
        sed 's/^/  /' "$work/$1"
        fails=$((fails + 1))
    fi
}

mkdir -p "$work/proj/.git" "$work/proj/tests/sub" "$work/proj/tests/.hidden" \
    "$work/proj/tests/__pycache__"
echo 'x = 1' >"$work/proj/config.toml"
echo 'open("config.toml", "w")' >"$work/proj/tests/test_b.py"
echo 'open("out.log", "w")' >"$work/proj/tests/sub/test_a.py"
echo 'open("hidden.log", "w")' >"$work/proj/tests/.hidden/test_h.py"
echo 'open("cache.log", "w")' >"$work/proj/tests/__pycache__/test_c.py"
echo 'open("notpy.log", "w")' >"$work/proj/tests/notes.txt"

expect 0 "--help" -- "$bin" audit --help
contains out "usage: testfence audit" "--help prints usage on stdout"
expect 0 "--explain TF101" -- "$bin" audit --explain TF101
contains out "TF101 write-protected-root-file" "--explain names the rule"
contains out "Fix:" "--explain gives the fix"
expect 0 "--explain is case-insensitive" -- "$bin" audit --explain tf104
expect 0 "--explain all" -- "$bin" audit --explain all
for c in TF000 TF101 TF102 TF103 TF104 TF105 TF106 TF107 TF201; do contains out "$c " "--explain all has $c"; done
expect 125 "--explain unknown code" -- "$bin" audit --explain TF999
expect 125 "--format unknown" -- "$bin" audit --format xml
expect 125 "--select unknown code" -- "$bin" audit --select TF9
expect 125 "--ignore unknown code" -- "$bin" audit --ignore nope
expect 125 "--jobs 0" -- "$bin" audit --jobs 0
expect 125 "--jobs 2^32+1 (not 1)" -- "$bin" audit --jobs 4294967297
expect 125 "--protect with a slash" -- "$bin" audit --protect a/b
expect 125 "unknown option" -- "$bin" audit --bogus
expect 125 "missing option value" -- "$bin" audit --format
expect 125 "--config naming a missing file" -- "$bin" audit --config x.toml

expect 0 "default path is tests/ under the root" -- "$bin" audit
printf 'tests/sub/test_a.py:1:1: TF106 error: open() writes to relative path "out.log" outside tests/\ntests/test_b.py:1:1: TF101 error: writes to protected root file "config.toml" (via open)\n' >"$work/want"
if diff -u "$work/want" "$work/out"; then echo "ok   walk: sorted, hidden/__pycache__/non-.py skipped"; else echo "FAIL walk output"; fails=$((fails + 1)); fi
expect 0 "works from a subdirectory" -- sh -c "cd tests/sub && '$bin' audit"
contains out "$work/proj/tests/test_b.py" "from a subdirectory the default path is absolute"
expect 1 "--strict with findings" -- "$bin" audit --strict
expect 125 "a missing path is an I/O error" -- "$bin" audit tests missing.py
contains err "cannot read missing.py" "the missing path is named"
contains out "tests/test_b.py:1:1" "the other paths are still scanned"
expect 0 "a named file is scanned whatever its extension" -- "$bin" audit tests/notes.txt
contains out "notpy.log" "the .txt file was scanned"

mkdir -p "$work/noproj/.git"
(cd "$work/noproj" && "$bin" audit) >/dev/null 2>"$work/err"
if [ $? = 125 ] && grep -q "no tests/ directory" "$work/err"; then
    echo "ok   no tests/ directory: exit 125"
else
    echo "FAIL no tests/ directory"; fails=$((fails + 1))
fi

# [audit] include/exclude/protected from testfence.toml, and config errors.
mkdir -p "$work/cfg/.git" "$work/cfg/tests/fixtures" "$work/cfg/qa"
printf '[audit]\ninclude = ["tests", "qa"]\nexclude = ["tests/fixtures"]\nprotected = ["history.db"]\n' \
    >"$work/cfg/testfence.toml"
echo 'open("history.db", "w")' >"$work/cfg/tests/test_a.py"
echo 'open("x.log", "w")' >"$work/cfg/tests/fixtures/gen.py"
echo 'open("y.log", "w")' >"$work/cfg/qa/test_q.py"
expect 0 "config: include, exclude, protected" -- sh -c "cd ../cfg && '$bin' audit"
printf 'qa/test_q.py:1:1: TF106 error: open() writes to relative path "y.log" outside tests/\ntests/test_a.py:1:1: TF101 error: writes to protected root file "history.db" (via open)\n' >"$work/want"
if diff -u "$work/want" "$work/out"; then echo "ok   config output"; else echo "FAIL config output"; fails=$((fails + 1)); fi
# The same project kept under someone else's tests/ (the suite under testfence puts its
# temp dirs there): a "tests" above the root is not this project's tests directory.
mkdir -p "$work/tests/under" && cp -a "$work/cfg" "$work/tests/under/cfg"
expect 0 "config: a project below another tests/" -- sh -c "cd ../tests/under/cfg && '$bin' audit"
if diff -u "$work/want" "$work/out"; then echo "ok   a tests/ above the root is not the project's"; else echo "FAIL a tests/ above the root"; fails=$((fails + 1)); fi
echo 'bogus = 1' >"$work/cfg/bad.toml"
expect 125 "config: an unknown key is a usage error" -- sh -c "cd ../cfg && '$bin' audit --config bad.toml"
contains err 'unknown key "bogus"' "config: the error names the key"

# SARIF: the fields GitHub code scanning requires, on a real multi-file scan.
expect 0 "sarif over a directory" -- "$bin" audit --format sarif tests
if /usr/bin/python3 - "$work/out" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["version"] == "2.1.0" and doc["$schema"].endswith("sarif-2.1.0.json")
run, = doc["runs"]
rules = run["tool"]["driver"]["rules"]
assert run["tool"]["driver"]["name"] == "testfence"
assert [r["id"] for r in rules] == ["TF000", "TF101", "TF102", "TF103", "TF104", "TF105", "TF106",
                                    "TF107", "TF108", "TF109", "TF110", "TF201"]
for r in rules:
    assert r["shortDescription"]["text"] and r["fullDescription"]["text"] and r["help"]["text"]
assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].startswith("file:///")
assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].endswith("/")
assert len(run["results"]) == 2
for res in run["results"]:
    assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
    assert res["level"] in ("warning", "error") and res["message"]["text"]
    loc = res["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
    assert not loc["artifactLocation"]["uri"].startswith("/")
    assert loc["region"]["startLine"] >= 1 and loc["region"]["startColumn"] >= 1
PY
then echo "ok   sarif has what code scanning requires"; else echo "FAIL sarif structure"; fails=$((fails + 1)); fi

# Every golden case at once (named as tests, so they are collected): -j1 and -j2 must agree
# byte for byte, and so must a run from the cache.
mkdir -p "$work/proj/tests/golden"
for f in "$here"/cases/*.py; do cp "$f" "$work/proj/tests/golden/test_$(basename "$f")"; done
expect 0 "serial scan of all cases" -- "$bin" audit -j 1 tests/golden
cp "$work/out" "$work/serial"
expect 0 "parallel scan of all cases" -- "$bin" audit --no-cache -j 2 tests/golden
if cmp -s "$work/serial" "$work/out" && [ -s "$work/out" ]; then
    echo "ok   parallel output equals serial output ($(wc -l <"$work/out") lines)"
else
    echo "FAIL parallel output differs"; fails=$((fails + 1))
fi
expect 0 "a second scan, from the cache" -- "$bin" audit -j 2 tests/golden
if cmp -s "$work/serial" "$work/out"; then echo "ok   cached output equals scanned output"; else echo "FAIL cached output differs"; fails=$((fails + 1)); fi
contains err "from the cache" "the summary says the cache was used"

# Robustness: a FIFO named as a path, symlinks, coding cookies, a corrupt cache.
mkfifo "$work/proj/tests/fifo.py"
expect 125 "a FIFO named as a path does not hang" -- timeout 10 "$bin" audit tests/fifo.py
contains err "not a regular file" "the FIFO is named as not a regular file"
rm -f "$work/proj/tests/fifo.py"
mkdir -p "$work/elsewhere/pkg"
echo 'open("linked.log", "w")' >"$work/elsewhere/test_linked.py"
ln -s "$work/elsewhere/test_linked.py" "$work/proj/tests/test_link.py"
ln -s "$work/elsewhere/pkg" "$work/proj/tests/linkdir"
expect 0 "symlinked files are audited" -- "$bin" audit tests
contains out "tests/test_link.py:1:1: TF106" "a symlinked test file is reported under its link"
contains err "tests/linkdir: a symlink to a directory, not followed" "a symlinked directory is named"
rm -f "$work/proj/tests/test_link.py" "$work/proj/tests/linkdir"
printf '# -*- coding: latin-1 -*-\nopen("caf\xe9.log", "w")\n' >"$work/proj/tests/test_latin1.py"
expect 0 "a latin-1 coding cookie" -- "$bin" audit tests/test_latin1.py
contains out 'relative path "café.log"' "the latin-1 name is read as café"
printf '# coding: no-such-codec\nx = 1\n' >"$work/proj/tests/test_badcodec.py"
expect 0 "an unknown coding cookie" -- "$bin" audit tests/test_badcodec.py
contains out "unknown encoding 'no-such-codec'" "an unknown codec is a TF000"
rm -f "$work/proj/tests/test_latin1.py" "$work/proj/tests/test_badcodec.py"
mkdir -p "$work/sdist/tests"
touch "$work/sdist/setup.py"
echo 'open("setup.cfg", "w")' >"$work/sdist/tests/test_s.py"
expect 0 "a project with only setup.py has a root" -- sh -c "cd ../sdist && '$bin' audit"
contains out "tests/test_s.py:1:1: TF101 error" "its root files are protected"
expect 0 "a cache inside the project is refused" -- "$bin" audit --cache-dir "$work/proj/tests/cache" tests
contains err "not using the cache" "the refusal is said"
[ ! -e "$work/proj/tests/cache" ] && echo "ok   nothing was created in the project" || { echo "FAIL cache created in the project"; fails=$((fails + 1)); }
expect 0 "a fresh cache" -- "$bin" audit --cache-dir "$work/c" tests
cp "$work/out" "$work/fresh"
find "$work/c" -type f | while read -r f; do head -c 40 /dev/urandom >"$f"; done
expect 0 "a corrupt cache is ignored" -- "$bin" audit --cache-dir "$work/c" tests
if cmp -s "$work/fresh" "$work/out"; then echo "ok   the corrupt cache changed nothing"; else echo "FAIL corrupt cache output"; fails=$((fails + 1)); fi
find "$work/c" -type f | while read -r f; do : >"$f"; done
expect 0 "an empty cache entry is ignored" -- "$bin" audit --cache-dir "$work/c" tests
# An assignment chain of 50,000 targets and 50,000 module constants: linear work (well
# under a second; a quadratic walk took minutes). The timeout only catches a hang.
/usr/bin/python3 -c '
n = 50000
print(" = ".join(f"a{i}" for i in range(n)) + " = \"x.txt\"")
for i in range(n):
    print(f"b{i} = \"f{i}.txt\"")
print("def test_x():\n    open(b49999, \"w\")")' >"$work/proj/tests/test_chain.py"
expect 0 "a 50,000-target assignment chain" -- timeout 120 "$bin" audit --no-cache tests/test_chain.py
contains out 'relative path "f49999.txt"' "the last constant is still followed"
rm -f "$work/proj/tests/test_chain.py"
# [audit] cwd = "temporary": relative writes land in the runner's temporary directory.
mkdir -p "$work/tmpcwd/.git" "$work/tmpcwd/tests"
echo 'open("out.log", "w")' >"$work/tmpcwd/tests/test_t.py"
printf '[audit]\ncwd = "temporary"\n' >"$work/tmpcwd/testfence.toml"
expect 0 "config: [audit] cwd = temporary" -- sh -c "cd ../tmpcwd && '$bin' audit --no-cache"
if [ ! -s "$work/out" ]; then echo "ok   no finding with a temporary cwd"; else echo "FAIL a finding with a temporary cwd"; fails=$((fails + 1)); fi
expect 0 "--cwd root overrides the config" -- sh -c "cd ../tmpcwd && '$bin' audit --no-cache --cwd root"
contains out 'relative path "out.log"' "the flag wins over the config"
printf '[audit]\ncwd = "elsewhere"\n' >"$work/tmpcwd/testfence.toml"
expect 125 "config: a bad [audit] cwd" -- sh -c "cd ../tmpcwd && '$bin' audit"
contains err 'cwd must be "root" or "temporary"' "the config error names the values"
expect 125 "--cwd takes root or temporary" -- "$bin" audit --cwd elsewhere
expect 125 "--cache-dir must be absolute" -- "$bin" audit --cache-dir relative

echo "$fails failure(s)"
[ $fails = 0 ]
