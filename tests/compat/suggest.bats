#!/usr/bin/env bats
# testfence suggest on the compat suite's runs: run, suggest, suggest --apply, run again.
# A report at the root becomes a declared output, a redirect the config undid goes back,
# git's global config gets a fixture; the user's own files get advice, never a config change.

load compat

setup() {
    compat_project
    # A failed fence must not reach the real home: the runs' git and HOME point here.
    export HOME="$BATS_TEST_TMPDIR/home" GIT_CONFIG_NOSYSTEM=1
    mkdir -p "$HOME"
    printf 'def test_ok():\n    pass\n' >tests/test_ok.py
}

suggest() { run "$TESTFENCE" suggest "$@"; }

# expect_no_config: no config file was made or changed (compat_project has none).
expect_no_config() {
    [ ! -e testfence.toml ]
    [ ! -e pyproject.toml ]
}

@test "junit.xml at the root: declared by --apply (the diff applies with git apply), then the run passes" {
    printf '[project]\nname = "demo"\n\n[tool.ruff]  # kept\nline-length = 100\n' >pyproject.toml
    cp pyproject.toml "$BATS_TEST_TMPDIR/pyproject.before"
    fenced sh -c "$PY -m pytest -q -p no:cacheprovider --junitxml=junit.xml tests"
    expect_status 1 # pytest could not write junit.xml
    suggest
    expect_status 0
    expect_output_has "(outside any test)
  open64 $P/junit.xml"
    expect_output_has 'a report the runner writes: declare it an output: outputs = [..., "junit.xml"]'
    expect_output_has '--- a/pyproject.toml
+++ b/pyproject.toml'
    expect_output_has '+[tool.testfence]
+outputs = ["junit.xml"]'
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/fix.patch"
    git apply --check "$BATS_TEST_TMPDIR/fix.patch"
    suggest --apply
    expect_status 0
    expect_output_has "testfence suggest: changed $P/pyproject.toml"
    # Every old byte kept, the table appended.
    cmp -n "$(stat -c %s "$BATS_TEST_TMPDIR/pyproject.before")" pyproject.toml \
        "$BATS_TEST_TMPDIR/pyproject.before"
    grep -qx 'outputs = \["junit.xml"\]' pyproject.toml
    cp pyproject.toml "$BATS_TEST_TMPDIR/pyproject.applied"
    suggest --apply # idempotent: the old report again changes nothing
    expect_status 0
    expect_output_has "no config change to suggest: the config already has what was missing"
    cmp pyproject.toml "$BATS_TEST_TMPDIR/pyproject.applied"
    fenced sh -c "$PY -m pytest -q -p no:cacheprovider --junitxml=junit.xml tests"
    expect_clean
    grep -q '<testsuite' junit.xml
    [ -z "$(ls -A | grep -v -e '^\.git$' -e '^config\.toml$' -e '^pyproject\.toml$' -e '^junit\.xml$' -e '^tests$')" ]
}

