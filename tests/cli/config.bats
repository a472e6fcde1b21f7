#!/usr/bin/env bats
# Configuration: discovery, every key, every error, init and clean.

load ../support/helpers

setup() { mkproject; }

# dry: the --dry-run plan for `true`.
dry() { run "$TESTFENCE" run --dry-run "$@" -- true; }

@test "discovery: defaults, then pyproject.toml, then testfence.toml, then --config" {
    dry
    expect_output_has "config:    built-in defaults"
    printf '[project]\nname = "x"\n' >pyproject.toml
    dry
    expect_output_has "config:    built-in defaults ($P/pyproject.toml has no [tool.testfence])"
    printf '[tool.testfence]\nretain = 5\n' >>pyproject.toml
    dry
    expect_output_has "config:    $P/pyproject.toml [tool.testfence]"
    expect_output_has "retain:    5 run workspaces"
    printf 'retain = 7\n' >testfence.toml
    dry
    expect_output_has "config:    $P/testfence.toml"
    expect_output_has "retain:    7 run workspaces"
    printf 'retain = 9\n' >tests/other.toml
    dry --config tests/other.toml
    expect_output_has "config:    tests/other.toml"
    expect_output_has "retain:    9 run workspaces"
    run "$TESTFENCE" doctor
    expect_output_has "config:    $P/testfence.toml"
}

@test "no environment variable selects or changes the config" {
    printf 'retain = 7\n' >testfence.toml
    printf 'retain = 1\nwritable = ["data"]\n' >evil.toml
    TESTFENCE_CONFIG=evil.toml TESTFENCE_CONFIG_FILE=evil.toml TESTFENCE_RETAIN=1 \
        TESTFENCE_WRITABLE=data TESTFENCE_ROOT=/ TF_CONFIG=evil.toml XDG_CONFIG_HOME="$P" dry
    expect_status 0
    expect_output_has "config:    $P/testfence.toml"
    expect_output_has "retain:    7 run workspaces"
    [[ "$output" != *"$P/data"* ]]
}

@test "writable and artifacts move the fence; retain prunes" {
    mkdir -p out/art
    printf 'writable = ["out"]\nartifacts = "out/art"\nretain = 1\n' >testfence.toml
    run "$TESTFENCE" run -- sh -c 'echo a > out/a; echo b > tests/b'
    [ "$status" -ne 0 ]
    [ "$(cat out/a)" = a ]
    [ ! -e tests/b ]
    run "$TESTFENCE" run -- sh -c 'test "${TESTFENCE_WORKSPACE#$PWD/out/art/}" != "$TESTFENCE_WORKSPACE"'
    expect_status 0
    sleep 1.1
    "$TESTFENCE" run -- true
    [ "$(ls -d out/art/_isolation_workspace_* | wc -l)" -eq 1 ]
}

@test "workspace files are fresh placeholders and [env] expands placeholders" {
    cat >testfence.toml <<'TOML'
[workspace.files]
"credentials.toml" = "[providers]\nkey = \"placeholder\"\n"
"empty.toml" = ""
[env]
APP_CREDENTIALS = "{workspace}/credentials.toml"
APP_ALL = "{root}|{artifacts}|{run_id}|{tmp}|{{literal}}"
TOML
    run "$TESTFENCE" run -- sh -c 'cat "$APP_CREDENTIALS"; echo "all=$APP_ALL"; wc -c < "$TESTFENCE_WORKSPACE/empty.toml"; echo "id=$TESTFENCE_RUN_ID"'
    expect_status 0
    expect_output_has 'key = "placeholder"'
    id=$(sed -n 's/^id=//p' <<<"$output")
    expect_output_has "all=$P|$P/tests/artifacts|$id|$(runtmp_user)/$id|{literal}"
    [ "$(sed -n '$p' <<<"$output" | head -1)" ] # printed something
    expect_output_has $'\n0\n'
}

@test "[pytest] cache_dir can be turned off; basetemp is accepted and never passed" {
    printf '[pytest]\nbasetemp = true\n' >testfence.toml
    dry
    [[ "$output" != *--basetemp* ]]
    expect_output_has "cache_dir="
    printf '[pytest]\nbasetemp = false\ncache_dir = false\n' >testfence.toml
    dry
    [[ "$output" != *PYTEST_ADDOPTS* ]]
}

@test "[audit] and [report] keys are accepted and validated" {
    printf '[audit]\ninclude = ["tests"]\nexclude = ["tests/vendored"]\nprotected = ["x.toml"]\n[report]\ntest_env = "MY_TEST"\n' >testfence.toml
    dry
    expect_status 0
    printf '[report]\ntest_env = "not a name"\n' >testfence.toml
    dry
    expect_status 125
    expect_output_has 'testfence.toml:2:12: [report] test_env "not a name" is not a valid environment variable name'
}

