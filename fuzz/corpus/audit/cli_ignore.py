# audit-args: --ignore TF104,TF105
import tempfile


def test_ignore():
    open("config.toml", "w")
    tempfile.mkdtemp()
    "tests/artifacts/x"
