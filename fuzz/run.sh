#!/usr/bin/env bash
# Build a libFuzzer target with ASan+UBSan and run it on one core.
# usage: fuzz/run.sh toml|json|confedit [SECONDS] [LIBFUZZER_ARG...]   (SECONDS 0 = no time limit; default 60)
# e.g.   fuzz/run.sh toml 0 -runs=10000000
# The seed corpus fuzz/corpus/TARGET is copied, never grown in place; new inputs, crash
# files and the log land in build-fuzz/. Needs clang and libclang-rt-14-dev.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: fuzz/run.sh toml [SECONDS] [LIBFUZZER_ARG...]}
secs=${2:-60}
shift $(($# >= 2 ? 2 : 1))
[ -f "fuzz/${target}_fuzz.c" ] || { echo "fuzz/run.sh: no target fuzz/${target}_fuzz.c" >&2; exit 2; }
# The target's module: src/TARGET/TARGET.c (toml), base's (json), or core's config editor
# with the TOML parser it reads the file with (confedit).
case $target in
confedit) src="src/core/confedit.c src/toml/toml.c" ;;
*) src="src/$target/$target.c"; [ -f "$src" ] || src="src/base/$target.c" ;;
esac

out=build-fuzz
mkdir -p "$out/corpus-$target" "$out/artifacts-$target"
clang -std=c17 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -Isrc src/base/err.c src/base/text.c $src "fuzz/${target}_fuzz.c" -o "$out/${target}_fuzz"

limit=()
[ "$secs" -gt 0 ] && limit=(-max_total_time="$secs")
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$out/${target}_fuzz" "$out/corpus-$target" "fuzz/corpus/$target" \
    -print_final_stats=1 -artifact_prefix="$out/artifacts-$target/" \
    ${limit[@]+"${limit[@]}"} "$@" 2>&1 | tee "$out/$target.log" | grep -v '^#[0-9].*\(NEW\|REDUCE\)'
status=${PIPESTATUS[0]}
grep -h 'stat::number_of_executed_units' "$out/$target.log" || true
exit "$status"
