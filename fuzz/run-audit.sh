#!/usr/bin/env bash
# Build and run the audit's libFuzzer target (parser + rules + outputs) under
# ASan+UBSan. Separate from fuzz/run.sh (TOML) so the two tracks stay independent.
# usage: fuzz/run-audit.sh [RUNS]   (default 1000000 executions, one job)
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-1000000}
out=build-audit/fuzz
mkdir -p "$out/corpus"

cc=${CC_FUZZ:-clang}
san="-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
flags="-std=c17 -D_GNU_SOURCE -g -O1 -Isrc"

"$cc" $flags $san -Wall -Wextra -Werror -o "$out/audit_fuzz" fuzz/audit_fuzz.c \
    src/audit/audit.c src/audit/audit_project.c src/audit/audit_result.c src/audit/audit_facts.c \
    src/audit/audit_cache.c src/audit/audit_rules.c src/audit/audit_pathval.c \
    src/audit/audit_shell.c src/audit/audit_read.c src/audit/audit_script.c \
    src/audit/audit_python.c src/audit/apy_*.c src/audit/audit_output.c src/audit/py_lex.c \
    src/audit/py_parse.c src/audit/py_source.c src/audit/audit_ci.c src/audit/audit_select.c \
    src/core/walk.c src/linux/dirlist.c src/core/platform_posix.c \
    src/base/err.c src/base/text.c src/base/vec.c -lpthread

# New inputs go to the build dir. Seeds: the golden cases themselves (one copy
# in the repo) and the hand-written stress inputs in fuzz/corpus/audit.
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$out/audit_fuzz" -runs="$runs" -max_len=2048 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "$out/corpus" fuzz/corpus/audit tests/audit/cases
