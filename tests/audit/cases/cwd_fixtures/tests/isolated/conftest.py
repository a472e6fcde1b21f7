import os

import pytest


@pytest.fixture(autouse=True)
def _chdir_tmp(tmp_path):
    old = os.getcwd()
    os.chdir(tmp_path)
    yield
    os.chdir(old)
