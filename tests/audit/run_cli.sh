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

expect 1 "default path is tests/ under the root" -- "$bin" audit
printf 'tests/sub/test_a.py:1:1: TF106 error: open() writes to relative path "out.log" outside tests/\ntests/test_b.py:1:1: TF101 error: writes to protected root file "config.toml" (via open)\n' >"$work/want"
if diff -u "$work/want" "$work/out"; then echo "ok   walk: sorted, hidden/__pycache__/non-.py skipped"; else echo "FAIL walk output"; fails=$((fails + 1)); fi
expect 1 "works from a subdirectory" -- sh -c "cd tests/sub && '$bin' audit"
contains out "$work/proj/tests/test_b.py" "from a subdirectory the default path is absolute"
expect 1 "--strict with findings" -- "$bin" audit --strict
expect 125 "a missing path is an I/O error" -- "$bin" audit tests missing.py
contains err "cannot read missing.py" "the missing path is named"
contains out "tests/test_b.py:1:1" "the other paths are still scanned"
expect 1 "a named file is scanned whatever its extension" -- "$bin" audit tests/notes.txt
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
expect 1 "config: include, exclude, protected" -- sh -c "cd ../cfg && '$bin' audit"
printf 'qa/test_q.py:1:1: TF106 error: open() writes to relative path "y.log" outside tests/\ntests/test_a.py:1:1: TF101 error: writes to protected root file "history.db" (via open)\n' >"$work/want"
if diff -u "$work/want" "$work/out"; then echo "ok   config output"; else echo "FAIL config output"; fails=$((fails + 1)); fi
# The same project kept under someone else's tests/ (the suite under testfence puts its
# temp dirs there): a "tests" above the root is not this project's tests directory.
mkdir -p "$work/tests/under" && cp -a "$work/cfg" "$work/tests/under/cfg"
expect 1 "config: a project below another tests/" -- sh -c "cd ../tests/under/cfg && '$bin' audit"
if diff -u "$work/want" "$work/out"; then echo "ok   a tests/ above the root is not the project's"; else echo "FAIL a tests/ above the root"; fails=$((fails + 1)); fi
echo 'bogus = 1' >"$work/cfg/bad.toml"
expect 125 "config: an unknown key is a usage error" -- sh -c "cd ../cfg && '$bin' audit --config bad.toml"
contains err 'unknown key "bogus"' "config: the error names the key"

# SARIF: the fields GitHub code scanning requires, on a real multi-file scan.
expect 1 "sarif over a directory" -- "$bin" audit --format sarif tests
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
expect 1 "serial scan of all cases" -- "$bin" audit -j 1 tests/golden
cp "$work/out" "$work/serial"
expect 1 "parallel scan of all cases" -- "$bin" audit --no-cache -j 2 tests/golden
if cmp -s "$work/serial" "$work/out" && [ -s "$work/out" ]; then
    echo "ok   parallel output equals serial output ($(wc -l <"$work/out") lines)"
else
    echo "FAIL parallel output differs"; fails=$((fails + 1))
