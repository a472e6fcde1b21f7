# https://github.com/marcusquinn/aidevops/issues/22441
# A setup test's cleanup removed the caller's worktree (its working directory), losing uncommitted work.
import subprocess


def test_setup_preserves_worktree():
    subprocess.run(["bash", "tests/preserve-worktree.sh"])
