#!/usr/bin/env bats
# CI reports at the root: blocked with a message saying what to declare; declared, written.

load compat

setup() {
    compat_project
    printf 'def test_ok():\n    pass\n' >tests/test_ok.py
}

@test "--junitxml at the root behind sh -c (not read by run): blocked, the hint says to declare it" {
    fenced sh -c "$PY -m pytest -q -p no:cacheprovider --junitxml=report.xml tests"
    [ "$status" -ne 0 ]
    expect_output_has "attempted to write to $P/report.xml"
    expect_output_has 'declare it, outputs = ["<the file>"]'
    assert_outside_unchanged
}

# A test that leaves a mark, to tell whether the suite ran.
marking_test() {
    printf 'def test_mark():\n    open("tests/ran", "w").write("x")\n' >tests/test_mark.py
}

# up_front ARGS...: testfence run ARGS, with only pytest's own plugins.
up_front() { PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 run "$TESTFENCE" run "$@"; }

# expect_refused_up_front FLAG PATH: 125, the message names the report and both fixes, and
# nothing ran or was made (no workspace either).
expect_refused_up_front() {
    expect_status 125
    expect_output_has "testfence: refusing to run: pytest is asked to write outside the writable set"
    expect_output_has "  $1 $2 -> $P/$2"
    expect_output_has "in the config: outputs = [\"$2\"] (testfence.toml, or [tool.testfence] in pyproject.toml)"
    expect_output_has "on the command line: testfence run --output $2 -- ..."
    [ ! -e tests/ran ]
    [ ! -e tests/artifacts ]
    [ ! -e "$2" ]
    assert_outside_unchanged
}

@test "run -- pytest --junitxml at the root: refused before the command starts, saying what to declare" {
    marking_test
    up_front -- $PY -m pytest -q -p no:cacheprovider --junitxml=junit.xml tests
    expect_refused_up_front --junitxml junit.xml
    [[ "$output" != *TEST_SANDBOX_VIOLATION* && "$output" != *Traceback* ]]
    up_front --dry-run -- $PY -m pytest -q -p no:cacheprovider --junitxml junit.xml tests
    expect_refused_up_front --junitxml junit.xml
    PYTEST_ADDOPTS="--junit-xml=junit.xml" up_front -- env -u FOO $PY -m pytest -q tests
    expect_refused_up_front --junit-xml junit.xml
}

@test "run -- pytest --cov --cov-report=xml: refused up front (pytest-cov need not be installed)" {
    marking_test
    up_front -- $PY -m pytest -q --cov=src --cov-report=xml tests
    expect_refused_up_front --cov-report=xml coverage.xml
    up_front --dry-run -- $PY -m pytest -q --cov --cov-report=html tests
    expect_status 125
    expect_output_has "  --cov-report=html htmlcov/ -> $P/htmlcov"
    expect_output_has 'outputs = ["htmlcov/"]'
    expect_output_has "testfence run --output htmlcov/ -- ..."
}

@test "run -- pytest: a declared report, one inside tests/, --cov-report without --cov: not refused" {
    marking_test
    printf 'outputs = ["junit.xml"]\n' >testfence.toml
    up_front -- $PY -m pytest -q -p no:cacheprovider --junitxml=junit.xml tests
    expect_clean
    grep -q '<testsuite' junit.xml
    [ -e tests/ran ]
    rm testfence.toml tests/ran
    up_front -- $PY -m pytest -q -p no:cacheprovider --junitxml=tests/artifacts/junit.xml tests
    expect_clean
    grep -q '<testsuite' tests/artifacts/junit.xml
    [ -e tests/ran ]
    up_front --dry-run -- $PY -m pytest -q --cov-report=xml tests
    expect_status 0
    up_front --output coverage.xml --dry-run -- $PY -m pytest -q --cov --cov-report=xml tests
    expect_status 0
}

