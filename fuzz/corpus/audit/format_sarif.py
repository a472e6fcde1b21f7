# audit-args: --format sarif --strict
import tempfile


def test_sarif():
    open("config.toml", "w")
    tempfile.mkdtemp()  # testfence: ignore[TF104]
