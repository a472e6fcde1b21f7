# https://github.com/aevea/commitsar/pull/54
# A test set-up script overwrote the global git config with another user.
import subprocess


def test_commits_on_branch(tmp_path):
    subprocess.run(["sh", "tests/setup_commits.sh", str(tmp_path)], check=True)
