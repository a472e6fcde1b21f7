#!/usr/bin/env bash
# Build and run the audit's libFuzzer target (parser + rules + outputs) under
# ASan+UBSan. Separate from fuzz/run.sh (TOML) so the two tracks stay independent.
# usage: fuzz/run-audit.sh [RUNS]   (default 1000000 executions, one job)
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-1000000}
out=build-audit/fuzz
grammar=third_party/tree-sitter-python/src
mkdir -p "$out/corpus"
scripts/fetch-grammar.sh

cc=${CC_FUZZ:-clang}
san="-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
flags="-std=c17 -D_GNU_SOURCE -g -O1 -Isrc"

# The grammar is third-party generated C: instrumented, but not held to our warnings.
"$cc" $flags ${san/fuzzer,/fuzzer-no-link,} -w -I"$grammar" -c "$grammar/parser.c" -o "$out/parser.o"
"$cc" $flags ${san/fuzzer,/fuzzer-no-link,} -w -I"$grammar" -c "$grammar/scanner.c" -o "$out/scanner.o"
"$cc" $flags $san -Wall -Wextra -Werror -o "$out/audit_fuzz" fuzz/audit_fuzz.c \
    src/audit/audit.c src/audit/audit_rules.c src/audit/audit_pathval.c src/audit/audit_python.c \
    src/audit/audit_output.c src/base/err.c src/base/vec.c "$out/parser.o" "$out/scanner.o" -ltree-sitter -lpthread

# New inputs go to the build dir. Seeds: the golden cases themselves (one copy
# in the repo) and the hand-written stress inputs in fuzz/corpus/audit.
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$out/audit_fuzz" -runs="$runs" -max_len=2048 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "$out/corpus" fuzz/corpus/audit tests/audit/cases