fi
expect 1 "a second scan, from the cache" -- "$bin" audit -j 2 tests/golden
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
expect 1 "symlinked files are audited" -- "$bin" audit tests
contains out "tests/test_link.py:1:1: TF106" "a symlinked test file is reported under its link"
contains err "tests/linkdir: a symlink to a directory, not followed" "a symlinked directory is named"
rm -f "$work/proj/tests/test_link.py" "$work/proj/tests/linkdir"
printf '# -*- coding: latin-1 -*-\nopen("caf\xe9.log", "w")\n' >"$work/proj/tests/test_latin1.py"
expect 1 "a latin-1 coding cookie" -- "$bin" audit tests/test_latin1.py
contains out 'relative path "café.log"' "the latin-1 name is read as café"
printf '# coding: no-such-codec\nx = 1\n' >"$work/proj/tests/test_badcodec.py"
expect 1 "an unknown coding cookie" -- "$bin" audit tests/test_badcodec.py
contains out "unknown encoding 'no-such-codec'" "an unknown codec is a TF000"
rm -f "$work/proj/tests/test_latin1.py" "$work/proj/tests/test_badcodec.py"
mkdir -p "$work/sdist/tests"
touch "$work/sdist/setup.py"
echo 'open("setup.cfg", "w")' >"$work/sdist/tests/test_s.py"
expect 1 "a project with only setup.py has a root" -- sh -c "cd ../sdist && '$bin' audit"
contains out "tests/test_s.py:1:1: TF101 error" "its root files are protected"
expect 1 "a cache inside the project is refused" -- "$bin" audit --cache-dir "$work/proj/tests/cache" tests
contains err "not using the cache" "the refusal is said"
[ ! -e "$work/proj/tests/cache" ] && echo "ok   nothing was created in the project" || { echo "FAIL cache created in the project"; fails=$((fails + 1)); }
expect 1 "a fresh cache" -- "$bin" audit --cache-dir "$work/c" tests
cp "$work/out" "$work/fresh"
find "$work/c" -type f | while read -r f; do head -c 40 /dev/urandom >"$f"; done
expect 1 "a corrupt cache is ignored" -- "$bin" audit --cache-dir "$work/c" tests
if cmp -s "$work/fresh" "$work/out"; then echo "ok   the corrupt cache changed nothing"; else echo "FAIL corrupt cache output"; fails=$((fails + 1)); fi
find "$work/c" -type f | while read -r f; do : >"$f"; done
expect 1 "an empty cache entry is ignored" -- "$bin" audit --cache-dir "$work/c" tests
# An assignment chain of 50,000 targets and 50,000 module constants: linear work (well
# under a second; a quadratic walk took minutes). The timeout only catches a hang.
/usr/bin/python3 -c '
n = 50000
print(" = ".join(f"a{i}" for i in range(n)) + " = \"x.txt\"")
for i in range(n):
    print(f"b{i} = \"f{i}.txt\"")
