#!/usr/bin/env bats
# The one option table: each command takes the options its --help lists and refuses every
# other one (125, naming the option and the command, nothing written or run).

load ../support/helpers

setup() { mkproject; }

commands=(run doctor explain init clean audit)

# The long options a command's --help lists, one a line.
listed() {
    "$TESTFENCE" "$1" --help | sed -n '/^options:/,/^$/p' | grep -oE '^  (-[A-Za-z], )?--[a-z-]+' |
        grep -oE -- '--[a-z-]+' | sort -u
}

@test "every option a command's --help lists is taken by it" {
    for c in "${commands[@]}"; do
        for opt in $(listed "$c"); do
            # The option, a value for it where it needs one, then --help: parsed, then answered.
            case $opt in
                --help | --version) args=("$opt") ;;
                *) if "$TESTFENCE" "$c" --help | grep -qE "^  (-[A-Za-z], )?$opt [A-Za-z|]"; then
                       args=("$opt=x" --help)
                   else
                       args=("$opt" --help)
                   fi ;;
            esac
            run "$TESTFENCE" "$c" "${args[@]}"
            if [[ $output == *"is not an option"* || $output == *"unknown option"* ]]; then
                echo "$c refuses $opt, which its --help lists: $output" >&2
                return 1
            fi
        done
    done
}

@test "every option a command's --help does not list is refused with 125, by name" {
    all=$(for c in "${commands[@]}"; do listed "$c"; done | sort -u)
    [ "$(echo "$all" | wc -l)" -ge 29 ] # the union really holds every command's options
    for c in "${commands[@]}"; do
        for opt in $(comm -23 <(echo "$all") <(listed "$c")); do
            run "$TESTFENCE" "$c" "$opt" x -- true
            if [ "$status" -ne 125 ] || [[ $output != *"$opt is not an option of '$c'"* ]]; then
                echo "$c $opt: status $status, output: $output" >&2
                return 1
            fi
        done
    done
}

@test "init --allow and --config are refused, and nothing is written" {
    run "$TESTFENCE" init --allow /nonexistent
    expect_status 125
    expect_output_has "--allow is not an option of 'init'; see 'testfence init --help'"
    [ ! -e testfence.toml ]
    run "$TESTFENCE" init --config other.toml
    expect_status 125
    [ ! -e testfence.toml ]
    [ ! -e other.toml ]
    run "$TESTFENCE" init --dry-run
    expect_status 0
    [ ! -e testfence.toml ]
}

@test "clean --allow is refused before anything is removed" {
    mkdir -p tests/artifacts/_isolation_workspace_20200101T000000Z-1
    run "$TESTFENCE" clean --all --allow /tmp
    expect_status 125
    expect_output_has "--allow is not an option of 'clean'"
    [ -d tests/artifacts/_isolation_workspace_20200101T000000Z-1 ]
}

@test "a switch given a value, a value missing, an operand where none is taken" {
    run "$TESTFENCE" run --verify=yes -- true
    expect_status 125
    expect_output_has "--verify takes no value"
    run "$TESTFENCE" clean --retain
    expect_status 125
    expect_output_has "--retain needs a value (N)"
    run "$TESTFENCE" doctor extra
    expect_status 125
    expect_output_has "unexpected argument \"extra\"; see 'testfence doctor --help'"
}

@test "audit: options before, between and after the paths; -jN and -j N" {
    printf 'def test_a():\n    pass\n' >tests/test_a.py
    printf 'def test_b():\n    pass\n' >tests/test_b.py
    run "$TESTFENCE" audit tests/test_a.py --strict -j2 tests/test_b.py --format json
    expect_status 0
    expect_output_has '"files": 2,'
    run "$TESTFENCE" audit -j 2 --strict -- tests/test_a.py
    expect_status 0
    run "$TESTFENCE" audit --strict --allow x tests
    expect_status 125
    expect_output_has "testfence audit: --allow is not an option of 'audit'"
}

@test "run: the command's own options are never taken for testfence's" {
    run "$TESTFENCE" run sh -c 'echo "$1"' sh --root
    expect_status 0
    expect_output_has "--root"
    run "$TESTFENCE" run -- sh -c 'echo "$1"' sh --help
    expect_status 0
    expect_output_has "--help"
}
