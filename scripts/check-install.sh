#!/usr/bin/env bash
# Every way users install testfence, checked end to end on this machine (scripts/check.sh
# runs it; it can run alone after a build):
#   make     make && make install PREFIX=... in a fresh copy of the tree, no script run
#            first; man pages, completions, the plugin; make uninstall empties the prefix
#   wheel    python3 -m build --no-isolation and pip install ., into fresh venvs; the
#            plugin's own tests (tests/lib/plugin.bats) against the installed wheel
#   deb      dpkg-buildpackage, lintian, the packages installed in a throwaway root
#   examples the GitHub Actions and GitLab CI examples, the pre-commit hook
# Everything is written under tests/artifacts/install/; nothing is installed here.
# usage: scripts/check-install.sh [make] [wheel] [deb] [examples]   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(make wheel deb examples)
# The examples run testfence from the wheel's venv.
if [[ " ${parts[*]} " == *" examples "* && " ${parts[*]} " != *" wheel "* ]]; then
    parts=(wheel "${parts[@]}")
fi

scripts/deps.sh build test package >&2
jobs=$(nproc 2>/dev/null || echo 2)
# The plugin's tests use the build's helpers (tf_nolandlock) and its testfence.
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTESTFENCE_WERROR=ON >/dev/null
cmake --build build -j"$jobs" >/dev/null

work=$repo/tests/artifacts/install
rm -rf "$work"
mkdir -p "$work/tree"
# The tree a fresh clone has: the tracked files as they are now, nothing ignored
# (no third_party/, no build/).
snapshot=$(git stash create 2>/dev/null || true)
git archive "${snapshot:-HEAD}" | tar -x -C "$work/tree"

export TF_INSTALL_WORK=$work TF_INSTALL_TREE=$work/tree TESTFENCE_SRC=$repo
export TESTFENCE=$repo/build/testfence TF_PROBE=$repo/build/tf_probe \
    TF_PROBE_STATIC=$repo/build/tf_probe_static TF_NOLANDLOCK=$repo/build/tf_nolandlock \
    TF_WRITELIB=$repo/build/libtf_writelib.so

for p in "${parts[@]}"; do
    case $p in
    make | deb) bats "tests/install/$p.bats" ;;
    wheel)
        bats tests/install/wheel.bats
        echo "== the plugin's tests against the wheel installed in $work/venv"
        TF_PLUGIN_PYTHON=$work/venv/bin/python bats tests/lib/plugin.bats
        ;;
    examples) bats tests/install/examples.bats ;;
    *) echo "check-install.sh: unknown part '$p' (make wheel deb examples)" >&2; exit 2 ;;
    esac
done
