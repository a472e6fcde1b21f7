#!/usr/bin/env bash
# Check (and, as root, install) the Debian 12 packages testfence needs.
# usage: scripts/deps.sh [build] [test] [bench] [fuzz] [package] [windows] [macos]
#        (default: build test)
set -euo pipefail

groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(build test)

declare -A pkgs=(
    [build]="gcc make cmake pkg-config libc6-dev python3 python3-dev"
    [test]="bats busybox-static python3 python3-dev python3-jsonschema python3-pytest python3-pytest-xdist python3-pytest-cov python3-pytest-benchmark util-linux procps git liburing-dev sqlite3 attr e2fsprogs libpython3.11-testsuite"
    [bench]="hyperfine bubblewrap libpython3.11-testsuite python3.11 libtree-sitter-dev nodejs npm ca-certificates"
    [fuzz]="clang libclang-rt-14-dev"
    # testfence.exe (make windows) and the tests that run it under wine (tests/platforms/).
    [windows]="mingw-w64 wine wine64 cmake make"
    # The macOS source set built on Linux with clang (make macos-posix, tests/platforms/).
    [macos]="clang cmake make"
    [package]="python3-setuptools python3-wheel python3-build python3-venv python3-pip python3-yaml debhelper dh-python dpkg-dev lintian fakeroot man-db zsh fish pre-commit unzip"
)

want=()
for g in "${groups[@]}"; do
    [ -n "${pkgs[$g]+x}" ] || { echo "deps.sh: unknown group '$g' (build test bench fuzz package windows macos)" >&2; exit 2; }
    want+=(${pkgs[$g]})
done

# Packages whose command may come from elsewhere (Node.js from its own
# repository, say): present when the command is, whatever dpkg says.
declare -A command_of=([nodejs]=node [npm]=npm)

missing=()
for p in "${want[@]}"; do
    if [ -n "${command_of[$p]+x}" ] && command -v "${command_of[$p]}" >/dev/null; then
        continue
    fi
    st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [ "$st" = "install ok installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then
        echo "deps.sh: installing ${missing[*]}" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
    else
        echo "deps.sh: missing Debian packages. Run as root:" >&2
        echo "  apt-get install ${missing[*]}" >&2
        exit 1
    fi
fi

# The audit parses Python with its own parser: building testfence fetches nothing. The
# tree-sitter grammar (from the npm registry, pinned and hash-checked) is only the other
# side of the parser benchmark (bench/audit_parsers.sh).
here=$(cd "$(dirname "$0")" && pwd)
for g in "${groups[@]}"; do
    if [ "$g" = bench ]; then
        "$here/fetch-grammar.sh"
    fi
done
