import os
from pathlib import Path


def test_windows_and_home():
    Path("C:/projects/app/settings.json").write_text("{}")
    open("C:\\Users\\me\\app.ini", "w")
    open(r"D:\data\out.csv", "a")
    (Path.home() / ".config" / "app.toml").write_text("")
    open(os.path.expanduser("~/.apprc"), "w")
