"""Tests in the spirit of the original bug report: some are careless."""
import os
import subprocess
import tempfile
from pathlib import Path

from slop import settings

ROOT = Path(__file__).resolve().parent.parent


# --- careless tests: each one would overwrite a file the user owns ---------

def test_save_overwrites_manual_slop_with_open():
    with open("manual_slop.toml", "w") as f:  # relative to the project root
        f.write("[project]\nname = 'test fixture'\n")


def test_save_through_path_write_text():
    settings.save(ROOT / "config.toml", {"theme": "light"})


def test_shell_helper_clobbers_config():
    subprocess.run(["sh", "-c", "echo x > ../config.toml"], cwd=ROOT / "tests", check=True)


def test_credentials_reset():
    (ROOT / "credentials.toml").write_text("")


def test_scratch_in_mkdtemp():
    # Without testfence this lands in the system temp dir; under it, in tests/artifacts/.
    scratch = Path(tempfile.mkdtemp())
    (scratch / "settings.toml").write_text('theme = "scratch"\n')
    print(f"mkdtemp() gave {scratch}")
    assert scratch.exists()


# --- well-behaved tests ----------------------------------------------------

def test_roundtrip_in_tmp_path(tmp_path):
    path = tmp_path / "config.toml"
    settings.save(path, {"theme": "light", "font_size": "12"})
    assert settings.load(path) == {"theme": "light", "font_size": "12"}


def test_reads_real_config_without_writing():
    assert settings.load(ROOT / "config.toml")["theme"] == "dark"


def test_workspace_is_available():
    workspace = os.environ.get("TESTFENCE_WORKSPACE")
    if workspace is None:
        return  # running without testfence
    marker = Path(workspace) / "notes.txt"
    marker.write_text("written inside the run workspace\n")
    assert "tests/artifacts/_isolation_workspace_" in workspace
