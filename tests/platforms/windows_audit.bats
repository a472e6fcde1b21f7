#!/usr/bin/env bats
# testfence.exe audit under wine prints, for every golden case of tests/audit/cases, what the
# Linux build prints (the temp root, Z:/tmp/... to the .exe, is <ROOT> for both).

load wine

setup_file() { wine_setup_file; }
teardown_file() { wine_teardown_file; }
setup() { wine_skip_if_missing; }

@test "testfence.exe is a 64-bit Windows program and says its version" {
    run file -b "$EXE"
    [[ "$output" == PE32+\ executable* ]] || { echo "$output"; false; }
    run win --version
    [ "$status" -eq 0 ]
    [ "$output" = "$("$TESTFENCE" --version)" ]
}

@test "audit: every golden case prints the Linux build's output, byte for byte" {
    local bin n
    bin=$(wine_wrappers)
    n=$(find "$TESTFENCE_SRC/tests/audit/cases" -maxdepth 1 -name '*.expected' | wc -l)
    # The Linux build against the same expected files, so "identical" is checked here too.
    run "$TESTFENCE_SRC/tests/audit/run_golden.sh" "$TESTFENCE"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    GOLDEN_DRIVE=Z: run "$TESTFENCE_SRC/tests/audit/run_golden.sh" "$bin/testfence-wine"
    echo "$output" | grep -v '^ok ' || true
    [ "$status" -eq 0 ]
    [ "$(grep -c '^ok ' <<<"$output")" -eq "$n" ]
    echo "# $n/$n golden cases identical under wine" >&3
}

@test "audit: --format json, sarif, github, gitlab and junit of a real file match Linux's" {
    local d="$BATS_TEST_TMPDIR/p" f a b
    mkdir -p "$d/.git" "$d/tests"
    printf 'x\n' >"$d/config.toml"
    printf 'def test_x():\n    open("config.toml", "w").write("x")\n    open("/etc/app.conf", "w")\n' >"$d/tests/test_x.py"
    cd "$d"
    for f in json sarif github gitlab junit; do
        a=$(NO_COLOR=1 "$TESTFENCE" audit --no-cache --format "$f" 2>&1 | sed "s|$d|<ROOT>|g")
        b=$(NO_COLOR=1 win audit --no-cache --format "$f" 2>&1 | sed -e "s|/Z:$d|<ROOT>|g" -e "s|Z:$d|<ROOT>|g")
        [ "$a" = "$b" ] || { diff <(echo "$a") <(echo "$b"); false; }
    done
}

@test "audit: a path given with backslashes or a drive is the same file" {
    local d="$BATS_TEST_TMPDIR/p" a b c
    mkdir -p "$d/.git" "$d/tests"
    printf 'x\n' >"$d/config.toml"
    printf 'def test_x():\n    open("config.toml", "w")\n' >"$d/tests/test_x.py"
    cd "$d"
    # --exit-zero: the finding is the point here, not the status (1 on findings)
    a=$(NO_COLOR=1 "$TESTFENCE" audit --exit-zero --no-cache tests/test_x.py 2>&1)
    b=$(NO_COLOR=1 win audit --exit-zero --no-cache 'tests\test_x.py' 2>&1)
    [ "$a" = "$b" ]
    c=$(NO_COLOR=1 win audit --exit-zero --no-cache "Z:$d/tests" 2>&1)
    [ "$(sed "s|Z:$d|<ROOT>|g" <<<"$c")" = "$(NO_COLOR=1 "$TESTFENCE" audit --exit-zero --no-cache "$d/tests" 2>&1 | sed "s|$d|<ROOT>|g")" ]
}

@test "audit: --output-file replaces the report whole, as on Linux (issue 29)" {
    local d="$BATS_TEST_TMPDIR/p"
    mkdir -p "$d/.git" "$d/tests"
    printf 'x\n' >"$d/config.toml"
    printf 'def test_x():\n    open("config.toml", "w")\n' >"$d/tests/test_x.py"
    cd "$d"
    run "$TESTFENCE" audit --no-cache --format gitlab -o linux.json
    [ "$status" -eq 1 ]
    printf 'old report\n' >win.json
    run win audit --no-cache --format gitlab -o win.json
    [ "$status" -eq 1 ]
    cmp linux.json win.json
    [ -z "$(ls -a | grep testfence-tmp)" ]
    run win audit --no-cache -o tests/test_x.py
    [ "$status" -eq 125 ]
    grep -q 'open("config.toml", "w")' tests/test_x.py
}
