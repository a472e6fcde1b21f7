#!/usr/bin/env bash
# Every TOML file shipped on this machine must read exactly as Python's tomllib reads it.
# usage: tests/toml/check_system_files.sh DECODER [ROOT...]
#        (default roots: /usr/lib/python3/dist-packages /usr/share; exits 77 if none has TOML)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
decoder=${1:?usage: check_system_files.sh DECODER [ROOT...]}
shift
[ $# -gt 0 ] || set -- /usr/lib/python3/dist-packages /usr/share
exec /usr/bin/python3 "$here/check_system_files.py" "$decoder" "$@"
