from pathlib import Path


def test_climbs():
    Path(__file__).parent.parent / "config.toml"
    (Path(__file__).parent.parent / "config.toml").write_text("x")
    (Path(__file__).resolve().parent.parent / "src" / "app.py").write_text("x")
    (Path(__file__).absolute().parents[1] / "data.json").unlink()
