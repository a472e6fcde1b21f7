#!/usr/bin/env bats
# What run writes for CI: --report FILE, --junit FILE, --sarif FILE, --format github, and
# colour on a terminal. The files are written by the unfenced parent, never through a link a
# test planted; nothing outside tests/ but the files asked for changes. The records here carry
# no source line (their writes come from sh, with no plugin to ask; where.bats and demo.bats
# have the lines): the outputs fall back to the test's file.

load ../support/helpers

setup() {
    mkproject
    mkdir -p reports
    cat >tests/writes.sh <<'EOF2'
#!/bin/sh
# Two "tests": one writes outside tests/ twice, one stays inside.
PYTEST_CURRENT_TEST="tests/test_a.py::test_bad (call)" sh -c 'echo x > config.toml; echo y > config.toml'
PYTEST_CURRENT_TEST="tests/test_a.py::test_good (call)" sh -c 'echo ok > tests/fine.txt'
exit 0
EOF2
    chmod +x tests/writes.sh
    fingerprint >"$BATS_TEST_TMPDIR/before"
}

# assert_only_reports_changed: outside tests/, only reports/ differs from the start.
assert_only_reports_changed() {
    fingerprint | grep -vE '(^| )\./reports' >"$BATS_TEST_TMPDIR/after"
    grep -vE '(^| )\./reports' "$BATS_TEST_TMPDIR/before" | diff -u - "$BATS_TEST_TMPDIR/after"
}

@test "--report and --junit: the JSON report and a JUnit file with the test ids" {
    run "$TESTFENCE" run --report reports/fence.json --junit "$P/reports/fence.xml" -- tests/writes.sh
    expect_status 120
    assert_only_reports_changed
    /usr/bin/python3 - "$P" <<'PY'
import json, sys, xml.etree.ElementTree as ET
p = sys.argv[1]
rep = json.load(open(p + "/reports/fence.json"))
assert rep["schema"] == "testfence-report/1" and rep["blocked"] == 2 and rep["status"] == 120, rep
assert [t["test"] for t in rep["tests"]] == ["tests/test_a.py::test_bad"], rep["tests"]
ws = json.load(open(rep["workspace"] + "/report.json"))
assert ws == rep, "the two reports differ"
suite = ET.parse(p + "/reports/fence.xml").getroot().find("testsuite")
assert suite.get("tests") == "1" and suite.get("failures") == "1", suite.attrib
assert float(suite.get("time")) >= 0 and suite.get("timestamp").endswith("+00:00"), suite.attrib
case, = suite.findall("testcase")
# pytest's junitxml names, so the case merges with pytest's own; the test's file, no line known
assert case.get("classname") == "tests.test_a" and case.get("name") == "test_bad", case.attrib
assert case.get("file") == "tests/test_a.py" and case.get("line") is None, case.attrib
assert case.get("time") == "0", case.attrib
fail = case.find("failure")
assert fail.get("type") == "TEST_SANDBOX_VIOLATION"
assert p + "/config.toml" in fail.text and "x2" in fail.text, fail.text
PY
}

@test "--junit on a clean run: one passing testcase, exit 0" {
    run "$TESTFENCE" run --junit reports/fence.xml -- sh -c 'echo ok > tests/fine.txt'
    expect_status 0
    grep -q '<testcase classname="testfence" name="no writes outside the writable set" time="0"/>' reports/fence.xml
    grep -q 'failures="0"' reports/fence.xml
}

@test "a report path through a symlink inside the writable set is refused before the run" {
    ln -s "$P/reports" tests/out
    run "$TESTFENCE" run --allow-hazards --report tests/out/fence.json -- sh -c 'echo ran > tests/ran'
    expect_status 125
    expect_output_has "$P/tests/out is a symlink inside the writable set (a test could have planted it)"
    [ ! -e tests/ran ]
    [ -z "$(ls reports)" ]
}

@test "a link the command plants at the report's name is replaced, not followed" {
    mkdir tests/reports
    printf 'theirs\n' >"$BATS_TEST_TMPDIR/victim"
    run "$TESTFENCE" run --report tests/reports/fence.json -- \
        sh -c "ln -s '$BATS_TEST_TMPDIR/victim' tests/reports/fence.json"
    expect_status 0
    [ "$(cat "$BATS_TEST_TMPDIR/victim")" = theirs ]
    [ ! -L tests/reports/fence.json ]
    /usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' tests/reports/fence.json
}

@test "a report directory the command swaps for a symlink still gets the report" {
    mkdir tests/reports
    mkdir "$BATS_TEST_TMPDIR/elsewhere"
    run "$TESTFENCE" run --report tests/reports/fence.json -- \
        sh -c "mv tests/reports tests/moved && ln -s '$BATS_TEST_TMPDIR/elsewhere' tests/reports"
    expect_status 0
    [ -z "$(ls "$BATS_TEST_TMPDIR/elsewhere")" ]
    [ -f tests/moved/fence.json ] # the directory opened before the run, wherever it went
}

@test "bad report paths: a missing directory, a device, a directory; exit 125 before running" {
    run "$TESTFENCE" run --report nodir/fence.json -- sh -c 'echo ran > tests/ran'
    expect_status 125
    expect_output_has "nodir/fence.json: its directory $P/nodir does not exist; create it first"
    run "$TESTFENCE" run --junit /dev/stdout -- sh -c 'echo ran > tests/ran'
    expect_status 125
    expect_output_has "/dev/stdout exists and is not a regular file"
    run "$TESTFENCE" run --report reports/ -- sh -c 'echo ran > tests/ran'
    expect_status 125
    expect_output_has "does not name a file"
    run "$TESTFENCE" run --format xml -- true
    expect_status 125
    expect_output_has 'unknown format "xml" (choose text or github)'
    [ ! -e tests/ran ]
}

