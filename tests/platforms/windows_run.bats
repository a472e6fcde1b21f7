#!/usr/bin/env bats
# testfence.exe run (issue 30, docs/platforms.md): Windows' own fence, under wine. What wine
# implements is exercised (the token made, the ACL calls, the Job Object: kill on close, no
# breakaway, what is left running killed; the plan, workspace, temp dir and report around the
# command; a write recorded as the plugin records one, reported), and what wine does NOT
# enforce is measured and said by the last test: it keeps no restricting SID in a token,
# drops no privilege, keeps no ACE on its Unix files, and so lets the fenced command write
# anywhere. That the fence refuses writes is checked on windows-latest only
# (.github/workflows/platforms.yml).

load wine
bats_require_minimum_version 1.5.0

PROBE="$TF_WINDOWS_BUILD/winfence_probe.exe"

setup_file() {
    wine_setup_file
    if [ -z "$WIN_SKIP" ] && [ ! -f "$PROBE" ]; then
        WIN_SKIP="no $PROBE: run 'make windows' first"
        export WIN_SKIP
    fi
}
teardown_file() { wine_teardown_file; }

setup() {
    wine_skip_if_missing
    P="$BATS_TEST_TMPDIR/proj"
    mkdir -p "$P/.git" "$P/tests"
    cd "$P"
    # The probe as the command line names it: a Windows path (wine's Z: is /).
    WPROBE="Z:${PROBE//\//\\}"
}

field() {
    printf '%s\n' "$output" | sed -n "s/^$1=//p" | head -n 1
}

@test "run: doctor and --dry-run name the fence and its restricting SIDs, never Everyone or Users" {
    run win doctor
    [ "$status" -eq 0 ]
    [[ "$output" == *"fence:     a write-restricted token (restricting SIDs: S-1-9-1952869987-"* ]]
    [[ "$output" == *" S-1-5-12 RESTRICTED) and a Job Object (kill on close, no breakaway)"* ]]
    [[ "$output" == *"ONLY REFUSED"* ]]
    [[ "$output" == *"verdict:   testfence run would work here"* ]]
    # Everyone, Users, Authenticated Users, Interactive: a directory they may write elsewhere
    # would stay writable were one of them in the restricting list.
    local sids
    sids=$(printf '%s\n' "$output" | sed -n 's/^fence:.*restricting SIDs: \(.*\)) and a Job.*/\1/p')
    [ -n "$sids" ]
    for s in S-1-1-0 S-1-5-32-545 S-1-5-11 S-1-5-4; do
        [[ "$sids " != *"$s "* ]]
    done
    run win run --dry-run -- cmd /c "echo ran > tests\\ran"
    [ "$status" -eq 0 ]
    [[ "$output" == *"fence:     a write-restricted token"* ]]
    [[ "$output" == *"(dry run: nothing was created, no permission changed, nothing was run)"* ]]
    [ ! -e tests/ran ]
    [ ! -e tests/artifacts ]
}

@test "run: the command runs in a Job Object (kill on close, no breakaway); args and status pass through" {
    run win run -- "$WPROBE" job
    [ "$status" -eq 0 ]
    [ "$(field in_job)" = 1 ]
    [ "$(field breakaway_ok)" = 0 ]
    run win run -- "$WPROBE" breakaway
    [ "$(field breakaway)" = refused ]
    run win run -- "$WPROBE" args 'a b' '' 'say "hi"' 'back\' 'x\"y' 'tab	in' '\\srv\share'
    [ "$status" -eq 0 ]
    [ "$(printf '%s\n' "$output" | grep '^arg=' | tr '\n' '|')" = 'arg=[a b]|arg=[]|arg=[say "hi"]|arg=[back\]|arg=[x\"y]|arg=[tab	in]|arg=[\\srv\share]|' ]
    run win run -- "$WPROBE" exit 3
    [ "$status" -eq 3 ]
    run -127 win run -- no-such-command-xyz
    [[ "$output" == *"testfence: no-such-command-xyz: command not found"* ]]
}

@test "run: what the command leaves running is killed, said, and fails the run (120)" {
    run win run -- "$WPROBE" spawn-sleeper
    [ "$status" -eq 120 ]
    [[ "$output" == *"testfence: the command left 1 process running: killed"* ]]
    sleeper=$(field sleeper)
    [ -n "$sleeper" ]
    run wine_run "$PROBE" alive "$sleeper"
    [ "$(field alive)" = 0 ]
    run win run --allow-violations -- "$WPROBE" spawn-sleeper
    [ "$status" -eq 0 ]
}

@test "run: testfence.exe killed, the job kills the command's processes (kill on close)" {
    wine "$EXE" run -- "$WPROBE" spawn-and-sleep >out.txt 2>&1 3>&- & # bats' fd 3: wine_run.sh
    local pid=$! i
    for i in $(seq 1 100); do
        grep -q '^sleeper=' out.txt && break
        sleep 0.2
    done
    sleeper=$(sed -n 's/^sleeper=//p' out.txt)
    [ -n "$sleeper" ]
    run wine_run "$PROBE" alive "$sleeper"
    [ "$(field alive)" = 1 ]
    kill -KILL "$pid"
    wait "$pid" || true
    for i in $(seq 1 50); do
        run wine_run "$PROBE" alive "$sleeper"
        [ "$(field alive)" = 0 ] && break
        sleep 0.2
    done
    [ "$(field alive)" = 0 ]
    # What the killed run left: its workspace, unfinished (no report.json), which the next
    # run names and `testfence clean` removes; its ACEs, which the next run sweeps.
    ls -d tests/artifacts/_isolation_workspace_*
    [ ! -e tests/artifacts/_isolation_workspace_*/report.json ]
}