@test "--output report.xml: written, exit 0, nothing else opened" {
    fenced_out() { run "$TESTFENCE" run --output report.xml --output htmlcov/ -- "$@"; }
    fenced_out $PY -m pytest -q -p no:cacheprovider --junitxml=report.xml tests
    expect_clean
    grep -q '<testsuite' report.xml
    expect_output_has "declared output (writable outside the fence): $P/report.xml"
    fenced_out sh -c 'echo x > htmlcov/index.html && mkdir htmlcov/d && echo y > htmlcov/d/f'
    expect_clean
    fenced_out sh -c 'echo x > config.toml'
    [ "$status" -ne 0 ]
    expect_output_has "attempted to write to $P/config.toml"
    fenced_out sh -c 'rm report.xml' # the file itself may be written, not removed
    [ "$status" -ne 0 ]
    [ -f report.xml ]
}

@test "outputs in the config: --dry-run and explain show them" {
    printf 'outputs = ["report.xml", "reports/cov.xml", "htmlcov/"]\n' >testfence.toml
    run "$TESTFENCE" run --dry-run -- true
    expect_status 0
    expect_output_has "$P/report.xml"
    expect_output_has 'output "report.xml" (a declared file)'
    expect_output_has 'output "htmlcov/" (a declared directory)'
    [ ! -e report.xml ]
    [ ! -e htmlcov ] # a dry run creates nothing
    run "$TESTFENCE" explain report.xml htmlcov/x/y
    expect_status 0
    expect_output_has "(output \"report.xml\")"
    fenced sh -c 'echo "<x/>" > report.xml && echo y > reports/cov.xml'
    expect_clean
    [ "$(cat reports/cov.xml)" = y ]
}

@test "an output must stay in the project, and be of the declared kind" {
    printf 'outputs = ["../report.xml"]\n' >testfence.toml
    fenced true
    expect_status 125
    expect_output_has 'must not climb out of the project root'
    printf 'outputs = ["tests"]\n' >testfence.toml
    fenced true
    expect_status 125
    expect_output_has 'write "tests/" to declare a directory'
    ln config.toml tests/hard
    printf 'outputs = ["tests/hard"]\n' >testfence.toml
    fenced true
    expect_status 125
    expect_output_has "is a hard link to a file with 1 other link(s)"
}

@test "the plugin says what to declare at start-up, and writes a declared report" {
    plugin -q -p no:cacheprovider --junitxml=report.xml tests
    expect_status 4
    expect_output_has "--junitxml report.xml -> $P/report.xml"
    expect_output_has 'outputs = ["report.xml"]'
    expect_output_has "--testfence-output report.xml"
    [ ! -e report.xml ]
    plugin -q -p no:cacheprovider --junitxml=report.xml --testfence-output report.xml tests
    expect_clean
    grep -q '<testsuite' report.xml
    expect_output_has "testfence: declared output (writable outside the fence): $P/report.xml"
    plugin -q -p no:cacheprovider --junitxml=tests/report.xml tests
    expect_clean
}

@test "the plugin: a report in a directory pytest would make outside is refused up front; a json report file's default is not" {
    plugin -q -p no:cacheprovider --junitxml=reports/junit.xml tests
    expect_status 4
    expect_output_has "--junitxml reports/junit.xml -> $P/reports/junit.xml"
    [ ! -e reports ]
    printf 'outputs = ["reports/junit.xml"]\n' >testfence.toml
    plugin -q -p no:cacheprovider --junitxml=reports/junit.xml tests
    expect_clean
    grep -q '<testsuite' reports/junit.xml
    # pytest-json-report's options, as it declares them: its file has a default, written
    # only with --json-report.
    mkdir "$BATS_TEST_TMPDIR/plug"
    printf 'def pytest_addoption(parser):\n    parser.addoption("--json-report", action="store_true", dest="json_report")\n    parser.addoption("--json-report-file", default=".report.json", dest="json_report_file")\n' >"$BATS_TEST_TMPDIR/plug/fakejson.py"
    PYTHONPATH="$BATS_TEST_TMPDIR/plug" plugin -q -p no:cacheprovider -p fakejson tests
    expect_clean
    PYTHONPATH="$BATS_TEST_TMPDIR/plug" plugin -q -p no:cacheprovider -p fakejson --json-report tests
    expect_status 4
    expect_output_has "--json-report-file .report.json -> $P/.report.json"
}
