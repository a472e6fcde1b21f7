import os
import tempfile
from pathlib import Path


def test_fixed_names_in_the_system_temp_dir():
    open("/tmp/pip-test.txt", "w")
    os.mkdir("/tmp/dir")
    os.makedirs(os.path.join(tempfile.gettempdir(), "cache"))
    Path(tempfile.gettempdir(), "app.log").write_text("")
    shutil_target = "/var/tmp/out"
    open(shutil_target, "w")


def test_unique_names_are_fine(tmp_path):
    tempfile.mkdtemp(dir="/tmp")
    tempfile.mkstemp(".x", "p", "/var/tmp")
    d = tempfile.mkdtemp()
    open(os.path.join(d, "fixed.txt"), "w")
    open(os.path.join(tempfile.gettempdir(), f"run-{os.getpid()}.log"), "w")
    open("/tmp", "a")
    tempfile.mkdtemp(dir=tmp_path)
