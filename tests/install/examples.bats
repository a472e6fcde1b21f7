#!/usr/bin/env bats
# The examples people copy, run here: every step of the GitHub Actions workflow and
# every job script of the GitLab CI file but their install step (testfence comes from
# the wheel's venv instead), and the pre-commit hook through Debian's pre-commit
# (try-repo: a local, system-language hook; nothing is fetched).

load install

setup_file() {
    export VENV="$TF_INSTALL_WORK/venv" # wheel.bats installed the wheel there
    [ -x "$VENV/bin/testfence" ] || {
        echo "examples.bats needs wheel.bats's venv (run scripts/check-install.sh)" >&2
        return 1
    }
}

setup() {
    # python3 and pytest as on a runner: Debian's, with no plugin autoloaded by chance.
    export PATH="$VENV/bin:$PATH" PYTEST_DISABLE_PLUGIN_AUTOLOAD=1
    unset TESTFENCE_LIBRARY PYTHONPATH TESTFENCE_WORKSPACE TESTFENCE_RUN_ID TESTFENCE_PLUGIN PYTEST_ADDOPTS
}

# steps FILE KIND: the shell of every step (github) or job script (gitlab), one
# NUL-terminated script each, leaving out the install step.
steps() {
    /usr/bin/python3 - "$1" "$2" <<'PY'
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
out = []
if sys.argv[2] == "github":
    for job in doc["jobs"].values():
        out += [s["run"] for s in job["steps"] if "run" in s and s.get("id") != "install-testfence"]
else:
    for name, job in doc.items():
        if isinstance(job, dict) and "script" in job and not name.startswith("."):
            out.append("\n".join(job["script"]))
sys.stdout.write("".join(x + "\0" for x in out))
PY
}

# run_steps FILE KIND DIR: each script with bash -e in DIR; prints "step N: status".
run_steps() {
    local n=0 script
    while IFS= read -r -d '' script; do
        n=$((n + 1))
        (cd "$3" && bash -ec "$script") >"$BATS_TEST_TMPDIR/step$n.log" 2>&1
        echo "step $n: $?"
    done < <(steps "$1" "$2")
}

@test "GitHub Actions: a clean project passes every step; the reports and the SARIF parse" {
    cleanproject "$BATS_TEST_TMPDIR/p"
    run run_steps "$TESTFENCE_SRC/examples/ci/github-actions.yml" github "$BATS_TEST_TMPDIR/p"
    [ "$output" = $'step 1: 0\nstep 2: 0' ] || { echo "$output"; cat "$BATS_TEST_TMPDIR"/step*.log; false; }
    cd "$BATS_TEST_TMPDIR/p"
    /usr/bin/python3 -c 'import json, sys, xml.etree.ElementTree as ET
assert json.load(open("testfence-report.json"))["blocked"] == 0
assert json.load(open("testfence-audit.sarif"))["version"] == "2.1.0"
assert json.load(open("testfence-run.sarif"))["runs"][0]["results"] == []
assert ET.parse("testfence-junit.xml").getroot().get("failures") == "0"'
}

@test "GitHub Actions: the careless project fails the test step with annotations, and the audit" {
    clobberproject "$BATS_TEST_TMPDIR/c"
    run run_steps "$TESTFENCE_SRC/examples/ci/github-actions.yml" github "$BATS_TEST_TMPDIR/c"
    [ "$output" = $'step 1: 1\nstep 2: 1' ] || { echo "$output"; cat "$BATS_TEST_TMPDIR"/step*.log; false; }
    grep -q '^::error file=tests/test_settings.py,title=testfence%3A blocked write::' "$BATS_TEST_TMPDIR/step1.log"
    grep -q 'TF101' "$BATS_TEST_TMPDIR/c/testfence-audit.sarif"
    # the run's alerts at the tests' file, under the audit's code for a root file
    /usr/bin/python3 -c 'import json, sys
res = json.load(open(sys.argv[1]))["runs"][0]["results"]
assert len(res) == 4 and {r["ruleId"] for r in res} == {"TF101"}, res
assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in res} == {"tests/test_settings.py"}' \
        "$BATS_TEST_TMPDIR/c/testfence-run.sarif"
}

@test "GitLab CI: the tests and audit jobs' scripts; JUnit files where the job says" {
    clobberproject "$BATS_TEST_TMPDIR/c"
    run run_steps "$TESTFENCE_SRC/examples/ci/gitlab-ci.yml" gitlab "$BATS_TEST_TMPDIR/c"
    [ "$output" = $'step 1: 1\nstep 2: 1' ] || { echo "$output"; cat "$BATS_TEST_TMPDIR"/step*.log; false; }
    cd "$BATS_TEST_TMPDIR/c"
    /usr/bin/python3 -c 'import json, xml.etree.ElementTree as ET
assert "TF101" in {i["check_name"] for i in json.load(open("gl-code-quality-report.json"))}
fence = ET.parse("testfence-junit.xml").getroot()
assert fence.get("failures") == "4", fence.attrib
names = {(c.get("classname"), c.get("name")) for c in fence.iter("testcase")}
assert ("tests.test_settings", "test_credentials_reset") in names, names
ET.parse("tests/artifacts/pytest-junit.xml")'
    cleanproject "$BATS_TEST_TMPDIR/p"
    run run_steps "$TESTFENCE_SRC/examples/ci/gitlab-ci.yml" gitlab "$BATS_TEST_TMPDIR/p"
    [ "$output" = $'step 1: 0\nstep 2: 0' ] || { echo "$output"; cat "$BATS_TEST_TMPDIR"/step*.log; false; }
    [ "$(cat "$BATS_TEST_TMPDIR/p/gl-code-quality-report.json")" = "[]" ]
}

@test "pre-commit try-repo: the audit hook fails on careless tests, passes on clean ones" {
    export PRE_COMMIT_HOME="$BATS_TEST_TMPDIR/pre-commit-home" GIT_CONFIG_GLOBAL=/dev/null
    for p in c p; do
        [ $p = c ] && clobberproject "$BATS_TEST_TMPDIR/$p" || cleanproject "$BATS_TEST_TMPDIR/$p"
        (cd "$BATS_TEST_TMPDIR/$p" && git init -q . && git add -A &&
            git -c user.name=t -c user.email=t@example.org commit -qm init)
    done
    # try-repo copies the hook repository's working tree: this checkout, as it is.
    cd "$BATS_TEST_TMPDIR/c"
    run pre-commit try-repo "$TESTFENCE_SRC" testfence-audit --all-files
    expect_status 1
    expect_output_has "testfence audit"
    expect_output_has "TF101"
    cd "$BATS_TEST_TMPDIR/p"
    run pre-commit try-repo "$TESTFENCE_SRC" testfence-audit --all-files
    expect_status 0
    expect_output_has "Passed"
}
