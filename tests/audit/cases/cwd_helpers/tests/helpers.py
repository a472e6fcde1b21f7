import contextlib
import os


@contextlib.contextmanager
def cwd(path):
    old = os.getcwd()
    os.chdir(path)
    try:
        yield path
    finally:
        os.chdir(old)


def make_files():
    open("data.txt", "w")  # TF106: test_root_call calls it at the root


def only_in_tmp():
    open("only.txt", "w")  # fine: every caller is inside cwd(tmp_path)