@test "--format github: one ::error annotation per distinct write, file relative to the checkout" {
    run env GITHUB_WORKSPACE="$BATS_TEST_TMPDIR" "$TESTFENCE" run --format github -- tests/writes.sh
    expect_status 120
    expect_output_has "::error file=proj/tests/test_a.py,title=testfence%3A blocked write::tests/test_a.py::test_bad: open64 $P/config.toml (EACCES), repeated. How to fix: "
    [ "$(grep -c '^::error ' <<<"$output")" -eq 1 ]
    run "$TESTFENCE" run -- tests/writes.sh
    [[ "$output" != *"::error"* ]]
}

@test "colour on a terminal, none with NO_COLOR, none into a pipe" {
    esc=$'\033['
    run script -qec "$TESTFENCE run -- tests/writes.sh" /dev/null
    expect_output_has "${esc}1;31mTEST_SANDBOX_VIOLATION:${esc}0m"
    expect_output_has "${esc}1;31mtestfence: 2 writes outside the writable set were blocked${esc}0m"
    run env NO_COLOR=1 script -qec "$TESTFENCE run -- tests/writes.sh" /dev/null
    [[ "$output" != *"$esc"* ]]
    expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_a.py::test_bad attempted to write to $P/config.toml"
    run "$TESTFENCE" run -- tests/writes.sh
    [[ "$output" != *"$esc"* ]]
}

@test "--sarif: valid SARIF 2.1.0, each write under the audit's code at the annotation's file" {
    run env GITHUB_WORKSPACE="$BATS_TEST_TMPDIR" "$TESTFENCE" run --format github \
        --sarif reports/fence.sarif -- tests/writes.sh
    expect_status 120
    assert_only_reports_changed
    expect_output_has "::error file=proj/tests/test_a.py,title=testfence%3A blocked write::"
    run /usr/bin/python3 "$TESTFENCE_SRC/tests/support/sarif_schema.py" reports/fence.sarif
    expect_status 0
    /usr/bin/python3 - "$P" "$BATS_TEST_TMPDIR" <<'PY'
import json, sys
p, ws = sys.argv[1], sys.argv[2]
run, = json.load(open(p + "/reports/fence.sarif"))["runs"]
assert run["tool"]["driver"]["name"] == "testfence", run["tool"]
# its own category, so the audit's upload is not replaced by it
assert run["automationDetails"]["id"].startswith("testfence-run/"), run["automationDetails"]
assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == "file://" + ws + "/", run["originalUriBaseIds"]
assert run["invocations"][0]["exitCode"] == 120, run["invocations"]
res, = run["results"]
assert res["ruleId"] == "TF101", res  # config.toml at the root
loc = res["locations"][0]["physicalLocation"]
# where the annotation is: the test's file (no source line in these records: line 1)
assert loc["artifactLocation"] == {"uri": "proj/tests/test_a.py", "uriBaseId": "%SRCROOT%"}, loc
assert loc["region"] == {"startLine": 1}, loc
assert res["properties"]["count"] == 2 and res["properties"]["resolved"] == p + "/config.toml", res
PY
}

@test "--sarif on a clean run: a valid log with no result, exit 0" {
    run "$TESTFENCE" run --sarif reports/fence.sarif -- sh -c 'echo ok > tests/fine.txt'
    expect_status 0
    run /usr/bin/python3 "$TESTFENCE_SRC/tests/support/sarif_schema.py" reports/fence.sarif
    expect_status 0
    /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]; assert r["results"] == [], r' reports/fence.sarif
}

@test "bad --sarif paths: a planted link, a Python source, a directory it cannot write; 125 before running, nothing written" {
    ln -s "$P/reports" tests/out
    run "$TESTFENCE" run --allow-hazards --sarif tests/out/fence.sarif -- sh -c 'echo ran > tests/ran'
    expect_status 125
    expect_output_has "testfence: tests/out/fence.sarif: $P/tests/out is a symlink inside the writable set"
    [ "${#lines[@]}" -eq 1 ]
    rm tests/out
    printf 'def test_a():\n    pass\n' >tests/test_a.py
    cp tests/test_a.py "$BATS_TEST_TMPDIR/test_a.py"
    run "$TESTFENCE" run --sarif tests/test_a.py -- sh -c 'echo ran > tests/ran'
    expect_status 125
    expect_output_has "testfence: tests/test_a.py: refusing to write a report over a Python source"
    [ ! -e tests/ran ]
    cmp tests/test_a.py "$BATS_TEST_TMPDIR/test_a.py" # the test is kept as it was
    # a directory this run cannot write in: outside an outer run's writable set (as root,
    # mode bits would not stop it). Under the ASan build the outer run's shim is preloaded
    # ahead of the inner binary's sanitizer runtime; tell ASan that order is expected here.
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
    run "$TESTFENCE" run -- "$TESTFENCE" run --sarif reports/fence.sarif -- sh -c 'echo ran > tests/ran'
    expect_status 125
    expect_output_has "testfence: reports/fence.sarif: cannot write in $P/reports: "
    [ ! -e tests/ran ]
    [ -z "$(ls -A reports)" ]
}
