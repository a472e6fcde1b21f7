# https://github.com/weecology/retriever/pull/634
# Tests copied raw data to the project root and removed it with os.system('rm -r ...').
import os


def teardown_module(module):
    os.system("rm -r raw_data")


def test_download():
    assert True