print("def test_x():\n    open(b49999, \"w\")")' >"$work/proj/tests/test_chain.py"
expect 1 "a 50,000-target assignment chain" -- timeout 120 "$bin" audit --no-cache tests/test_chain.py
contains out 'relative path "f49999.txt"' "the last constant is still followed"
rm -f "$work/proj/tests/test_chain.py"
# [audit] cwd = "temporary": relative writes land in the runner's temporary directory.
mkdir -p "$work/tmpcwd/.git" "$work/tmpcwd/tests"
echo 'open("out.log", "w")' >"$work/tmpcwd/tests/test_t.py"
printf '[audit]\ncwd = "temporary"\n' >"$work/tmpcwd/testfence.toml"
expect 0 "config: [audit] cwd = temporary" -- sh -c "cd ../tmpcwd && '$bin' audit --no-cache"
if [ ! -s "$work/out" ]; then echo "ok   no finding with a temporary cwd"; else echo "FAIL a finding with a temporary cwd"; fails=$((fails + 1)); fi
expect 1 "--cwd root overrides the config" -- sh -c "cd ../tmpcwd && '$bin' audit --no-cache --cwd root"
contains out 'relative path "out.log"' "the flag wins over the config"
printf '[audit]\ncwd = "elsewhere"\n' >"$work/tmpcwd/testfence.toml"
expect 125 "config: a bad [audit] cwd" -- sh -c "cd ../tmpcwd && '$bin' audit"
contains err 'cwd must be "root" or "temporary"' "the config error names the values"
# [audit] select, ignore, per-file-ignores (issue 29): a bad value is a config error that
# names the file, line and column, exit 125, nothing on stdout.
cfgerr() { # cfgerr DESCRIPTION TOML MESSAGE
    printf '%b' "$2" >"$work/tmpcwd/testfence.toml"
    expect 125 "config: $1" -- sh -c "cd ../tmpcwd && '$bin' audit"
    contains err "$work/tmpcwd/testfence.toml:$3" "config: $1: the file, line and message"
    [ ! -s "$work/out" ] && echo "ok   config: $1: nothing on stdout" || { echo "FAIL config: $1: stdout"; fails=$((fails + 1)); }
}
cfgerr "an unknown code in select" '[audit]\nselect = ["TF101", "TF9"]\n' '2:20: [audit] select: unknown rule code "TF9"'
cfgerr "a code that is not one" '[audit]\nignore = ["TF 101"]\n' '2:11: [audit] ignore: "TF 101" is not a rule code'
cfgerr "select is not an array" '[audit]\nselect = "TF101"\n' '2:10: [audit] select must be an array of rule codes, not string'
cfgerr "an empty select" '[audit]\nselect = []\n' '2:10: [audit] select must name at least one rule code'
cfgerr "a number among the codes" '[audit]\nignore = [101]\n' '2:11: [audit] ignore: a rule code is a string, not integer'
cfgerr "per-file-ignores not a table" '[audit]\nper-file-ignores = ["x"]\n' '2:20: [audit] per-file-ignores must be a table of patterns and their rule codes, not array'
cfgerr "an absolute per-file pattern" '[audit.per-file-ignores]\n"/etc/*" = ["TF101"]\n' '2:1: [audit] per-file-ignores: pattern "/etc/*" must be relative to the project root'
cfgerr "an unknown per-file code" '[audit.per-file-ignores]\n"tests/*" = ["TF106", "TF16"]\n' '2:23: [audit] per-file-ignores "tests/*": unknown rule code "TF16"'
cfgerr "a misspelt key" '[audit]\nper_file_ignores = {}\n' '2:1: unknown key "per_file_ignores" in [audit] (did you mean "per-file-ignores"?)'
printf '[tool.testfence.audit]\nignore = ["TF77"]\n' >"$work/tmpcwd/pyproject.toml"
rm -f "$work/tmpcwd/testfence.toml"
expect 125 "config: an unknown code in pyproject.toml" -- sh -c "cd ../tmpcwd && '$bin' audit"
contains err "pyproject.toml:2:11: [tool.testfence.audit] ignore: unknown rule code \"TF77\"" "config: the pyproject table is named"
rm -f "$work/tmpcwd/pyproject.toml"
expect 125 "--cwd takes root or temporary" -- "$bin" audit --cwd elsewhere
expect 125 "--cache-dir must be absolute" -- "$bin" audit --cache-dir relative

# Exit status (issue 29): 1 on findings by default, as ruff and flake8; --exit-zero; --strict
# is still accepted; both at once is a usage error.
expect 1 "findings exit 1 by default" -- "$bin" audit tests/test_b.py
expect 0 "--exit-zero: findings exit 0" -- "$bin" audit --exit-zero tests/test_b.py
contains out "tests/test_b.py:1:1: TF101" "--exit-zero still prints the findings"
expect 125 "--exit-zero does not hide an I/O error" -- "$bin" audit --exit-zero tests/test_b.py missing.py
expect 1 "--strict is still accepted" -- "$bin" audit --strict tests/test_b.py
expect 125 "--strict with --exit-zero" -- "$bin" audit --strict --exit-zero tests/test_b.py
contains err "contradict" "the contradiction is said"
expect 0 "--help" -- "$bin" audit --help
contains out "1 findings (not suppressed), as ruff" "--help gives the exit status on findings"
contains out "--exit-zero" "--help lists --exit-zero"
for c in TF000 TF101 TF106; do
    "$bin" audit --explain $c >"$work/explain" 2>&1
    if [ "$(tail -c 1 "$work/explain" | od -An -c | tr -d ' ')" = '\n' ]; then
        echo "ok   --explain $c ends with a newline"
    else
        echo "FAIL --explain $c does not end with a newline"; fails=$((fails + 1))
    fi
done

