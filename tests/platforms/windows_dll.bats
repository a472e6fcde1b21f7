#!/usr/bin/env bats
# libtestfence.dll (make windows) under wine, driven as the plugin's python backend drives it
# through ctypes (python/_testfence/startup.py, _start_python) by build-windows/dll_api.exe
# (tests/platforms/dll_api.c): tf_load, tf_check, tf_prepare, tf_policy_entry, tf_env,
# tf_record, tf_violations_load, tf_summary, tf_status, tf_end_tmp on a throwaway project.
# No Windows Python here: the plugin itself is not run on Windows (docs/platforms.md).

load wine

DLL_API="$TF_WINDOWS_BUILD/dll_api.exe"

setup_file() {
    wine_setup_file
    if [ -z "$WIN_SKIP" ] && { [ ! -f "$DLL_API" ] || [ ! -f "$TF_WINDOWS_BUILD/libtestfence.dll" ]; }; then
        WIN_SKIP="no $DLL_API or libtestfence.dll: run 'make windows' first"
        export WIN_SKIP
    fi
}
teardown_file() { wine_teardown_file; }

setup() {
    wine_skip_if_missing
    P="$BATS_TEST_TMPDIR/proj"
    mkdir -p "$P/.git" "$P/tests"
    printf '[tool.testfence.env]\nSLOP_CREDENTIALS = "{workspace}/credentials.toml"\n' >"$P/pyproject.toml"
    cd "$P"
}

# The value of NAME= in the program's output.
field() {
    printf '%s\n' "$output" | sed -n "s/^$1=//p" | head -n 1
}

@test "dll: the python backend's calls plan, prepare, record and report a run" {
    run wine_run "$DLL_API"
    printf '%s\n' "$output"
    [ "$status" -eq 0 ]
    [ "$(field failures)" = 0 ]
    # The plan: this project, its config, tests/ writable, the run's temp dir under %TEMP%.
    root=$(field root)
    [ "$root" = "Z:$P" ]
    [ "$(field config)" = "Z:$P/pyproject.toml [tool.testfence]" ]
    printf '%s\n' "$output" | grep -qx "entry=1 Z:$P/tests"
    tmp=$(field tmp)
    case "$tmp" in C:/users/*/Temp/testfence-*/2*) ;; *) false ;; esac
    printf '%s\n' "$output" | grep -qx "entry=1 $tmp"
    # The workspace under tests/artifacts, the redirects into it.
    ws=$(field workspace)
    case "$ws" in "Z:$P/tests/artifacts/_isolation_workspace_"2*) ;; *) false ;; esac
    [ -d "${ws#Z:}" ]
    [ -f "${ws#Z:}/.testfence-workspace" ]
    printf '%s\n' "$output" | grep -qx "env=SLOP_CREDENTIALS=$ws/credentials.toml"
    printf '%s\n' "$output" | grep -qx "env=TMPDIR=$tmp"
    printf '%s\n' "$output" | grep -qx "env=TESTFENCE_WORKSPACE=$ws"
    # The start-up verdicts, asked with Windows spellings (backslashes, "..") as Python has
    # them: a report under tests/ is writable, one beside it is not; of the imported modules,
    # tests\conftest.py lies in the writable set, pyproject.toml and a frozen one do not.
    [ "$(field check_in)" = "1 Z:$P/tests/report.xml" ]
    [ "$(field check_out)" = "0 Z:$P/report.xml" ]
    [ "$(field files_inside)" = 100 ]
    # The record, read back, with its violation line; the run's status says writes were blocked.
    [ "$(field violations)" = 1 ]
    [ "$(field v_test)" = "tests/test_clobber.py::test_writes_config" ]
    [ "$(field v_resolved)" = "Z:$P/config.toml" ]
    [ "$(field v_line)" = "TEST_SANDBOX_VIOLATION: tests/test_clobber.py::test_writes_config attempted to write to Z:$P/config.toml which is outside Z:$P/tests/. How to fix: write under tmp_path or the run workspace (\$TESTFENCE_WORKSPACE)." ]
    [ "$(field status)" = 120 ]
    # The summary names the test and the path; report.json in the workspace says the same.
    printf '%s\n' "$output" | grep -q "tests/test_clobber.py::test_writes_config: 1 blocked write"
    printf '%s\n' "$output" | grep -Eq "^ +open +Z:$P/config.toml \(EACCES"
    report="${ws#Z:}/report.json"
    [ -f "$report" ]
    python3 - "$report" "Z:$P/config.toml" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["backend"] == "python" and r["status"] == 120 and r["blocked"] == 1, r
w = r["tests"][0]["writes"][0]
assert r["tests"][0]["test"] == "tests/test_clobber.py::test_writes_config", r
assert w["resolved"] == sys.argv[2] and w["path"] == "../config.toml" and w["error"] == "EACCES", w
PY
    # The run's temp dir: emptied at the end (a test's file in it is gone).
    [ "$(field tmp_after)" = emptied ]
    # Nothing outside tests/ was made in the project.
    [ "$(cd "$P" && find . -path ./tests -prune -o -print | sort | tr '\n' ' ')" = ". ./.git ./pyproject.toml " ]
}

@test "dll: the kernel backend and tf_fence refuse, in the words the plugin falls back on" {
    run wine_run "$DLL_API"
    [ "$status" -eq 0 ]
    [[ "$(field kernel_check)" == "cannot enforce the fence: Windows has no kernel fence"* ]]
    [[ "$(field fence)" == "tf_fence: Windows has no kernel fence"* ]]
    [ "$(field landlock_abi)" = 0 ]
}

@test "dll: an artifacts dir linked out of the project is refused, nothing made there" {
    # The artifacts dir replaced by a link out of the project: tf_load refuses (it resolves
    # outside the writable set), and
    # nothing is made where it points.
    mkdir -p "$BATS_TEST_TMPDIR/elsewhere"
    ln -s "$BATS_TEST_TMPDIR/elsewhere" "$P/tests/artifacts"
    run wine_run "$DLL_API"
    printf '%s\n' "$output"
    [ "$status" -ne 0 ]
    [ -z "$(ls -A "$BATS_TEST_TMPDIR/elsewhere")" ]
}
