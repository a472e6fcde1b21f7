# https://github.com/CuriousLearner/django-keel/issues/26
# A session-scoped autouse fixture set the global git identity: every later commit of the user was the test's.
import subprocess

import pytest


@pytest.fixture(scope="session", autouse=True)
def git_identity():
    subprocess.run(["git", "config", "--global", "user.email", "t@example.invalid"], check=True)
    subprocess.run(["git", "config", "--global", "user.name", "Test Bot"], check=True)


def test_generate():
    assert True
