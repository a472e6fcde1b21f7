import os
from pathlib import Path

from helpers import cwd, make_files, only_in_tmp
from test.support import os_helper

ROOT = Path(__file__).resolve().parent.parent


def test_in_tmp(tmp_path):
    with cwd(tmp_path):
        make_files()
        only_in_tmp()
        open("inside.txt", "w")  # fine


def test_root_call():
    make_files()


def test_after_block(tmp_path):
    with cwd(tmp_path):
        pass
    open("after.txt", "w")  # TF106: the block has ended


def test_library_helpers(tmp_path):
    with os_helper.change_cwd(tmp_path):
        open("lib.txt", "w")  # fine
    with os_helper.temp_cwd():
        open("lib2.txt", "w")  # fine


def test_chdir_root():
    os.chdir(ROOT)
    open("root.txt", "w")  # TF106: back at the root


def test_chdir_sub():
    os.chdir("sub")
    open("x.txt", "w")  # TF106: lands in sub/


def test_py_path(tmpdir):
    with tmpdir.as_cwd():
        open("py.txt", "w")  # fine
    tmpdir.chdir()
    open("py2.txt", "w")  # fine


def test_branch(tmp_path, flag):
    if flag:
        os.chdir(tmp_path)
    open("maybe.txt", "w")  # TF106 warning: maybe still at the root


def test_click(runner):
    with runner.isolated_filesystem():
        open("click.txt", "w")  # fine


if __name__ == "__main__":
    open("main.txt", "w")  # fine: never run by a test runner
