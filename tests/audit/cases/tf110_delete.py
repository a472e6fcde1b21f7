# TF110: deleting the project root, a directory that holds the test, or the working directory
# (issue 29). A known name under the root stays TF106; a fixture's path is not judged.
import os
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def test_parents():
    shutil.rmtree(HERE)  # TF110 error: tests/ itself
    shutil.rmtree(ROOT)  # TF110 error: the root
    shutil.rmtree(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # TF110 error


def test_cwd(name):
    shutil.rmtree(os.getcwd())  # TF110 error: the root is the working directory
    shutil.rmtree(Path.cwd() / name)  # TF110 warning: an empty name is the cwd itself
    shutil.rmtree("build")  # TF106: a known name under the root
    os.system("rm -rf .")  # TF110 error, from a shell command


def test_fixture_path(tmp_path):
    shutil.rmtree(tmp_path)  # fine
