import os

import pytest


@pytest.fixture
def workdir():
    return os.environ.get("NOTES_WORKDIR")  # None when the variable is not set


@pytest.fixture
def scratch(tmp_path):
    return tmp_path
