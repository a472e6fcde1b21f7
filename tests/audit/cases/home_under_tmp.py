# audit-env: HOME=/tmp/somehome
# A CI container's HOME under /tmp: ~/.x is the user's file (TF103), not a fixed name in the
# system temp directory (TF104); a real /tmp name stays TF104 (issue 29).
import os
from pathlib import Path


def test_home_files():
    (Path.home() / ".app" / "config.toml").write_text("")  # TF103 error, in HOME
    open(os.path.expanduser("~/.apprc"), "w")  # TF103 error, in HOME
    open(os.path.join(os.environ["HOME"], ".cache", "x"), "w")  # TF103 error, in HOME
    open("/tmp/fixed.log", "w")  # TF104: the temp dir, not HOME
