#!/usr/bin/env bats
# The plugin installed for an interpreter meets pytest runs outside any project, and other
# plugins that import the project before the fence.

load compat

@test "no project root: the plugin stands aside with a notice, pytest runs" {
    unset TESTFENCE_WORKSPACE TESTFENCE_RUN_ID TESTFENCE_PLUGIN PYTEST_ADDOPTS # the suite's own run
    D="$BATS_TEST_TMPDIR/loose"
    mkdir -p "$D"
    cd "$D"
    printf 'def test_ok():\n    pass\n' >test_loose.py
    for d in "$D" $(dirname "$D"); do
        while [ "$d" != / ]; do
            d=$(dirname "$d")
            for m in .git pyproject.toml testfence.toml; do
                [ -e "$d/$m" ] && skip "a project root above $D ($d/$m)"
            done
        done
    done
    plugin -q -p no:cacheprovider test_loose.py
    expect_status 0
    expect_output_has "testfence: no project root here, so nothing is fenced"
    expect_output_has "1 passed"
}

@test "a plugin loaded after testfence imports the project before the fence: no __pycache__ is written outside tests/" {
    compat_project
    mkdir -p pkg plugins
    printf 'VALUE = 1\n' >pkg/__init__.py
    printf 'import pkg  # as hypothesis imports attrs, before the fence\n' >plugins/early_plugin.py
    printf 'import pkg\n\ndef test_value():\n    assert pkg.VALUE == 1\n' >tests/test_pkg.py
    git add -A && git -c user.name=t -c user.email=t@example.com commit -qm pkg
    # Bytecode on, as on a developer's machine; bare, the import writes pkg/__pycache__.
    PYTHONPATH="$P:$P/plugins" run env -u PYTHONDONTWRITEBYTECODE $PY -m pytest -q -p no:cacheprovider -p early_plugin tests/test_pkg.py
    expect_status 0
    [ -d pkg/__pycache__ ] && rm -rf pkg/__pycache__ plugins/__pycache__ tests/__pycache__
    fingerprint >"$BATS_TEST_TMPDIR/before"
    # However pytest is given the hooks: the module, or the hooks' own module.
    for plugin in testfence _testfence.hooks; do
        rm -rf tests/__pycache__
        PYTHONPATH="$P:$P/plugins:$TESTFENCE_SRC/python" TESTFENCE_LIBRARY="$LIB" \
            run env -u PYTHONDONTWRITEBYTECODE $PY -m pytest -q -p no:cacheprovider -p $plugin -p early_plugin tests/test_pkg.py
        expect_clean
        expect_output_has "1 passed"
        [ ! -e pkg/__pycache__ ]
        [ ! -e plugins/__pycache__ ]
        [ -d tests/__pycache__ ] # bytecode is written again once fenced: the tests' own, inside
    done
    assert_outside_unchanged
}

@test "installed with no bytecode (uv, pip --no-compile): the first start writes the plugin's own, the next compiles none" {
    compat_project
    printf 'def test_ok():\n    pass\n' >tests/test_ok.py
    git add -A && git -c user.name=t -c user.email=t@example.com commit -qm ok
    site="$BATS_TEST_TMPDIR/site"
    mkdir -p "$site"
    cp "$TESTFENCE_SRC/python/testfence.py" "$site/"
    cp -r "$TESTFENCE_SRC/python/_testfence" "$site/"
    find "$site" -name __pycache__ -exec rm -rf {} +
    fingerprint >"$BATS_TEST_TMPDIR/before"
    for start in first next; do
        PYTHONPATH="$site" TESTFENCE_LIBRARY="$LIB" run env -u PYTHONDONTWRITEBYTECODE \
            $PY -v -m pytest -q -p no:cacheprovider -p testfence tests/test_ok.py
        expect_clean
        expect_output_has "1 passed"
    done
    # python -v: 'code object from' the .pyc (quoted), or the .py it compiled (unquoted).
    run grep "^# code object from $site/_testfence/" <<<"$output"
    [ "$status" -eq 1 ] || { echo "compiled again at the next start: $output"; false; }
    tag=$($PY -c 'import sys; print(sys.implementation.cache_tag)')
    for m in hooks native report state startup audithook where; do
        [ -f "$site/_testfence/__pycache__/$m.$tag.pyc" ] || { echo "no bytecode: $m"; false; }
    done
    assert_outside_unchanged # the project: nothing outside tests/ (its tests' bytecode is inside)
}