# bad CONTENT MESSAGE: a config that must be refused with exactly MESSAGE, and
# that never starts the command nor creates anything.
bad() {
    printf '%b' "$1" >pyproject.toml
    run "$TESTFENCE" run -- sh -c 'echo ran > tests/ran'
    expect_status 125
    expect_output_has "testfence: $P/pyproject.toml:$2"
    [ ! -e tests/ran ]
    [ ! -e tests/artifacts ]
}

@test "every config error names file, line, column and key; nothing runs" {
    bad '[tool.testfence]\nwriteable = ["tests"]\n' '2:1: unknown key "writeable" in [tool.testfence] (did you mean "writable"?)'
    bad '[tool.testfence]\nwritable = "tests"\n' '2:12: "writable" must be an array, not a string'
    bad '[tool.testfence]\nwritable = ["tests", 3]\n' '2:22: "writable" must be an array of strings: item 2 is an integer'
    bad '[tool.testfence]\nwritable = []\n' '2:12: tool.testfence.writable must name at least one directory'
    bad '[tool.testfence]\nwritable = ["/etc"]\n' '2:13: tool.testfence.writable entry "/etc" must be relative to the project root'
    bad '[tool.testfence]\nartifacts = "../x"\n' '2:13: tool.testfence.artifacts "../x" must not climb out of the project root with ".."'
    bad '[tool.testfence]\nretain = 0\n' '2:10: tool.testfence.retain must be from 1 to 10000, not 0'
    bad '[tool.testfence]\nretain = "3"\n' '2:10: "retain" must be an integer, not a string'
    bad '[tool.testfence.pytest]\nbasetmp = true\n' '2:1: unknown key "basetmp" in [tool.testfence.pytest] (did you mean "basetemp"?)'
    bad '[tool.testfence.pytest]\nbasetemp = "yes"\n' '2:12: "basetemp" must be a boolean, not a string'
    bad '[tool.testfence.env]\nX = "{workspac}/x"\n' '2:5: [tool.testfence.env] X: unknown placeholder "{workspac}" (known: {root} {workspace} {artifacts} {run_id} {tmp})'
    bad '[tool.testfence.env]\nX = 1\n' '2:5: [tool.testfence.env] "X" must be a string, not integer'
    bad '[tool.testfence.env]\nLD_PRELOAD = "x"\n' '2:1: [tool.testfence.env] key "LD_PRELOAD" is set by testfence itself'
    bad '[tool.testfence.workspace.files]\n"a/b" = ""\n' '2:1: [tool.testfence.workspace.files] key "a/b" must be a plain file name, without '"'"'/'"'"''
    bad '[tool.testfence.audit]\nprotect = []\n' '2:1: unknown key "protect" in [tool.testfence.audit] (did you mean "protected"?)'
    bad '[tool.testfence]\nretain = 3\nretain = 4\n' '3:1: duplicate key "retain" (first defined at 2:1)'
    bad '[tool.testfence\n' '1:16:'
    # Found only when the plan is made, and still placed.
    bad '[tool.testfence]\nwritable = ["tests", "nope"]\n' '2:22: writable path '"$P"'/nope cannot be used (it must exist)'
    mkdir -p other
    bad '[tool.testfence]\nartifacts = "other"\n' '2:13: the artifacts dir '"$P"'/other ("other") is outside the writable set'
    # Files testfence writes in the workspace itself: refused before anything exists.
    local f
    for f in violations.jsonl report.json testfence-shim.conf .testfence-workspace xdg; do
        bad '[tool.testfence.workspace.files]\n"'"$f"'" = ""\n' '2:1: [tool.testfence.workspace.files] key "'"$f"'" is a file testfence writes in the workspace itself'
    done
}

@test "a writable entry that leaves the root through a symlink is refused" {
    mkdir "$BATS_TEST_TMPDIR/away"
    ln -s "$BATS_TEST_TMPDIR/away" out
    printf 'writable = ["tests", "out"]\n' >testfence.toml
    run "$TESTFENCE" run -- true
    expect_status 125
    expect_output_has "writable entry \"out\" resolves to $BATS_TEST_TMPDIR/away, outside the project root"
}

@test "artifacts outside the writable set is refused" {
    mkdir -p other
    printf 'artifacts = "other"\n' >testfence.toml
    run "$TESTFENCE" run -- true
    expect_status 125
    expect_output_has "the artifacts dir $P/other (\"other\") is outside the writable set"
    [ -z "$(ls -A other)" ]
}

