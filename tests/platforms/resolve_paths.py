"""What libtestfence (TESTFENCE_LIBRARY) says of each path on standard input, one a line
("FLAGS PATH": FLAGS 0, or 1 for TF_PATH_NOFOLLOW), for the project in the cwd: its verdict
(1 writable, 0 outside, 2 quiet tool state, None: cannot tell) and the path as it resolved
it. macos_posix.bats runs it with Linux's library and with the macOS set's, and compares."""
import os
import sys

from _testfence.native import Session, _load_library

s = Session(_load_library())
s.set_backend(1)  # TF_BACKEND_SHIM: the plan only, as the python backend asks for it
s.load([])
for line in sys.stdin:
    line = line.rstrip("\n")
    if not line:
        continue
    flags, path = line.split(" ", 1)
    verdict, resolved = s.path_check_at(-100, os.fsencode(path), int(flags))
    print("%s %s -> %s %s" % (flags, path, verdict, resolved or ""))
s.close()
