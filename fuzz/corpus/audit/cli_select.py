# audit-args: --select TF104
import tempfile


def test_select():
    open("config.toml", "w")
    tempfile.mkdtemp()
