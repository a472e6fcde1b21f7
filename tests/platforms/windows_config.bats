#!/usr/bin/env bats
# testfence.exe's configuration checking and commands under wine: every config error of
# tests/cli/config.bats that the config itself decides gives the Linux build's message and
# exit status (audit and doctor); init writes the same files; clean removes old runs and
# explain answers as the Linux build does; run with a config error says it, 125 (the run
# itself: windows_run.bats; docs/platforms.md).

load wine

setup_file() { wine_setup_file; }
teardown_file() { wine_teardown_file; }

setup() {
    wine_skip_if_missing
    P="$BATS_TEST_TMPDIR/proj"
    mkdir -p "$P/.git" "$P/tests"
    cd "$P"
}

# The config errors of tests/cli/config.bats ("every config error names file, line, column
# and key") decided by the config alone, one per line: pyproject.toml's content (printf %b).
# Left out: the two its plan finds (a writable dir that does not exist, the artifacts dir
# outside the writable set), which testfence.exe's doctor does not plan (docs/platforms.md).
CASES='[tool.testfence]\nwriteable = ["tests"]\n
[tool.testfence]\nwritable = "tests"\n
[tool.testfence]\nwritable = ["tests", 3]\n
[tool.testfence]\nwritable = []\n
[tool.testfence]\nwritable = ["/etc"]\n
[tool.testfence]\nartifacts = "../x"\n
[tool.testfence]\nretain = 0\n
[tool.testfence]\nretain = "3"\n
[tool.testfence.pytest]\nbasetmp = true\n
[tool.testfence.pytest]\nbasetemp = "yes"\n
[tool.testfence.env]\nX = "{workspac}/x"\n
[tool.testfence.env]\nX = 1\n
[tool.testfence.env]\nLD_PRELOAD = "x"\n
[tool.testfence.workspace.files]\n"a/b" = ""\n
[tool.testfence.audit]\nprotect = []\n
[tool.testfence]\nretain = 3\nretain = 4\n
[tool.testfence\n
[tool.testfence.report]\ntest_env = "not a name"\n
[tool.testfence.workspace.files]\n"violations.jsonl" = ""\n
[tool.testfence.workspace.files]\n"report.json" = ""\n
[tool.testfence.workspace.files]\n"testfence-shim.conf" = ""\n
[tool.testfence.workspace.files]\n".testfence-workspace" = ""\n
[tool.testfence.workspace.files]\n"xdg" = ""\n'

# same CMD...: the Linux build and testfence.exe give the same stdout+stderr (the root
# spelled Z:<root> by the .exe) and the same status; LINES filters both (a grep pattern).
same() {
    local lines=$1 a b sa sb
    shift
    a=$("$TESTFENCE" "$@" 2>&1) && sa=0 || sa=$?
    b=$(win "$@" 2>&1) && sb=0 || sb=$?
    a=$(grep -E -- "$lines" <<<"$a" | sed "s|$P|<ROOT>|g")
    b=$(grep -E -- "$lines" <<<"$b" | sed "s|Z:$P|<ROOT>|g")
    if [ "$a" != "$b" ] || [ "$sa" != "$sb" ]; then
        echo "linux (status $sa): $a"
        echo "wine  (status $sb): $b"
        return 1
    fi
}

@test "every config error: the same message and exit status as Linux (audit and doctor)" {
    local n=0 c
    while IFS= read -r c; do
        [ -n "$c" ] || continue
        printf '%b' "$c" >pyproject.toml
        same . audit
        same '^project:' doctor
        grep -q 'pyproject.toml:[0-9]' < <("$TESTFENCE" audit 2>&1) # an error, and named
        n=$((n + 1))
    done <<<"$CASES"
    [ "$n" -eq 23 ]
    echo "# $n/$n config error cases identical under wine" >&3
}

@test "a good config: doctor names the same root, config and writable dirs, and exits 0" {
    printf '[tool.testfence]\nwritable = ["tests", "out"]\n' >pyproject.toml
    mkdir out
    run win doctor
    [ "$status" -eq 0 ]
    [[ "$output" == *"root:      Z:$P"* ]]
    [[ "$output" == *"config:    Z:$P/pyproject.toml [tool.testfence]"* ]]
    [[ "$output" == *"  Z:$P/out"* ]]
    [[ "$output" == *"system:    Windows (testfence 0"* ]]
    [[ "$output" == *"fence:     a write-restricted token"* ]]
    [[ "$output" == *"verdict:   testfence run would work here"* ]]
}

@test "no project root: the same message as Linux" {
    rm -rf "$P/.git"
    cd "$BATS_TEST_TMPDIR"
    mkdir bare && cd bare
    P=$PWD
    # Linux looks up to /, wine up to Z:/ (the same tree): no marker above the temp dir.
    same 'no project root' audit
}

@test "run with a config error: the config's message, 125, never runs the command" {
    printf '[tool.testfence]\nwritable = 3\n' >pyproject.toml
    run win run -- cmd /c "echo ran > tests\\ran"
    [ "$status" -eq 125 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == "testfence: "*"pyproject.toml:2:"* ]]
    [ ! -e tests/ran ]
    [ ! -e tests/artifacts ]
}

