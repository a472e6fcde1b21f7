import pytest


def test_requests_in_tmp(in_tmp):
    open("out.log", "w")  # fine: the fixture changed to tmp_path


def test_pytester(project):
    open("setup.cfg", "w")  # fine: pytester's own directory


def test_testdir(testdir):
    open("pyproject.toml", "w")  # fine


@pytest.mark.usefixtures("in_tmp")
def test_usefixtures():
    open("x.log", "w")  # fine


def test_home_fixture_does_not_move(home_dir):
    open("report.txt", "w")  # TF106: this fixture does not change directory


def test_no_fixture():
    open("config.toml", "w")  # TF101


class TestClass:
    @pytest.fixture(autouse=True)
    def _go(self, tmp_path, monkeypatch):
        monkeypatch.chdir(tmp_path)

    def test_in_class(self):
        open("class.log", "w")  # fine: the class's autouse fixture
