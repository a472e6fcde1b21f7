import tempfile


def test_dir_outside_tests(tmp_path):
    tempfile.mkdtemp(dir="/tmp")
    tempfile.mkstemp(".x", "p", "/var/tmp")
    tempfile.mkdtemp(dir="tests/scratch")
    tempfile.mkdtemp(dir=tmp_path)
    tempfile.NamedTemporaryFile(dir=str(tmp_path))
