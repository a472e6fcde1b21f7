"""Module docstring: open("config.toml", "w") and tempfile.mkdtemp()."""
import tempfile


def test_documented():
    """Never do Path("config.toml").write_text() or open("/home/x", "w")."""
    # open("config.toml", "w")
    # tempfile.mkdtemp()
    x = 1  # shutil.rmtree("cache")
    """
    A bare string: Path("tests/artifacts/x").write_text("")
    """


class TestDoc:
    """tests/artifacts/ is managed by the runner."""
