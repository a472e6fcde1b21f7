#!/usr/bin/env bash
# The full test suite, from a fresh clone: dependencies, a -Werror build (and
# testfence.exe, cross-built with mingw-w64 for tests/platforms/ under wine, and the macOS
# source set built on Linux with clang, whose library tests/platforms/ runs the plugin with), the
# tests, the same tests under testfence itself, every way of installing it
# (scripts/check-install.sh), then the tests under AddressSanitizer + UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh build test package windows macos

jobs=$(nproc 2>/dev/null || echo 2)

# The runs wine itself failed and tests/platforms/wine_run.sh ran again: said, not hidden
# behind a passing test; then the log starts again.
wine_retries() {
    local log=build-windows/wine-retries.log
    if [ -s "$log" ]; then
        echo "== wine failed, and the run was started again (tests/platforms/wine_run.sh):"
        cat "$log"
    fi
    rm -f "$log"
}
trap wine_retries EXIT # also when a stage fails: the retries of the tests that passed

echo "== build (warnings are errors)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTESTFENCE_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
echo "== testfence.exe (mingw-w64, warnings are errors): tests/platforms/ runs it under wine"
make windows JOBS="$jobs" >/dev/null
wine_retries >/dev/null
echo "== the macOS source set on Linux (clang, warnings are errors): tests/platforms/ runs the plugin with its library"
make macos-posix JOBS="$jobs" >/dev/null
echo "== tests"
ctest --test-dir build --output-on-failure -j"$jobs"
wine_retries

# The suite again, under the testfence it just built: its tests must never
# write outside tests/. ctest keeps its logs beside the test list it reads,
# so it reads a copy of the lists (one per directory) from inside tests/.
echo "== tests under testfence itself"
self=tests/artifacts/self-test
rm -rf "$self" && mkdir -p "$self"
(cd build && find . -name CTestTestfile.cmake -exec cp --parents {} "../$self/" \;)
build/testfence run -- ctest --test-dir "$self" --output-on-failure --no-tests=error -j"$jobs"

echo "== install: make install/uninstall, the wheel in a venv, the .deb, the examples"
scripts/check-install.sh

echo "== build with ASan+UBSan"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DTESTFENCE_WERROR=ON -DTESTFENCE_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs"
echo "== tests under ASan+UBSan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j"$jobs"
wine_retries
