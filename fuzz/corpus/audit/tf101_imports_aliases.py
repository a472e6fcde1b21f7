import os as o
import shutil as sh
from os import remove
from pathlib import Path as P
from shutil import copyfile as cp


def test_aliases(src):
    P("config.toml").write_text("")
    o.remove("credentials.toml")
    remove("presets.toml")
    sh.rmtree("personas.toml")
    cp(src, "manual_slop.toml")
    o.rename("tests/x.toml", "tool_presets.toml")
