import os
from pathlib import Path

HERE = Path(__file__).parent


def test_inside_tests_dir():
    open("tests/out.txt", "w")
    Path("tests/data/x.json").write_text("{}")
    (HERE / "fixtures" / "generated.json").write_text("{}")
    Path(__file__).with_name("snapshot.txt").write_text("")
    Path(__file__).with_suffix(".out").write_text("")
    open(os.path.join(os.path.dirname(__file__), "data.bin"), "wb")
    open("/dev/null", "w")
    open(os.devnull, "w")