# cov_project: a package, a test that covers half of one branch, and the plugins named only.
cov_project() {
    compat_project
    export PYTEST_DISABLE_PLUGIN_AUTOLOAD=1
    $PY -c 'import pytest_cov' 2>/dev/null || skip "no pytest-cov (scripts/deps.sh test)"
    mkdir -p pkg
    printf 'def f(x):\n    if x:\n        return 1\n    return 2\n' >pkg/__init__.py
    printf 'import pkg\n\n\ndef test_f():\n    assert pkg.f(1) == 1\n' >tests/test_pkg.py
    printf '[pytest]\npythonpath = .\n' >pytest.ini
    git add -A && git -c user.name=t -c user.email=t@example.com commit -qm pkg
    fingerprint >"$BATS_TEST_TMPDIR/before"
}

# expect_cov_line: coverage's table says pkg/__init__.py is 75% covered (3 of 4 lines).
expect_cov_line() {
    if ! [[ "$output" =~ pkg/__init__.py\ +4\ +1\ +75% ]]; then
        echo "no coverage line for pkg/__init__.py:" >&2
        echo "$output" >&2
        return 1
    fi
}

# expect_cov_table: pytest-cov printed its table, with that line.
expect_cov_table() {
    expect_output_has "coverage: platform"
    expect_cov_line
}

@test "pytest-cov under the plugin, with and without -n 2: coverage in the artifacts dir, the table printed, nothing at the root" {
    cov_project
    plugin -p no:cacheprovider -p pytest_cov --cov=pkg tests
    expect_clean
    expect_cov_table
    expect_output_has "1 passed"
    assert_outside_unchanged
    # The data file is kept in the artifacts dir, to be read after the run.
    run $PY -m coverage report --data-file=tests/artifacts/.coverage
    expect_status 0
    expect_cov_line
    rm tests/artifacts/.coverage
    plugin -p no:cacheprovider -p pytest_cov -p xdist -n 2 --cov=pkg tests
    expect_clean
    expect_cov_table
    expect_output_has "1 passed"
    [ -f tests/artifacts/.coverage ]
    assert_outside_unchanged
}

@test "pytest-cov under testfence run, with and without -n 2: the same" {
    cov_project
    for n in "" "-p xdist -n 2"; do
        fenced $PY -m pytest -p no:cacheprovider -p pytest_cov $n --cov=pkg tests
        expect_clean
        expect_cov_table
        expect_output_has "1 passed"
        [ -f tests/artifacts/.coverage ]
        assert_outside_unchanged
        rm tests/artifacts/.coverage
    done
}

@test "coverage's data file named outside (the config's [env]): the plugin reports it and the run fails 120, not an INTERNALERROR's 3" {
    cov_project
    printf '[env]\nCOVERAGE_FILE = "{root}/.coverage"\n' >testfence.toml
    # .coveragerc's data_file cannot do it: COVERAGE_FILE wins over coverage's own config.
    printf '[run]\ndata_file = .coverage\n' >.coveragerc
    git add -A && git -c user.name=t -c user.email=t@example.com commit -qm env
    fingerprint >"$BATS_TEST_TMPDIR/before"
    plugin -p no:cacheprovider -p pytest_cov --cov=pkg tests
    expect_status 120
    expect_output_has "INTERNALERROR"
    expect_output_has "TEST_SANDBOX_VIOLATION: python"
    expect_output_has "testfence: blocked writes"
    expect_output_has "(outside any test): 1 blocked write"
    expect_output_has "$P/.coverage."
    expect_output_has "coverage.py's data file: testfence points COVERAGE_FILE into the artifacts dir"
    grep -q '"status": 120' tests/artifacts/_isolation_workspace_*/report.json
    assert_outside_unchanged
}
