# https://github.com/go-gitea/gitea/issues/33039
# Tests gave git a HOME of their own but kept XDG_CONFIG_HOME: they used and changed the user's XDG git config.
import os
import subprocess


def test_repo_settings(tmp_path):
    env = dict(os.environ, HOME=str(tmp_path))
    subprocess.run(["git", "config", "--global", "core.quotepath", "false"], env=env, check=True)
