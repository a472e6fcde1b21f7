from pathlib import Path


def test_saves_config():
    Path("manual_slop.toml").write_text("[ai]\nprovider = 'x'\n")
    Path("config.toml").write_bytes(b"")
    Path("./credentials.toml").touch()
