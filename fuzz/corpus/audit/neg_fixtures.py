import os
import tempfile
from pathlib import Path


def test_fixtures(tmp_path, tmpdir, tmp_path_factory, monkeypatch):
    open(tmp_path / "x", "w")
    (tmp_path / "config.toml").write_text("")
    tempfile.mkdtemp(dir=tmp_path)
    tempfile.NamedTemporaryFile(dir=tmpdir)
    d = tmp_path_factory.mktemp("data")
    (d / "credentials.toml").write_text("")
    ws = Path(os.environ["TESTFENCE_WORKSPACE"])
    (ws / "config.toml").write_text("")
    p = Path("config.toml")
    p = tmp_path / "config.toml"
    p.write_text("")
    monkeypatch.chdir(tmp_path)


def test_parameter(path):
    open(path, "w")
    for name in ["config.toml"]:
        pass
    name.upper()
