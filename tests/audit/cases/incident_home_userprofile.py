# https://github.com/0xmariowu/Autosearch/pull/285
# The test set only HOME; on Windows Path.home() reads USERPROFILE, so the config went to the real home.
from pathlib import Path


def test_init_writes_config(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    (Path.home() / ".autosearch" / "config.yaml").write_text("x: 1\n")
