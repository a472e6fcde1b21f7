#!/usr/bin/env bats
# CI reports at the root: blocked with a message saying what to declare; declared, written.

load compat

setup() {
    compat_project
    printf 'def test_ok():\n    pass\n' >tests/test_ok.py
}

@test "--junitxml at the root undeclared: blocked, and the hint says to declare it" {
    fenced $PY -m pytest -q -p no:cacheprovider --junitxml=report.xml tests
    [ "$status" -ne 0 ]
    expect_output_has "attempted to write to $P/report.xml"
    expect_output_has 'declare it, outputs = ["<the file>"]'
    assert_outside_unchanged
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
    [ ! -e report.xml ] && [ ! -e htmlcov ] # a dry run creates nothing
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
