# https://github.com/git-lfs/git-lfs/issues/2448
# The suite pointed HOME at a temp dir, but XDG_CONFIG_HOME still named the real config: git wrote there.
import subprocess


def test_lfs_install(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    subprocess.run(["git", "config", "--global", "filter.lfs.required", "true"], check=True)
