"""Drive `testfence run` on a pseudo-terminal: the command must be able to read
from the terminal (it owns the foreground) and Ctrl-C must reach it."""
import os
import pty
import select
import sys
import time


def run_on_pty(argv, send, delay=0.5, timeout=15):
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(argv[0], argv)
    out = b""
    time.sleep(delay)
    os.write(fd, send)
    deadline = time.time() + timeout
    while time.time() < deadline:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # EIO: the terminal's last user is gone
                chunk = b""
            out += chunk
            if not chunk:
                time.sleep(0.05)
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return out.decode(errors="replace"), os.waitstatus_to_exitcode(status)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    return out.decode(errors="replace"), "timeout"


def main():
    tf = sys.argv[1]
    out, code = run_on_pty([tf, "run", "--", "sh", "-c", "read x; echo read: $x"], b"hello\n")
    print(out.replace("\r", ""))
    if code != 0:
        print(f"reading from the terminal: exit {code}")
        return 1
    out, code = run_on_pty([tf, "run", "--", "sh", "-c", "echo ready; sleep 30"], b"\x03")
    print(out.replace("\r", ""))
    print(f"interrupted: {code}")
    if os.environ.get("TESTFENCE_RUN_ID"):
        # Nested in a run, its guard answers the inner command's calls: it refuses TIOCSTI and
        # records it, as it must, which would fail that outer run.
        print("TIOCSTI: not tried (nested: the outer run refuses and records it)")
        return 0
    inject = "import fcntl, termios\ntry:\n    fcntl.ioctl(0, termios.TIOCSTI, b'x')\n    print('injected')\nexcept OSError as e:\n    print('TIOCSTI refused:', e.errno)"
    out, code = run_on_pty([tf, "run", "--", "/usr/bin/python3", "-c", inject], b"")
    print(out.replace("\r", ""))
    return 0


sys.exit(main())
