# https://github.com/cristibalan/braid/pull/103
# The suite set init.defaultBranch globally on the developer's machine.
import os


def setup_module(module):
    os.system("git config --global init.defaultBranch master")


def test_clone():
    assert True
