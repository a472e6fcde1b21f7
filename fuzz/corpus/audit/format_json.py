# audit-args: --format json
import tempfile


def test_json():
    open("config.toml", "w")
    tempfile.mkdtemp()  # testfence: ignore[TF104]
    open("caf\u00e9 \"quoted\".txt", "w")