# gitlab and junit: what GitLab's Code Quality widget and a JUnit reader need, on a real
# multi-file scan; the fingerprints do not move when the findings' lines do.
expect 1 "gitlab over a directory" -- "$bin" audit --format gitlab tests/sub tests/test_b.py
cp "$work/out" "$work/gitlab1"
sed -i '1i\
# one line more' "$work/proj/tests/test_b.py"
expect 1 "gitlab after a line was added" -- "$bin" audit --format gitlab tests/sub tests/test_b.py
sed -i 1d "$work/proj/tests/test_b.py"
if /usr/bin/python3 - "$work/gitlab1" "$work/out" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert len(a) == 2
for issue in a:
    assert set(issue) == {"description", "check_name", "fingerprint", "severity", "location"}
    assert issue["severity"] in ("info", "minor", "major", "critical", "blocker")
    assert not issue["location"]["path"].startswith("/")
    assert issue["location"]["lines"]["begin"] >= 1
assert len({i["fingerprint"] for i in a}) == 2
assert [i["fingerprint"] for i in a] == [i["fingerprint"] for i in b]
assert [i["location"]["lines"]["begin"] for i in a] != [i["location"]["lines"]["begin"] for i in b]
PY
then echo "ok   gitlab: the fields, fingerprints stable across a moved line"; else echo "FAIL gitlab structure"; fails=$((fails + 1)); fi
expect 125 "junit with an unreadable path" -- "$bin" audit --format junit tests/sub tests/test_b.py missing.py
if /usr/bin/python3 - "$work/out" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites" and root.get("tests") == "3" and root.get("failures") == "2"
assert root.get("errors") == "1"
cases = root.findall("./testsuite/testcase")
assert len(cases) == 3
assert sum(1 for c in cases if c.find("failure") is not None) == 2
assert [c.find("error").get("message") for c in cases if c.find("error") is not None] == \
    ["missing.py: No such file or directory"]
PY
then echo "ok   junit: well-formed, a failure per finding, an error per unreadable path"; else echo "FAIL junit structure"; fails=$((fails + 1)); fi

# --statistics: counts per rule, the most frequent first; text and json only.
printf 'open("a.log", "w")\nopen("b.log", "w")\nopen("config.toml", "w")\nopen("c.log", "w")  # noqa\n' \
    >"$work/proj/tests/test_stats.py"
expect 1 "--statistics" -- "$bin" audit --statistics tests/test_stats.py
printf '2\tTF106\twrite-relative-path\n1\tTF101\twrite-protected-root-file\n' >"$work/want"
if diff -u "$work/want" "$work/out"; then echo "ok   --statistics text"; else echo "FAIL --statistics text"; fails=$((fails + 1)); fi
expect 1 "--statistics --format json" -- "$bin" audit --statistics --format json tests/test_stats.py
if /usr/bin/python3 -c '
import json, sys
assert json.load(open(sys.argv[1])) == [
    {"code": "TF106", "name": "write-relative-path", "count": 2},
    {"code": "TF101", "name": "write-protected-root-file", "count": 1}]' "$work/out"
then echo "ok   --statistics json"; else echo "FAIL --statistics json"; fails=$((fails + 1)); fi
expect 125 "--statistics with sarif" -- "$bin" audit --statistics --format sarif tests/test_stats.py
expect 0 "--statistics with no findings prints nothing" -- "$bin" audit --statistics --exit-zero --select TF107 tests/test_stats.py
[ ! -s "$work/out" ] && echo "ok   no statistics lines" || { echo "FAIL statistics of nothing"; fails=$((fails + 1)); }

