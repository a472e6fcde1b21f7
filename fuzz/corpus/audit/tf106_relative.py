import os
import shutil
from pathlib import Path


def test_relative_writes(src):
    open("output.log", "a")
    Path("build/report.txt").write_text("...")
    Path("build").mkdir(parents=True)
    Path("stale.txt").unlink()
    Path("old").rmdir()
    Path("a.txt").rename("b.txt")
    Path("c.txt").replace(Path("d.txt"))
    os.replace("e.txt", "f.txt")
    os.symlink(src, "link")
    shutil.copytree(src, "copied")
    shutil.rmtree("cache")
    os.open("raw.bin", os.O_WRONLY | os.O_CREAT)
    Path("notes.md").open("w")
    open("../sibling/file", "w")
