import json
import os
from pathlib import Path


def test_reads():
    open("config.toml")
    open("config.toml", "r")
    open("config.toml", "rb")
    open("config.toml", mode="rt", encoding="utf-8")
    json.load(open("settings.json"))
    Path("config.toml").read_text()
    Path("manual_slop.toml").open()
    Path("manual_slop.toml").open("rb")
    os.open("config.toml", os.O_RDONLY)
    os.path.exists("config.toml")
    Path("config.toml").exists()


def test_unknown_mode(mode):
    open("config.toml", mode)