# mkrun ID [FINISHED]: an old run's workspace as the plugin (core/workspace.c) leaves it:
# tests/artifacts/_isolation_workspace_ID with its marker, the xdg placeholders and the log,
# with its tmp/ID and _pytest_tmp/ID; report.json when FINISHED.
mkrun() {
    local a=tests/artifacts ws=tests/artifacts/_isolation_workspace_$1
    mkdir -p "$ws/xdg/cache" "$ws/xdg/data" "$ws/xdg/state" "$a/tmp/$1/sub" "$a/_pytest_tmp/$1"
    printf 'testfence run workspace %s\n' "$1" >"$ws/.testfence-workspace"
    : >"$ws/violations.jsonl"
    echo data >"$a/tmp/$1/sub/data"
    echo data >"$a/_pytest_tmp/$1/data"
    [ -z "${2:-}" ] || echo '{}' >"$ws/report.json"
}

# mkruns: two old runs (the older finished, the newer killed), a directory that is not a
# run (no marker) and the caches clean keeps.
mkruns() {
    rm -rf tests/artifacts
    mkrun 20200101T000000Z-0000001 finished
    mkrun 20200102T000000Z-0000002
    mkdir -p tests/artifacts/_isolation_workspace_20200103T000000Z-0000003 \
        tests/artifacts/.pytest_cache
}

# tree: what tests/artifacts holds, sorted.
tree() {
    (cd tests/artifacts && find . | LC_ALL=C sort)
}