@test "an output directory (htmlcov/) into an existing testfence.toml's outputs, then the run passes" {
    printf '# ours\nwritable = ["tests"]\noutputs = [\n    "report.xml",  # CI\n]\nretain = 3\n' >testfence.toml
    fenced sh -c 'mkdir -p htmlcov/d && echo x >htmlcov/d/index.html'
    expect_status 1 # mkdir could not make htmlcov/
    suggest --apply
    expect_status 0
    expect_output_has '@@ -2,5 +2,6 @@
 writable = ["tests"]
 outputs = [
     "report.xml",  # CI
+    "htmlcov/",
 ]
 retain = 3'
    [ "$(cat testfence.toml)" = '# ours
writable = ["tests"]
outputs = [
    "report.xml",  # CI
    "htmlcov/",
]
retain = 3' ]
    fenced sh -c 'mkdir -p htmlcov/d && echo x >htmlcov/d/index.html'
    expect_clean
}

@test "coverage's data file: the config's [env] that sent it to the root goes back to the artifacts dir" {
    $PY -c 'import pytest_cov' 2>/dev/null || skip "python3-pytest-cov is not installed"
    mkdir pkg
    printf 'def f():\n    return 1\n' >pkg/__init__.py
    printf 'import pkg\n\ndef test_f():\n    assert pkg.f() == 1\n' >tests/test_cov.py
    printf 'writable = ["tests"]\n\n[env]\nCOVERAGE_FILE = "{root}/.coverage"  # CI reads it\n' >testfence.toml
    cov() { fenced $PY -m pytest -q -p pytest_cov -p no:cacheprovider --cov=pkg tests; }
    cov
    [ "$status" -ne 0 ] # pytest-cov's own error when its data file is refused
    suggest --apply
    expect_status 0
    expect_output_has "the config's [env] points this tool's state outside the writable set"
    expect_output_has '-COVERAGE_FILE = "{root}/.coverage"  # CI reads it
+COVERAGE_FILE = "{artifacts}/.coverage"  # CI reads it'
    cov
    expect_clean
    [ -f tests/artifacts/.coverage ]
    [ -z "$(ls -a | grep '^\.coverage')" ]
}

@test "coverage's data file, the suite's own way (pytest-cov, no config): nothing to suggest" {
    $PY -c 'import pytest_cov' 2>/dev/null || skip "python3-pytest-cov is not installed"
    fenced $PY -m pytest -q -p pytest_cov -p no:cacheprovider --cov=tests tests
    expect_clean
    suggest --apply
    expect_status 0
    expect_output_has "nothing to suggest: the run blocked no write"
    expect_output_lacks "config change"
    expect_no_config
}

@test "coverage's data file named by the command itself: advice, no config change" {
    fenced sh -c 'echo x >.coverage'
    suggest --apply
    expect_status 0
    expect_output_has "coverage.py's data file"
    expect_output_has "no config change to suggest"
    expect_no_config
}

@test "git config --global in a test: a GIT_CONFIG_GLOBAL fixture, no config change; with it the run passes" {
    printf 'import subprocess\n\ndef test_git_global():\n    assert subprocess.run(["git", "config", "--global", "user.name", "x"]).returncode == 0\n' >tests/test_git.py
    fenced $PY -m pytest -q -p no:cacheprovider tests
    expect_status 1
    suggest --apply
    expect_status 0
    expect_output_has "tests/test_git.py::test_git_global
  open64 $HOME/.gitconfig.lock"
    expect_output_has "GIT_CONFIG_GLOBAL in a fixture"
    expect_output_has "no config change to suggest"
    expect_no_config
    # The fixture as printed, in a conftest.py: the test passes, nothing blocked.
    printf '%s\n' "$output" | sed -n '/^         # conftest.py/,/monkeypatch.setenv/p' |
        sed 's/^         //' >tests/conftest.py
    grep -q 'monkeypatch.setenv("GIT_CONFIG_GLOBAL"' tests/conftest.py
    fenced $PY -m pytest -q -p no:cacheprovider tests
    expect_clean
    [ ! -e "$HOME/.gitconfig" ]
    assert_outside_unchanged
}

@test "git config --global run by the command: the run gets its own global config ([env])" {
    fenced git config --global user.name x
    expect_status 255 # git could not lock its global config
    suggest --apply
    expect_status 0
    expect_output_has '+[env]
+GIT_CONFIG_GLOBAL = "{workspace}/gitconfig"'
    expect_output_has "testfence suggest: created $P/testfence.toml"
    fenced git config --global user.name x
    expect_clean
    [ ! -e "$HOME/.gitconfig" ]
}

@test "pytest-benchmark's .benchmarks: quiet, so nothing to suggest" {
    $PY -c 'import pytest_benchmark' 2>/dev/null || skip "python3-pytest-benchmark is not installed"
    printf 'def test_bench(benchmark):\n    benchmark(sum, [1, 2, 3])\n' >tests/test_bench.py
    fenced $PY -m pytest -q -p pytest_benchmark.plugin -p no:cacheprovider tests/test_bench.py
    expect_clean
    suggest --apply
    expect_status 0
    expect_output_has "nothing to suggest"
    expect_no_config
    [ ! -e .benchmarks ]
}

@test "a test that overwrote config.toml and a data file: advice to change the test, never a config change" {
    mkdir -p data && printf 'sample\n' >data/sample.csv
    git add -A && git -c user.name=t -c user.email=t@example.com commit -qm data
    fingerprint >"$BATS_TEST_TMPDIR/before"
    cat >tests/test_clobber.py <<'PY'
import pytest

def test_save_config():
    with pytest.raises(PermissionError):
        open("config.toml", "w").write("clobbered")

def test_write_data():
    with pytest.raises(PermissionError):
        open("data/sample.csv", "w").write("clobbered")
PY
    fenced $PY -m pytest -q -p no:cacheprovider tests
    expect_status 120
    # The runner itself writing a file that is not a report: no config change either.
    fenced sh -c "$PY -m pytest -q -p no:cacheprovider tests; echo x > data/sample.csv; echo y > package.json"
    expect_status 2 # the shell's last redirect was refused
    suggest --apply
    expect_status 0
    expect_output_has "tests/test_clobber.py::test_save_config
  open64 $P/config.toml
    -> change the test, not the config: $P/config.toml is no file a known tool makes"
    expect_output_has "write under tmp_path"
    expect_output_has "tests/test_clobber.py::test_write_data
  open64 $P/data/sample.csv"
    expect_output_has "(outside any test)"
    expect_output_has "-> change the command, not the config: $P/package.json"
    expect_output_has "no config change to suggest"
    expect_output_lacks "---"
    expect_no_config
    assert_outside_unchanged
}

# report_with_lines: the newest report, with the source-line keys of the contract added to
# each write of the test named $1 (as a run with them writes them), to $BATS_TEST_TMPDIR/r.json.
report_with_lines() {
    local r
    r=$(ls -d tests/artifacts/_isolation_workspace_* | sort | tail -1)/report.json
    $PY - "$r" "$1" "$BATS_TEST_TMPDIR/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for t in r["tests"]:
    if t["test"] == sys.argv[2]:
        for w in t["writes"]:  # a file named absolute is shown relative to the root
            w.update(src_file="tests/helpers.py", src_line=12, src_func="save",
                     test_file=r["root"] + "/tests/test_cfg.py", test_line=4)
json.dump(r, open(sys.argv[3], "w"), indent=2)
PY
}

@test "the source line of a write when the report has it (src_file, src_line, src_func, test_file, test_line); else the test id" {
    printf 'def save():\n    open("config.toml", "w")\n' >tests/helpers.py
    printf 'import pytest\nfrom helpers import save\n\ndef test_cfg():\n    with pytest.raises(PermissionError):\n        save()\n\ndef test_other():\n    with pytest.raises(PermissionError):\n        open("other.txt", "w")\n' >tests/test_cfg.py
    fenced env PYTHONPATH=tests $PY -m pytest -q -p no:cacheprovider tests/test_cfg.py
    expect_status 120
    report_with_lines tests/test_cfg.py::test_cfg
    suggest "$BATS_TEST_TMPDIR/r.json"
    expect_status 0
    expect_output_has "tests/test_cfg.py::test_cfg
  open64 $P/config.toml
    at tests/helpers.py:12 in save, from tests/test_cfg.py:4
    -> change the test"
    expect_output_has "tests/test_cfg.py::test_other
  open64 $P/other.txt
    -> change the test"
    # The test's own line, when it made the write itself: said once.
    report_with_lines tests/test_cfg.py::test_other
    $PY -c 'import json, sys; r = json.load(open(sys.argv[1])); w = [t for t in r["tests"] if t["test"] == "tests/test_cfg.py::test_other"][0]["writes"][0]; w.update(src_file="tests/test_cfg.py", src_line=4, src_func="test_other"); json.dump(r, open(sys.argv[1], "w"))' "$BATS_TEST_TMPDIR/r.json"
    suggest "$BATS_TEST_TMPDIR/r.json"
    expect_output_has "  open64 $P/other.txt
    at tests/test_cfg.py:4 in test_other
    -> change the test"
}

@test "bad input: no run, a report that is not JSON (FILE:LINE:COL) or not testfence's, --run of no run: 125" {
    suggest
    expect_status 125
    expect_output_has "testfence: no run to read: $P/tests/artifacts"
    fenced true
    suggest
    expect_status 0
    expect_output_has "nothing to suggest: the run blocked no write"
    printf '{\n  "schema": "testfence-report/1",\n  "tests": [}\n' >"$BATS_TEST_TMPDIR/bad.json"
    suggest "$BATS_TEST_TMPDIR/bad.json"
    expect_status 125
    expect_output_has "testfence: $BATS_TEST_TMPDIR/bad.json:3:13: expected a value, found '}'"
    printf '{"schema": "other/1"}' >"$BATS_TEST_TMPDIR/other.json"
    suggest "$BATS_TEST_TMPDIR/other.json"
    expect_status 125
    expect_output_has 'other.json:1:1: not a testfence report ("schema" is not "testfence-report/1")'
    suggest "$BATS_TEST_TMPDIR/missing.json"
    expect_status 125
    expect_output_has "testfence: cannot read $BATS_TEST_TMPDIR/missing.json"
    suggest --run 20260101T000000Z-0000001
    expect_status 125
    expect_output_has "--run 20260101T000000Z-0000001: no such run in $P/tests/artifacts"
    suggest --run ../x
    expect_status 125
    expect_output_has "not a run id"
    suggest a.json b.json
    expect_status 125
    expect_output_has "testfence: one report at most; see 'testfence suggest --help'"
    suggest --run 20260101T000000Z-0000001 a.json
    expect_status 125
    expect_output_has "testfence: name a report or give --run, not both"
    expect_no_config
}

@test "--run ID picks a run; --apply writes no config through a symlink, and leaves it whole" {
    fenced sh -c 'echo x > junit.xml'
    local first
    first=$(ls tests/artifacts | sed -n 's/^_isolation_workspace_//p' | sort | tail -1)
    fenced true
    suggest
    expect_output_has "nothing to suggest"
    suggest --run "$first"
    expect_status 0
    expect_output_has '+outputs = ["junit.xml"]'
    expect_output_has '--- /dev/null
+++ b/testfence.toml'
    printf 'retain = 3\n' >"$BATS_TEST_TMPDIR/real.toml"
    ln -s "$BATS_TEST_TMPDIR/real.toml" testfence.toml
    suggest --run "$first" --apply
    expect_status 125
    expect_output_has "testfence: $P/testfence.toml is a symlink, not a regular file: not written"
    [ -L testfence.toml ]
    [ "$(cat "$BATS_TEST_TMPDIR/real.toml")" = 'retain = 3' ]
    rm testfence.toml
    # [tool.testfence] as an inline table: refused, the file kept as it was
    printf '[tool]\ntestfence = { retain = 3 }\n' >pyproject.toml
    suggest --run "$first" --apply
    expect_status 125
    expect_output_has "testfence: editing $P/pyproject.toml would break it"
    expect_output_has "edit it by hand"
    [ "$(cat pyproject.toml)" = '[tool]
testfence = { retain = 3 }' ]
    [ -z "$(ls -A | grep -v -e '^\.git$' -e '^config\.toml$' -e '^pyproject\.toml$' -e '^tests$')" ]
}

@test "a report.json a test replaced by a symlink, or a workspace replaced by one, is not followed" {
    fenced sh -c 'echo x > junit.xml'
    local id ws
    id=$(ls tests/artifacts | sed -n 's/^_isolation_workspace_//p')
    ws=tests/artifacts/_isolation_workspace_$id
    mv "$ws/report.json" "$BATS_TEST_TMPDIR/elsewhere.json"
    ln -s "$BATS_TEST_TMPDIR/elsewhere.json" "$ws/report.json"
    suggest
    expect_status 125
    expect_output_has "testfence: no run's report.json in $P/tests/artifacts"
    suggest --run "$id"
    expect_status 125
    expect_output_has "testfence: cannot read $P/$ws/report.json (a symlink, not followed)"
    mv "$ws" "$BATS_TEST_TMPDIR/ws"
    ln -s "$BATS_TEST_TMPDIR/ws" "$ws"
    suggest --run "$id"
    expect_status 125
    suggest "$BATS_TEST_TMPDIR/elsewhere.json" # named by the user: read as named
    expect_status 0
    expect_output_has '+outputs = ["junit.xml"]'
    expect_no_config
}

@test "a report a test planted in a workspace of its own making is never taken for the newest run's" {
    fenced sh -c 'echo x >../config.toml 2>/dev/null; true'
    expect_status 120
    real=$(basename tests/artifacts/_isolation_workspace_*)
    real=${real#_isolation_workspace_}
    # A run that plants a later workspace whose report names a report file at the root, dated
    # in the future (a modification time is the test's to set; a change time is not).
    fenced sh -c 'w=tests/artifacts/_isolation_workspace_20991231T000000Z-0000001
        mkdir "$w" && sed -e "s/$0/20991231T000000Z-0000001/g" -e "s/config\.toml/junit.xml/g" \
            tests/artifacts/_isolation_workspace_$0/report.json >"$w/report.json"
        touch -d 2099-01-01 "$w/report.json"' "$real"
    expect_status 0
    grep -q junit.xml tests/artifacts/_isolation_workspace_20991231T000000Z-0000001/report.json
    # The newest run is the planting one (its report.json was written last): that one is read.
    planter=$(basename "$(ls -d tests/artifacts/_isolation_workspace_* | grep -v -e "$real" -e 20991231T000000Z)")
    planter=${planter#_isolation_workspace_}
    [ -n "$planter" ]
    suggest
    expect_status 0
    expect_output_has "(run $planter"
    expect_output_lacks "20991231T000000Z"
    expect_output_lacks "junit.xml"
    expect_no_config
    # Named by --run, its claim to be another run is refused.
    sed -i "s/20991231T000000Z-0000001/20200101T000000Z-0000001/g" \
        tests/artifacts/_isolation_workspace_20991231T000000Z-0000001/report.json
    suggest --run 20991231T000000Z-0000001
    expect_status 125
    expect_output_has "is not run 20991231T000000Z-0000001's report (it says run 20200101T000000Z-0000001): a test may have written it"
    expect_no_config
}
