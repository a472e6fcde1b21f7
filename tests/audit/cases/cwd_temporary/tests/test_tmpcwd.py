import os
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_relative():
    open("out.log", "w")  # fine: the runner gives each test a temporary directory


def test_back_to_root():
    os.chdir(ROOT)
    open("out.log", "w")  # TF106: the test changed to the root
    open(os.path.expanduser("~/.myapprc"), "w")  # TF103: HOME