@test "clean: two old runs removed as the Linux build removes them, the same output and status" {
    local args la lb sa sb ta
    for args in "--all" "--retain 1" "" "--all --retain 1"; do
        # Each on the same two runs: its output and status, and what it left.
        mkruns
        # shellcheck disable=SC2086 # the options, split
        la=$("$TESTFENCE" clean $args 2>&1) && sa=0 || sa=$?
        ta=$(tree)
        mkruns
        # shellcheck disable=SC2086
        lb=$(win_once clean $args 2>&1) && sb=0 || sb=$?
        la=${la//$P/<ROOT>}
        lb=${lb//Z:$P/<ROOT>}
        if [ "$la" != "$lb" ] || [ "$sa" != "$sb" ] || [ "$ta" != "$(tree)" ]; then
            echo "clean $args: linux (status $sa): $la"$'\n'"left:"$'\n'"$ta"
            echo "wine (status $sb): $lb"$'\n'"left:"$'\n'"$(tree)"
            false
        fi
    done
    # --all: the runs and their temp dirs gone, marker and all; the rest stays.
    mkruns
    run win_once clean --all
    [ "$status" -eq 0 ]
    [[ "$output" == *"the earlier run 20200102T000000Z-0000002 did not finish"* ]]
    [[ "$output" == *"removed 2 old runs from Z:$P/tests/artifacts (kept the newest 0)"* ]]
    [ "$(tree | tr '\n' ' ')" = ". ./.pytest_cache ./_isolation_workspace_20200103T000000Z-0000003 ./_pytest_tmp ./tmp " ]
    # Nothing to clean, and usage errors, as on Linux.
    same . clean
    rm -rf tests/artifacts
    same . clean
    same . clean --bogus
    same . clean extra
}

@test "clean stays inside: an artifacts dir outside the writable set is refused as on Linux" {
    printf '[tool.testfence]\nartifacts = "out"\n' >pyproject.toml
    mkdir -p out/_isolation_workspace_20200101T000000Z-0000001
    printf 'testfence run workspace x\n' >out/_isolation_workspace_20200101T000000Z-0000001/.testfence-workspace
    same . clean --all
    [ -f out/_isolation_workspace_20200101T000000Z-0000001/.testfence-workspace ]
}

@test "explain: the Linux build's verdicts, for paths written with /, with \\ and with a drive" {
    mkdir -p out tests/sub
    printf '[tool.testfence]\nwritable = ["tests", "out"]\noutputs = ["coverage.xml"]\n' >pyproject.toml
    # The same paths: the same lines and status (the root spelled Z:<root> by the .exe).
    same . explain tests/x tests/sub/new/deep/y out/z coverage.xml config.toml .git/index.lock \
        tests/../pyproject.toml
    same . explain tests/x
    same . explain
    same . explain --bogus
    # Windows spellings: each verdict (what follows "PATH: ") is Linux's for the / spelling.
    local pairs=(
        'tests\x' tests/x
        'tests\sub\new\y' tests/sub/new/y
        'out\z' out/z
        "Z:${P//\//\\}\\tests\\abs" "$P/tests/abs"
        "Z:$P/config.toml" "$P/config.toml"
        "Z:${P//\//\\}\\..\\elsewhere" "$P/../elsewhere"
        "$P/tests/abs" "$P/tests/abs"
        "$P/pyproject.toml" "$P/pyproject.toml"
        'TESTS\Sub\x' tests/sub/x
    )
    local i a b sa sb
    for ((i = 0; i < ${#pairs[@]}; i += 2)); do
        a=$("$TESTFENCE" explain "${pairs[i + 1]}" 2>&1) && sa=0 || sa=$?
        b=$(win explain "${pairs[i]}" 2>&1) && sb=0 || sb=$?
        a=$(sed "s|$P|<ROOT>|g; s|${P%/*}|<UP>|g" <<<"${a#"${pairs[i + 1]}: "}")
        b=$(sed "s|Z:$P|<ROOT>|g; s|Z:${P%/*}|<UP>|g" <<<"${b#"${pairs[i]}: "}")
        if [ "$a" != "$b" ] || [ "$sa" != "$sb" ]; then
            echo "linux ${pairs[i + 1]} (status $sa): $a"
            echo "wine  ${pairs[i]} (status $sb): $b"
            false
        fi
    done
    # A drive's top (the Linux build's /): outside, and blocked.
    run win explain 'C:\nowhere\x' C:/x
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = 'C:\nowhere\x: blocked: C:/nowhere/x is outside the writable set of Z:'"$P" ]
    [ "${lines[1]}" = 'C:/x: blocked: C:/x is outside the writable set of Z:'"$P" ]
}

@test "every command's --help exits 0; run's names Windows' fence" {
    local c
    for c in run doctor explain init clean audit suggest; do
        run win "$c" --help
        [ "$status" -eq 0 ]
        [[ "$output" == usage:\ testfence\ "$c"* ]]
    done
    run win run --help
    [[ "$output" == *"in the operating system's own fence"* ]]
    [[ "$output" == *"Windows: a write-restricted token"* ]]
    same . --help
    same . audit --help
    same . init --help
}

@test "init writes the same testfence.toml, and appends the same table to pyproject.toml" {
    win_once init
    mv testfence.toml win.toml
    "$TESTFENCE" init
    cmp win.toml testfence.toml
    rm testfence.toml
    printf '[project]\nname = "x"\n' >pyproject.toml
    win_once init
    mv pyproject.toml win.toml
    printf '[project]\nname = "x"\n' >pyproject.toml
    "$TESTFENCE" init
    cmp win.toml pyproject.toml
    same . init # already there: the same refusal
}

# report_for ROOT: a report.json of a run in ROOT: junit.xml written at the root outside any
# test, config.toml by a test.
report_for() {
    printf '{"schema": "testfence-report/1", "run_id": "x", "root": "%s", "tests": [
  {"test": null, "writes": [{"op": "open", "resolved": "%s/junit.xml"}]},
  {"test": "tests/test_a.py::test_x", "writes": [{"op": "open", "resolved": "%s/config.toml",
   "src_file": "tests/test_a.py", "src_line": 3}]}]}\n' "$1" "$1" "$1"
}

@test "suggest: a report with the drive's paths gets the Linux build's advice, and --apply writes the same pyproject.toml" {
    report_for "Z:$P" >"$BATS_TEST_TMPDIR/win.json"
    report_for "$P" >"$BATS_TEST_TMPDIR/linux.json"
    printf '[project]\nname = "x"\n' >pyproject.toml
    local a b
    a=$("$TESTFENCE" suggest "$BATS_TEST_TMPDIR/linux.json" 2>&1 | sed "s|$P|<ROOT>|g; s|linux.json|R|")
    b=$(win suggest "$BATS_TEST_TMPDIR/win.json" 2>&1 | sed "s|Z:$P|<ROOT>|g; s|win.json|R|")
    [ "$a" = "$b" ] || { echo "linux: $a"; echo "wine: $b"; return 1; }
    run win_once suggest --apply "$BATS_TEST_TMPDIR/win.json"
    [ "$status" -eq 0 ]
    [[ "$output" == *"change the test, not the config: Z:$P/config.toml"* ]]
    [[ "$output" == *"at tests/test_a.py:3"* ]]
    mv pyproject.toml win.toml
    printf '[project]\nname = "x"\n' >pyproject.toml
    run "$TESTFENCE" suggest --apply "$BATS_TEST_TMPDIR/linux.json"
    [ "$status" -eq 0 ]
    cmp win.toml pyproject.toml
    grep -qx 'outputs = \["junit.xml"\]' pyproject.toml
    printf '{"tests": [}' >"$BATS_TEST_TMPDIR/bad.json"
    same . suggest "$BATS_TEST_TMPDIR/bad.json" # 125, FILE:LINE:COL
}
