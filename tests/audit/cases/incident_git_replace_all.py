# https://github.com/rbenv/rbenv/issues/741
# A test's setup set the global user name and e-mail; the reporter's identity became 'Tester'.
import subprocess


def setup_function(function):
    subprocess.run(["git", "config", "--global", "--replace-all", "user.name", "Tester"])


def test_version():
    assert True
