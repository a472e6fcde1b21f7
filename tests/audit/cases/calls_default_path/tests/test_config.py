# The project's own code called with its default path: the finding is at the test's call.
from unittest import mock

import notes
from notes.config import Notes, load_config, save_project, save_user


def test_save_default():
    notes.save_config("theme: dark")  # TF103: ~/.notes/config.yaml, the default of path


def test_save_tmp(tmp_path):
    notes.save_config("theme: dark", tmp_path / "config.yaml")  # fine


def test_save_project():
    save_project("x = 1")  # TF101: <root>/config.toml, the fallback of path


def test_user():
    save_user("a: 1")  # TF103: ~/.notes/user.yaml


def test_user_home_redirected(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    save_user("a: 1")  # fine: HOME is read at the call


def test_import_time_home(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    notes.save_config("x")  # TF103: CONFIG_FILE was made when notes was imported


def test_app():
    Notes().save()  # TF103: the fallback of config_path


def test_app_tmp(tmp_path):
    Notes(tmp_path / "config.yaml").save()  # fine


def test_load():
    load_config()  # fine: a read


@mock.patch("notes.config.save_config")
def test_patched(save):
    notes.save_config("x")  # not followed: the test replaced code
