#!/usr/bin/env bash
# Run COMMAND as root in a private mount namespace where /usr, /etc and /var are
# overlays whose changes live in a tmpfs: `dpkg -i` there changes nothing on this
# machine and vanishes with the namespace, so other test runs never see the package.
# usage: throwaway-root.sh COMMAND [ARG...]
set -euo pipefail
if [ -z "${TF_THROWAWAY_ROOT:-}" ]; then
    [ "$(id -u)" -eq 0 ] || { echo "throwaway-root.sh: needs root (mount namespaces, overlayfs)" >&2; exit 77; }
    exec unshare --mount --propagation private env TF_THROWAWAY_ROOT=1 "$0" "$@"
fi
upper=/run/testfence-throwaway-root
mkdir -p "$upper"
mount -t tmpfs tmpfs "$upper"
for d in usr etc var; do
    mkdir "$upper/$d" "$upper/$d.work"
    mount -t overlay overlay -o "lowerdir=/$d,upperdir=$upper/$d,workdir=$upper/$d.work" "/$d"
done
exec "$@"
