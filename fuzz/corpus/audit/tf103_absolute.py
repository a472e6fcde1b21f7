import os
import shutil
from pathlib import Path


def test_absolute_paths():
    open("/home/alice/project/config.toml", "w")
    Path("/etc/app.conf").write_text("")
    shutil.rmtree("/var/tmp/cache")
    os.makedirs("/tmp/outputs")