@test "init appends [tool.testfence] to pyproject.toml, keeping every byte" {
    printf '[project]\nname = "x"  # no newline at the end' >pyproject.toml
    cp pyproject.toml "$BATS_TEST_TMPDIR/orig"
    chmod 640 pyproject.toml
    run "$TESTFENCE" init
    expect_status 0
    expect_output_has "added [tool.testfence] to $P/pyproject.toml"
    cmp -n "$(stat -c %s "$BATS_TEST_TMPDIR/orig")" pyproject.toml "$BATS_TEST_TMPDIR/orig"
    [ "$(stat -c %a pyproject.toml)" = 640 ]
    dry
    expect_status 0
    expect_output_has "config:    $P/pyproject.toml [tool.testfence]"
    cp pyproject.toml "$BATS_TEST_TMPDIR/after-init"
    run "$TESTFENCE" init
    expect_status 125
    expect_output_has "already has a [tool.testfence] table"
    cmp pyproject.toml "$BATS_TEST_TMPDIR/after-init"
    [ -z "$(ls -A . | grep testfence-tmp)" ]
}

@test "init refuses a pyproject.toml it would break, and changes nothing" {
    printf 'tool = { black = { line-length = 88 } }\n' >pyproject.toml
    cp pyproject.toml "$BATS_TEST_TMPDIR/orig"
    run "$TESTFENCE" init
    expect_status 125
    expect_output_has "cannot append [tool.testfence] to $P/pyproject.toml without breaking it"
    cmp pyproject.toml "$BATS_TEST_TMPDIR/orig"
}

@test "init creates testfence.toml without a pyproject.toml; --dry-run writes nothing" {
    run "$TESTFENCE" init --dry-run
    expect_status 0
    expect_output_has "would create $P/testfence.toml"
    [ ! -e testfence.toml ]
    run "$TESTFENCE" init
    expect_status 0
    [ -f testfence.toml ]
    dry
    expect_output_has "config:    $P/testfence.toml"
    expect_output_has "protect:   none"
    # protect is proposed, commented out; taken as it is, it is a valid setting
    grep -qx '# protect = "tracked"' testfence.toml
    sed 's/^# protect = /protect = /' testfence.toml >"$BATS_TEST_TMPDIR/protect.toml"
    dry --config "$BATS_TEST_TMPDIR/protect.toml"
    expect_status 0
    expect_output_has "protect:   tracked (what git tracks under the writable set"
    dry --config "$BATS_TEST_TMPDIR/protect.toml" --update-snapshots
    expect_output_has 'protect:   none (--update-snapshots: the config'"'"'s "tracked" is off for this run)'
    run "$TESTFENCE" init
    expect_status 125
    expect_output_has "testfence.toml already exists"
}

@test "clean keeps the newest, or none with --all, and never follows a symlink" {
    for _ in 1 2 3; do "$TESTFENCE" run --retain 10 -- true; sleep 1.1; done
    mkdir "$BATS_TEST_TMPDIR/victim" && echo keep >"$BATS_TEST_TMPDIR/victim/precious"
    ln -s "$BATS_TEST_TMPDIR/victim" tests/artifacts/_isolation_workspace_20200101T000000Z-0000001
    # What earlier versions left beside each run: per-run temp dirs in the artifacts dir,
    # and one whose workspace is gone (no marker vouches for it: left alone).
    mkdir -p tests/artifacts/_pytest_tmp tests/artifacts/tmp
    ids=$(cd tests/artifacts && ls -d _isolation_workspace_2026* | sed 's/_isolation_workspace_//')
    for id in $ids 20210101T000000Z-0000001; do
        mkdir tests/artifacts/_pytest_tmp/$id tests/artifacts/tmp/$id
    done
    ln -s "$BATS_TEST_TMPDIR/victim" tests/artifacts/_pytest_tmp/20200101T000000Z-0000001
    mkdir tests/artifacts/mine
    run "$TESTFENCE" clean --retain 1
    expect_status 0
    expect_output_has "removed 2 old runs"
    newest=$(echo "$ids" | tail -n 1)
    [ "$(ls tests/artifacts/tmp)" = "$(printf '%s\n' 20210101T000000Z-0000001 "$newest")" ]
    [ "$(ls tests/artifacts/_pytest_tmp | grep -v 20200101)" = "$(ls tests/artifacts/tmp)" ]
    [ "$(ls -d tests/artifacts/_isolation_workspace_2026* | wc -l)" -eq 1 ]
    run "$TESTFENCE" clean --all
    expect_status 0
    [ -z "$(ls -d tests/artifacts/_isolation_workspace_2026* 2>/dev/null)" ]
    [ "$(cat "$BATS_TEST_TMPDIR/victim/precious")" = keep ]
    [ -L tests/artifacts/_isolation_workspace_20200101T000000Z-0000001 ]
    [ -d tests/artifacts/mine ]
    run "$TESTFENCE" clean --all --retain 2
    expect_status 125
}