@test "run: the environment: TEMP and TMP the run's own temp dir, LOCALAPPDATA kept, the plugin's join" {
    run win run -- "$WPROBE" env TEMP TMP TMPDIR LOCALAPPDATA TESTFENCE_WORKSPACE TESTFENCE_PLUGIN TESTFENCE_PLUGIN_BACKEND
    [ "$status" -eq 0 ]
    tmp=$(field TEMP)
    case "$tmp" in C:/users/*/Temp/testfence-*/2*) ;; *) false ;; esac
    [ "$(field TMP)" = "$tmp" ]
    [ "$(field TMPDIR)" = "$tmp" ]
    # %LOCALAPPDATA% is where per-user tools live: kept, so they are found (and run); the
    # fence refuses their writes there (docs/platforms.md).
    run wine_run "$PROBE" env LOCALAPPDATA
    local outside
    outside=$(field LOCALAPPDATA)
    run win run -- "$WPROBE" env LOCALAPPDATA TESTFENCE_WORKSPACE TESTFENCE_PLUGIN TESTFENCE_PLUGIN_BACKEND
    [ "$(field LOCALAPPDATA)" = "$outside" ]
    ws=$(field TESTFENCE_WORKSPACE)
    case "$ws" in "Z:$P/tests/artifacts/_isolation_workspace_"2*) ;; *) false ;; esac
    [ "$(field TESTFENCE_PLUGIN)" = "$ws" ]
    [ "$(field TESTFENCE_PLUGIN_BACKEND)" = python ]
    # The temp dir is emptied after a run that passed; report.json names the fence.
    local host="$WINEPREFIX/drive_c/${tmp#C:/}"
    [ ! -e "$host" ] || [ -z "$(ls -A "$host")" ]
    grep -q '"backend": *"restricted-token"' "${ws#Z:}/report.json"
}

@test "run: a write the plugin inside refuses is reported: the test, the path, 120" {
    run win run -- "$WPROBE" record "Z:$P/config.toml"
    printf '%s\n' "$output"
    [ "$status" -eq 120 ]
    [ "$(field record)" = 0 ]
    [[ "$output" == *"tests/test_probe.py::test_writes"* ]]
    [[ "$output" == *"Z:$P/config.toml"* ]]
    [[ "$output" == *"only the writes a pytest with the testfence plugin refused itself are"* ]]
}

@test "run: Linux-only options are refused in one line, 125, nothing run" {
    for o in "--verify" "--backend preload" "--require namespace" "--report r.json" "--junit j.xml" "--keep-fd 3"; do
        run win run $o -- cmd /c "echo ran > tests\\ran"
        [ "$status" -eq 125 ]
        [ "${#lines[@]}" -eq 1 ]
        [[ "$output" == "testfence: run: ${o%% *} is not available on Windows (docs/platforms.md)" ]]
    done
    [ ! -e tests/ran ]
    run win run
    [ "$status" -eq 125 ]
    [ "${#lines[@]}" -eq 1 ]
}

# Measured, not assumed: wine 8 accepts every call the fence makes and enforces none of it.
# If a wine release starts enforcing one, this test fails: update it and docs/platforms.md.
@test "run under wine: what wine does NOT enforce (the token, the ACEs, hence the writes)" {
    # The token: CreateRestrictedToken succeeds, but wine keeps no restricting SID
    # (TokenRestrictedSids is not implemented) and drops no privilege (DISABLE_MAX_PRIVILEGE).
    run wine_run "$PROBE" mktoken
    [ "$(field mktoken)" = ok ]
    [ "$(field restricted)" = 0 ]
    [ -n "$(field restricting_error)" ]
    [ "$(field privileges)" -gt 1 ]
    # CreateProcessAsUserW ignores the token: the command runs with wine's own.
    run win run -- "$WPROBE" token
    [ "$(field restricted)" = 0 ]
    # The ACL calls succeed, and the ACE is gone when read back: wine keeps no DACL on its
    # Unix files (it makes one from the mode bits), so the run's grant is never seen inside.
    run wine_run "$PROBE" addace "Z:$P/tests" S-1-9-1952869987-1-2-3
    [ "$(field addace)" = 0 ]
    run wine_run "$PROBE" acl "Z:$P/tests"
    [[ "$output" != *S-1-9-* ]]
    run win run -- "$WPROBE" acl "Z:$P/tests"
    [[ "$output" != *S-1-9-* ]]
    [[ "$output" == *"ace=S-1-1-0"* ]]
    # Hence: a write outside the writable set goes through under wine (refused on Windows).
    run win run -- "$WPROBE" write "Z:$P/outside.txt"
    [ "$status" -eq 0 ]
    [ "$(field write)" = ok ]
    [ -f outside.txt ]
}