# --output-file: the report goes there, whole or not at all; stdout stays empty.
expect 1 "--output-file" -- "$bin" audit --no-cache --format json --output-file report.json tests/test_stats.py
[ ! -s "$work/out" ] && echo "ok   nothing on stdout with --output-file" || { echo "FAIL stdout with --output-file"; fails=$((fails + 1)); }
(cd "$work/proj" && "$bin" audit --no-cache --format json tests/test_stats.py) >"$work/want" 2>/dev/null
if cmp -s "$work/want" "$work/proj/report.json"; then echo "ok   --output-file holds what stdout would"; else echo "FAIL --output-file content"; fails=$((fails + 1)); fi
expect 1 "-o replaces last run's report" -- "$bin" audit -o report.json tests/test_stats.py
contains proj/report.json "tests/test_stats.py:1:1: TF106" "-o wrote the text report"
ls -a "$work/proj" | grep -q testfence-tmp && { echo "FAIL a temp file was left"; fails=$((fails + 1)); } || echo "ok   no temp file left beside the report"
cp "$work/proj/report.json" "$work/before"
expect 125 "--output-file: a config error writes nothing" -- "$bin" audit --config missing.toml -o report.json tests/test_stats.py
cmp -s "$work/before" "$work/proj/report.json" && echo "ok   the old report is unchanged" || { echo "FAIL the report changed"; fails=$((fails + 1)); }
expect 125 "--output-file over a .py file is refused" -- "$bin" audit -o tests/test_b.py tests/test_stats.py
contains err "refusing to replace" "the refusal is said"
grep -qx 'open("config.toml", "w")' "$work/proj/tests/test_b.py" && echo "ok   the test file is untouched" || { echo "FAIL the test file was replaced"; fails=$((fails + 1)); }
expect 125 "--output-file over a protected root file is refused" -- "$bin" audit -o config.toml tests/test_stats.py
grep -qx 'x = 1' "$work/proj/config.toml" && echo "ok   config.toml is untouched" || { echo "FAIL config.toml was replaced"; fails=$((fails + 1)); }
ln -s config.toml "$work/proj/report-link.json"
expect 125 "--output-file through a link to a protected file is refused" -- "$bin" audit -o report-link.json tests/test_stats.py
rm -f "$work/proj/report-link.json"
expect 125 "--output-file in a missing directory" -- "$bin" audit -o nodir/report.json tests/test_stats.py
contains err "no directory nodir" "the missing directory is named"
expect 1 "--output-file under tests/ is allowed" -- "$bin" audit --format sarif -o tests/audit.sarif tests/test_stats.py
[ -s "$work/proj/tests/audit.sarif" ] && echo "ok   tests/audit.sarif written" || { echo "FAIL tests/audit.sarif"; fails=$((fails + 1)); }
# A link under tests/ a test could have planted, to a file outside the project: audit runs
# unfenced and must not follow it (the file, or a linked directory on the way).
printf 'mine\n' >"$work/outside.txt"
ln -s "$work/outside.txt" "$work/proj/tests/planted.json"
mkdir -p "$work/planted-target" && ln -s "$work/planted-target" "$work/proj/tests/planted-dir"
expect 125 "--output-file through a link under tests/ is refused" -- "$bin" audit -o tests/planted.json tests/test_stats.py
contains err "refusing to write through a symlink inside the writable set" "the planted link is said"
grep -qx mine "$work/outside.txt" && echo "ok   the file outside is untouched" || { echo "FAIL the file outside was replaced"; fails=$((fails + 1)); }
expect 125 "--output-file through a linked directory under tests/ is refused" -- "$bin" audit -o tests/planted-dir/r.json tests/test_stats.py
[ -z "$(ls -A "$work/planted-target")" ] && echo "ok   nothing written through the linked directory" || { echo "FAIL written through the link"; fails=$((fails + 1)); }
rm -f "$work/proj/tests/planted.json" "$work/proj/tests/planted-dir"
if [ "$(id -u)" != 0 ]; then
    mkdir -p "$work/proj/ro" && chmod 555 "$work/proj/ro"
    expect 125 "--output-file in a read-only directory" -- "$bin" audit -o ro/report.json tests/test_stats.py
    [ -z "$(ls -A "$work/proj/ro")" ] && echo "ok   nothing written in it" || { echo "FAIL something written"; fails=$((fails + 1)); }
    chmod 755 "$work/proj/ro"
fi
rm -rf "$work/proj/tests/test_stats.py" "$work/proj/tests/audit.sarif" "$work/proj/report.json" "$work/proj/ro"

echo "$fails failure(s)"
[ $fails = 0 ]
