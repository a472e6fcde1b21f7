#!/usr/bin/env bats
# The bundled example project, run the way the README's demo runs it.

load ../support/helpers

setup() {
    cp -r "$TESTFENCE_SRC/examples/clobber" "$BATS_TEST_TMPDIR/proj"
    rm -rf "$BATS_TEST_TMPDIR/proj/tests/artifacts"
    P="$BATS_TEST_TMPDIR/proj"
    cd "$P"
    fingerprint >"$BATS_TEST_TMPDIR/before"
}

@test "examples/clobber: careless tests fail, good ones pass, root files unchanged" {
    run env -u PYTHONDONTWRITEBYTECODE "$TESTFENCE" run -- /usr/bin/python3 -m pytest -rA --tb=line
    expect_status 1
    for t in test_save_overwrites_manual_slop_with_open test_save_through_path_write_text \
        test_shell_helper_clobbers_config test_credentials_reset; do
        expect_output_has "FAILED tests/test_settings.py::$t"
    done
    for t in test_scratch_in_mkdtemp test_roundtrip_in_tmp_path \
        test_reads_real_config_without_writing test_workspace_is_available; do
        expect_output_has "PASSED tests/test_settings.py::$t"
    done
    expect_output_has "PASSED tests/test_workspace_files.py::test_app_reads_placeholders_not_the_real_files"
    expect_output_has "mkdtemp() gave $(runtmp_user)/"
    expect_output_has "4 failed, 5 passed"
    assert_outside_unchanged
    # Bytecode: where Python writes it in the writable set (beside the test modules), and
    # nowhere outside it (the app's, refused quietly: no line in the output for it).
    [ -z "$(find . -path ./tests -prune -o -name '*.pyc' -print)" ]
    [[ "$output" != *__pycache__* ]]
}
