#!/usr/bin/env bats
# testfence.exe's configuration checking and commands under wine: every config error of
# tests/cli/config.bats that the config itself decides gives the Linux build's message and
# exit status (audit and doctor); init writes the same files; run, explain and clean refuse
# in one line with 125 (docs/platforms.md).

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

@test "a good config: doctor names the same root, config and writable dirs, and exits 1" {
    printf '[tool.testfence]\nwritable = ["tests", "out"]\n' >pyproject.toml
    mkdir out
    run win doctor
    [ "$status" -eq 1 ]
    [[ "$output" == *"root:      Z:$P"* ]]
    [[ "$output" == *"config:    Z:$P/pyproject.toml [tool.testfence]"* ]]
    [[ "$output" == *"  Z:$P/out"* ]]
    [[ "$output" == *"system:    Windows (testfence 0"* ]]
    [[ "$output" == *"verdict:   testfence run would refuse here: not available on Windows yet"* ]]
}

@test "no project root: the same message as Linux" {
    rm -rf "$P/.git"
    cd "$BATS_TEST_TMPDIR"
    mkdir bare && cd bare
    P=$PWD
    # Linux looks up to /, wine up to Z:/ (the same tree): no marker above the temp dir.
    same 'no project root' audit
}

@test "run refuses in one line with 125, never runs the command" {
    run win run -- cmd /c "echo ran > tests\\ran"
    [ "$status" -eq 125 ]
    [ "$output" = "testfence: run: not available on Windows yet: use the pytest plugin; see docs/platforms.md" ]
    [ ! -e tests/ran ]
    run win run
    [ "$status" -eq 125 ]
    [ "${#lines[@]}" -eq 1 ]
}

@test "explain and clean refuse in one line with 125; usage errors as on Linux" {
    run win explain tests/x
    [ "$status" -eq 125 ]
    [ "$output" = "testfence: explain: not available on Windows yet: use the pytest plugin; see docs/platforms.md" ]
    run win clean
    [ "$status" -eq 125 ]
    [ "$output" = "testfence: clean: not available on Windows yet: use the pytest plugin; see docs/platforms.md" ]
    same . clean --bogus
    same . explain
    same . audit --bogus
    same . frobnicate
}

@test "every command's --help exits 0; run's says it is not available" {
    local c
    for c in run doctor explain init clean audit; do
        run win "$c" --help
        [ "$status" -eq 0 ]
        [[ "$output" == usage:\ testfence\ "$c"* ]]
    done
    run win run --help
    [[ "$output" == *"Not available on Windows or macOS yet"* ]]
    same . --help
    same . audit --help
    same . init --help
}

@test "init writes the same testfence.toml, and appends the same table to pyproject.toml" {
    win init
    mv testfence.toml win.toml
    "$TESTFENCE" init
    cmp win.toml testfence.toml
    rm testfence.toml
    printf '[project]\nname = "x"\n' >pyproject.toml
    win init
    mv pyproject.toml win.toml
    printf '[project]\nname = "x"\n' >pyproject.toml
    "$TESTFENCE" init
    cmp win.toml pyproject.toml
    same . init # already there: the same refusal
}
