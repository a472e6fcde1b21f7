#!/usr/bin/env bash
# The demo: build testfence and run the careless example project's tests under
# it. The careless tests fail with PermissionError, the good ones pass, and the
# project's own files are byte-for-byte unchanged.
# TESTFENCE=/usr/bin/testfence runs an installed testfence instead of building one
# (CI does, against the Debian package).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

if [ -n "${TESTFENCE:-}" ]; then
    tf=$TESTFENCE
else
    scripts/deps.sh build test >&2
    cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build build -j"$(nproc 2>/dev/null || echo 2)" --target testfence >/dev/null
    tf=$repo/build/testfence
fi

cd examples/clobber
protected=(*.toml)
before=$(sha256sum "${protected[@]}")

echo "== the project's files before the run"
echo "$before"
echo
echo "== testfence run -- python3 -m pytest -v"
# Bytecode caching must work as on a user's machine (redirected, not disabled).
status=0
env -u PYTHONDONTWRITEBYTECODE "$tf" run -- /usr/bin/python3 -m pytest -v -rA --tb=line \
    -p no:randomly || status=$?
echo
after=$(sha256sum "${protected[@]}")
echo "== the project's files after the run"
echo "$after"
echo
if [ "$before" != "$after" ]; then
    echo "DEMO FAILED: a protected file changed" >&2
    exit 1
fi
if [ "$status" -ne 1 ]; then
    echo "DEMO FAILED: pytest exited $status; expected 1 (the careless tests fail)" >&2
    exit 1
fi
echo "Every protected file is byte-for-byte unchanged; the careless tests failed with"
echo "PermissionError instead of destroying them. Run workspaces: examples/clobber/tests/artifacts/"
