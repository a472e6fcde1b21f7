#!/usr/bin/env bats
# The plugin installed for an interpreter meets pytest runs outside any project.

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
