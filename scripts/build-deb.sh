#!/usr/bin/env bash
# Build the Debian package (dpkg-buildpackage -b -us -uc) from a copy of this tree and
# put the .deb, .changes and .buildinfo in OUTDIR. A copy, because dpkg-buildpackage
# writes into the parent of the tree it builds and into debian/ inside it. Nothing is
# fetched: the package builds no benchmark, so it needs no tree-sitter grammar.
# usage: scripts/build-deb.sh [OUTDIR]   (default: dist)
set -euo pipefail
cd "$(dirname "$0")/.."
# dpkg-dev, debhelper, dh-python: installed as root, else the exact apt-get line and exit 1.
scripts/deps.sh build package
mkdir -p "${1:-dist}"
out=$(cd "${1:-dist}" && pwd)

work=$(mktemp -d "$out/.deb-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=$work/testfence
mkdir "$src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    # The working tree as it is: tracked and new files, not what .gitignore names.
    git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
        [ -e "$f" ] && printf '%s\0' "$f"
    done | xargs -0 cp --parents -P -t "$src"
else
    tar -c --exclude='./build*' --exclude=./dist --exclude=./third_party --exclude='*/tests/artifacts' . |
        tar -x -C "$src"
fi

echo "build-deb.sh: dpkg-buildpackage -b -us -uc in $src" >&2
(cd "$src" && dpkg-buildpackage -b -us -uc) >"$work/build.log" 2>&1 || {
    tail -40 "$work/build.log" >&2
    echo "build-deb.sh: dpkg-buildpackage failed (the end of its log is above)" >&2
    exit 1
}
mv "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out"/
ls "$out"/testfence_*.deb
