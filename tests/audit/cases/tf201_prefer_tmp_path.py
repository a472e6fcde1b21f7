# audit-args: --select TF201
import tempfile
from tempfile import NamedTemporaryFile, mkstemp
import tempfile as tf


def test_system_temp():
    tempfile.mkdtemp()
    mkstemp(suffix=".toml")
    tempfile.mktemp()
    with NamedTemporaryFile("w") as f:
        pass
    with tf.TemporaryDirectory() as d:
        pass
    tempfile.TemporaryFile()
    tempfile.SpooledTemporaryFile(100)
    tempfile.gettempdir()
    tempfile.mkdtemp(dir=None)


def test_with_dir(tmp_path):
    tempfile.mkdtemp(dir=tmp_path)
    tempfile.mkstemp(".x", "p", tmp_path)
