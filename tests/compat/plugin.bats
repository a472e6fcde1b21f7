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
    PYTHONPATH="$P:$P/plugins:$TESTFENCE_SRC/python" TESTFENCE_LIBRARY="$LIB" \
        run env -u PYTHONDONTWRITEBYTECODE $PY -m pytest -q -p no:cacheprovider -p testfence -p early_plugin tests/test_pkg.py
    expect_clean
    expect_output_has "1 passed"
    [ ! -e pkg/__pycache__ ] && [ ! -e plugins/__pycache__ ]
    [ -d tests/__pycache__ ] # bytecode is written again once fenced: the tests' own, inside
    assert_outside_unchanged
}
