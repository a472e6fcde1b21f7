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

@test "examples/clobber in CI: JUnit names, annotations and SARIF at the same file and line" {
    mkdir "$BATS_TEST_TMPDIR/reports"
    # with the plugin, which tells run the line of each write where it can (docs/plugin.md)
    unset TESTFENCE_WORKSPACE TESTFENCE_RUN_ID TESTFENCE_PLUGIN PYTEST_ADDOPTS TESTFENCE_SHIM_CONF
    run env GITHUB_WORKSPACE="$BATS_TEST_TMPDIR" PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 \
        PYTHONPATH="$TESTFENCE_SRC/python" TESTFENCE_LIBRARY="$(dirname "$TESTFENCE")/libtestfence.so" \
        "$TESTFENCE" run --format github --junit "$BATS_TEST_TMPDIR/reports/j.xml" \
        --sarif "$BATS_TEST_TMPDIR/reports/r.sarif" -- \
        /usr/bin/python3 -m pytest -q -p testfence -p no:cacheprovider
    expect_status 1
    assert_outside_unchanged
    printf '%s\n' "$output" | grep '^::error ' >"$BATS_TEST_TMPDIR/annotations"
    run /usr/bin/python3 "$TESTFENCE_SRC/tests/support/sarif_schema.py" "$BATS_TEST_TMPDIR/reports/r.sarif"
    expect_status 0
    /usr/bin/python3 - "$BATS_TEST_TMPDIR" <<'PY'
import json, re, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
careless = {"test_save_overwrites_manual_slop_with_open", "test_save_through_path_write_text",
            "test_shell_helper_clobbers_config", "test_credentials_reset"}
# annotations: test id -> (file, line or None)
notes = {}
for a in open(d + "/annotations"):
    props, msg = re.match(r"::error (.*?)::(.*)", a).groups()
    kv = dict(p.split("=", 1) for p in props.split(","))
    notes[msg.split(": ")[0]] = (kv.get("file"), kv.get("line"))
assert set(notes) == {"tests/test_settings.py::" + t for t in careless}, notes
for test, (f, line) in notes.items():  # the test's file, or the app's that it called
    assert f in ("proj/tests/test_settings.py", "proj/slop/settings.py"), (test, f)
# SARIF: the same file, the same line (1 where the annotation has none)
run, = json.load(open(d + "/reports/r.sarif"))["runs"]
assert len(run["results"]) == 4, run["results"]
for res in run["results"]:
    loc = res["locations"][0]["physicalLocation"]
    f, line = notes[res["properties"]["test"]]
    assert loc["artifactLocation"]["uri"] == f and loc["region"]["startLine"] == int(line or 1), (res, f, line)
    assert res["ruleId"] == "TF101", res  # the project's own root files
# JUnit: pytest's names, the test's file, a time
suite = ET.parse(d + "/reports/j.xml").getroot().find("testsuite")
cases = suite.findall("testcase")
assert {(c.get("classname"), c.get("name")) for c in cases} == {("tests.test_settings", t) for t in careless}, cases
assert all(c.get("file") == "proj/tests/test_settings.py" and c.get("time") == "0" for c in cases)
# the case's line is the test's own (where the records say it), never the app's
lines = {c.get("name"): c.get("line") for c in cases}
for test, (f, line) in notes.items():
    if f == "proj/tests/test_settings.py" and line:
        assert lines[test.split("::")[1]] == line, (test, lines)
assert float(suite.get("time")) > 0 and suite.get("timestamp"), suite.attrib
PY
}
