# https://github.com/phantomyard/phantombot/pull/573
# Tests spawned install.sh with the real HOME; it appended a PATH line to ~/.bashrc on every run.
import subprocess


def test_installer_runs():
    subprocess.run(["bash", "install.sh"], check=True)
