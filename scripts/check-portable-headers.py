#!/usr/bin/python3
"""The platform boundary made executable: no file of the platform-neutral parts (src/base,
src/toml, src/core, src/audit) includes a Linux-only header, so testfence.exe (mingw-w64) and a
macOS build compile them. Linux's calls live in src/linux (core's few behind core/oscalls.h and
core/vlog.h, implemented there); Windows' in src/windows. docs/platforms.md.
usage: scripts/check-portable-headers.py [ROOT]   (default: the repository this script is in)
       scripts/check-portable-headers.py --self-test   (planted includes must be reported)
Exit 0 when none is found; 1, with one line per include (file:line: header, why)."""
import os
import re
import sys
import tempfile

PARTS = ("src/base", "src/toml", "src/core", "src/audit")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
# Headers only Linux (glibc on Linux) has: the kernel's own, and the sys/ headers of Linux's
# system calls. POSIX headers (unistd.h, fcntl.h, sys/socket.h, ...) are not here; nor is
# sys/file.h (flock: the BSDs and macOS have it).
LINUX_ONLY = {
    "sys/mount.h", "sys/prctl.h", "sys/syscall.h", "sys/vfs.h", "sys/statfs.h", "sys/xattr.h",
    "sys/sysmacros.h", "sys/fsuid.h", "sys/signalfd.h", "sys/epoll.h", "sys/inotify.h",
    "sys/eventfd.h", "sys/timerfd.h", "sys/personality.h", "sys/capability.h",
    "sys/sendfile.h", "sys/klog.h", "sys/pidfd.h", "sys/fanotify.h", "sys/auxv.h",
    "sys/reboot.h", "sys/swap.h", "sys/sysinfo.h", "sys/ptrace.h", "sys/quota.h", "mntent.h",
    "seccomp.h", "liburing.h", "gnu/libc-version.h",
}
PREFIXES = ("linux/", "asm/", "asm-generic/")


def why_linux(header, quoted):
    """Why HEADER is Linux-only, or None."""
    if quoted:  # the project's own: a part's header by folder
        return "the linux part's header" if header.startswith("linux/") else None
    if header.startswith(PREFIXES):
        return "a Linux kernel header"
    if header in LINUX_ONLY:
        return "Linux only (no such header on Windows or macOS)"
    return None


def check(root):
    found = []
    for part in PARTS:
        top = os.path.join(root, part)
        for dirpath, dirs, files in os.walk(top):
            dirs.sort()
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for n, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        why = m and why_linux(m.group(2), m.group(1) == '"')
                        if why:
                            found.append(f"{rel}:{n}: #include {m.group(1)}{m.group(2)}"
                                         f"{'>' if m.group(1) == '<' else chr(34)}: {why}; "
                                         "put the call behind an interface in src/linux")
    return found


def self_test():
    with tempfile.TemporaryDirectory() as t:
        planted = {
            "src/core/a.c": "#include <sys/mount.h>\n",
            "src/audit/b.h": "#  include <linux/landlock.h>\n",
            "src/toml/c.c": '#include "linux/session.h"\n',
            "src/base/d.c": "#include <sys/syscall.h>\n",
            "src/core/fine.c": "#include <unistd.h>\n#include <sys/socket.h>\n#include \"walk.h\"\n",
            "src/linux/ok.c": "#include <sys/prctl.h>\n",
        }
        for rel, text in planted.items():
            os.makedirs(os.path.dirname(os.path.join(t, rel)), exist_ok=True)
            with open(os.path.join(t, rel), "w") as f:
                f.write(text)
        got = check(t)
        want = ["src/audit/b.h:1:", "src/base/d.c:1:", "src/core/a.c:1:", "src/toml/c.c:1:"]
        if sorted(g.split(" ")[0] for g in got) != want:
            print("check-portable-headers: self-test failed; reported:\n  " + "\n  ".join(got))
            return 1
    print("check-portable-headers: self-test passed (4 planted includes reported, 0 others)")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))
    found = check(root)
    for line in found:
        print(line)
    if found:
        print(f"check-portable-headers: {len(found)} Linux-only include(s) in "
              f"{', '.join(PARTS)}")
        return 1
    print(f"check-portable-headers: no Linux-only header in {', '.join(PARTS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
