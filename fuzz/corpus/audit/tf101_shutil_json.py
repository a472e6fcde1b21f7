import json
import shutil
import toml


def test_copy_and_dump(src):
    shutil.copy(src, "presets.toml")
    shutil.copy2(src, dst="personas.toml")
    shutil.move("tests/tmp.toml", "config.toml")
    json.dump({}, open("settings.json", "w"))
    toml.dump({}, open("manual_slop.toml", "w"))
