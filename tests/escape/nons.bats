#!/usr/bin/env bats
# nons, which makes namespaces unavailable to the escape corpus's fallback run
# (corpus-nons): every new namespace is refused, everything else still works.

bats_require_minimum_version 1.5.0

setup() {
    : "${TF_NONS:?set TF_NONS to the nons program (ctest does)}"
    N=$TF_NONS
}

# clone_flags FLAGS: a raw clone(2) with FLAGS|SIGCHLD; prints ok or the errno name.
clone_flags() {
    "$@" /usr/bin/python3 - <<'EOF'
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
flags = int(os.environ["FLAGS"], 0) | 17  # SIGCHLD
r = libc.syscall(56, ctypes.c_ulong(flags), None, None, None, ctypes.c_ulong(0))
if r == 0:
    os._exit(0)
if r < 0:
    print(errno.errorcode[ctypes.get_errno()])
    sys.exit(1)
os.waitpid(r, 0)
print("ok")
EOF
}

@test "nons: a command runs, with pipes, threads, fork and exec" {
    run "$N" /usr/bin/python3 -c 'import os, subprocess, threading
t = threading.Thread(target=lambda: None); t.start(); t.join()
pid = os.fork()
if pid == 0: os._exit(3)
assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 3
print(subprocess.run(["sh", "-c", "echo piped | cat"], capture_output=True, text=True, check=True).stdout, end="")'
    [ "$status" -eq 0 ]
    [ "$output" = piped ]
    run "$N" sh -c 'exit 7'
    [ "$status" -eq 7 ]
}

@test "nons: unshare of any namespace fails with EPERM" {
    unshare -m true || skip "unshare -m fails here even without nons"
    local f
    for f in -m -U -p -n -u -i -C -T; do
        run "$N" unshare "$f" true
        [ "$status" -ne 0 ]
        [[ "$output" == *"Operation not permitted"* ]]
    done
    run "$N" unshare true # no new namespace: allowed
    [ "$status" -eq 0 ]
}

@test "nons: clone with a new namespace fails with EPERM, a plain clone works" {
    FLAGS=0x20000 run clone_flags # CLONE_NEWNS
    [ "$output" = ok ] || skip "clone(CLONE_NEWNS) fails here even without nons: $output"
    FLAGS=0x20000 run clone_flags "$N"
    [ "$output" = EPERM ]
    FLAGS=0x10000000 run clone_flags "$N" # CLONE_NEWUSER
    [ "$output" = EPERM ]
    FLAGS=0x20000000 run clone_flags "$N" # CLONE_NEWPID
    [ "$output" = EPERM ]
    FLAGS=0 run clone_flags "$N"
    [ "$output" = ok ]
}

@test "nons: clone3 fails with ENOSYS" {
    run "$N" /usr/bin/python3 -c 'import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
print(errno.errorcode[ctypes.get_errno()] if libc.syscall(435, None, 0) < 0 else "ok")'
    [ "$output" = ENOSYS ]
}

@test "nons: usage and a missing command" {
    run "$N"
    [ "$status" -eq 2 ]
    run -127 "$N" /nonexistent/cmd
}
