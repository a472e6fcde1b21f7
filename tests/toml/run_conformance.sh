#!/usr/bin/env bash
# Run the official toml-test corpus through the decoder; TOML 1.0 must pass in full.
# usage: tests/toml/run_conformance.sh DECODER [CORPUS_DIR]   (default: $REPO/../shared/toml-test)
# Exits 77 (skipped) when the corpus is not there: it lives outside the repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
decoder=${1:?usage: run_conformance.sh DECODER [CORPUS_DIR]}
corpus=${2:-$repo/../shared/toml-test}
if [ ! -f "$corpus/tests/files-toml-1.0.0" ]; then
    echo "run_conformance: SKIPPED: no toml-test corpus at $corpus" >&2
    exit 77
fi
exec /usr/bin/python3 "$here/conformance.py" "$decoder" "$corpus" "$here/regressions"
