#!/usr/bin/env bats
# The TOML parser built for Windows passes the toml-test corpus under wine as on Linux
# (tests/toml/run_conformance.sh: TOML 1.0 in full, the 1.1 figure reported, the regressions
# replayed); skipped, saying why, without the corpus (../shared/toml-test) or wine.

load wine

setup_file() { wine_setup_file; }
teardown_file() { wine_teardown_file; }
setup() { wine_skip_if_missing; }

@test "toml-test: TOML 1.0 in full under wine, and the same 1.1 figure as Linux" {
    local corpus="$TESTFENCE_SRC/../shared/toml-test" bin
    [ -f "$corpus/tests/files-toml-1.0.0" ] || skip "no toml-test corpus at $corpus"
    bin=$(wine_wrappers)
    run "$TESTFENCE_SRC/tests/toml/run_conformance.sh" "$bin/toml-decoder-wine" "$corpus"
    echo "$output"
    [ "$status" -eq 0 ]
    local linux
    linux=$("$TESTFENCE_SRC/tests/toml/run_conformance.sh" "$TF_TOML_DECODER" "$corpus" | grep '^TOML')
    [ "$(grep '^TOML' <<<"$output")" = "$linux" ]
    grep '^TOML' <<<"$output" | sed 's/^/# wine: /' >&3
}
