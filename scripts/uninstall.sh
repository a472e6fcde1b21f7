#!/usr/bin/env bash
# Undo the last `make install` (cmake --install) from build directory BUILD: remove
# every file in its install_manifest.txt (with the bytecode Python left beside the
# plugin), under the DESTDIR that install was given, then each directory that install
# created, if it is empty again.
# usage: scripts/uninstall.sh [BUILD]   (DESTDIR, when set, must be the install's)
set -euo pipefail

build=${1:-build}
manifest=$build/install_manifest.txt
dirs=$build/install_dirs.txt
if [ ! -f "$manifest" ]; then
    echo "uninstall: nothing to do: $manifest not found (uninstall with the BUILD you installed from)" >&2
    exit 1
fi
# The manifest names each file where it runs (/usr/local/bin/testfence), as CMake writes it,
# also for a staged install: that one's files are under its DESTDIR, kept beside the manifest
# (cmake/install-begin.cmake). Without that, a staged install's uninstall would remove the
# live install of the same prefix.
staged=""
[ ! -f "$build/install_destdir.txt" ] || staged=$(cat "$build/install_destdir.txt")
if [ -n "${DESTDIR:-}" ] && [ "$DESTDIR" != "$staged" ]; then
    echo "uninstall: the last install from $build went to DESTDIR='$staged', not '$DESTDIR': nothing removed" >&2
    exit 1
fi

removed=0
while IFS= read -r f || [ -n "$f" ]; do
    [ -n "$f" ] || continue
    f=$staged$f
    if [ -e "$f" ] || [ -L "$f" ]; then
        rm -f -- "$f"
        removed=$((removed + 1))
    fi
    case $f in
    *.dist-info/*)
        rmdir -- "$(dirname -- "$f")" 2>/dev/null || true # empty once its last file is gone
        ;;
    *.py)
        cache=$(dirname -- "$f")/__pycache__
        stem=$(basename -- "$f" .py)
        rm -f -- "$cache/$stem".*.pyc
        rmdir -- "$cache" 2>/dev/null || true
        ;;
    esac
done <"$manifest"

# Deepest first, so a parent is empty once its children are gone.
if [ -f "$dirs" ]; then
    awk 'NF { print length($0) "\t" $0 }' "$dirs" | sort -rn | cut -f2- |
        while IFS= read -r d; do
            rmdir -- "$d" 2>/dev/null || true
        done
fi
rm -f -- "$manifest" "$dirs" "$build/install_destdir.txt"
echo "uninstall: removed $removed files" >&2
