#!/usr/bin/env bash
# Fetch the pinned tree-sitter-python grammar from the npm registry, verify it
# against the registry's integrity hash and unpack it into third_party/.
# Idempotent: does nothing when the unpacked grammar is present and was verified.
#
# The audit parses Python with its own parser; this grammar is only the other side of
# bench/audit_parsers.sh: nothing the build needs it. `scripts/deps.sh bench` runs this
# script. 0.23.6 is the newest tree-sitter-python Debian's libtree-sitter 0.20.7 can load: that
# library reads grammar ABI 13 and 14 (TREE_SITTER_LANGUAGE_VERSION 14 in its api.h), and
# 0.25.0's parser.c is ABI 15.
# usage: scripts/fetch-grammar.sh [--force]
set -euo pipefail

name=tree-sitter-python
version=0.23.6
integrity='sha512-yIM9z0oxKIxT7bAtPOhgoVl6gTXlmlIhue7liFT4oBPF/lha7Ha4dQBS82Av6hMMRZoVnFJI8M6mL+SwWoLD3A=='

root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/third_party/$name"
stamp="$dest/.testfence-verified"

if [ "${1:-}" != --force ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$name@$version $integrity" ] \
    && [ -f "$dest/src/parser.c" ] && [ -f "$dest/src/scanner.c" ]; then
    exit 0
fi

command -v npm >/dev/null || { echo "fetch-grammar.sh: npm not found (scripts/deps.sh bench installs it)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/tf-grammar.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "fetch-grammar.sh: fetching $name@$version from the npm registry" >&2
(cd "$work" && npm pack --silent "$name@$version" >/dev/null)
tarball="$work/$name-$version.tgz"
[ -f "$tarball" ] || { echo "fetch-grammar.sh: npm pack produced no $name-$version.tgz" >&2; exit 1; }

# npm's integrity is "sha512-" + base64 of the raw digest of the tarball.
# Node is here whenever npm is; a fresh Debian 12 need not have openssl or xxd.
sri_sha512() {
    node -e 'const c = require("crypto"), f = require("fs");
process.stdout.write(c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"));' "$1"
}
actual="sha512-$(sri_sha512 "$tarball")"
if [ "$actual" != "$integrity" ]; then
    echo "fetch-grammar.sh: INTEGRITY MISMATCH for $name@$version" >&2
    echo "  expected $integrity" >&2
    echo "  got      $actual" >&2
    echo "  the tarball was not unpacked; refusing to build from unverified sources" >&2
    exit 1
fi

rm -rf "$dest"
mkdir -p "$dest"
tar -xzf "$tarball" -C "$dest" --strip-components=1 package
for f in src/parser.c src/scanner.c src/tree_sitter/parser.h; do
    [ -f "$dest/$f" ] || { echo "fetch-grammar.sh: $name@$version lacks $f" >&2; exit 1; }
done
echo "$name@$version $integrity" >"$stamp"
echo "fetch-grammar.sh: $name@$version verified and unpacked into third_party/$name" >&2
