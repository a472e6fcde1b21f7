"""Helpers that take the path to remove from their caller: the deletion happens here,
the path comes from the test (the issue's "a path that arrives as a parameter")."""
import os
import shutil
from contextlib import contextmanager
from pathlib import Path


def clean(d):
    shutil.rmtree(d)


def clean_below(d):
    clean(d / "out")


def reset(d=None):
    shutil.rmtree(Path(d or "."))  # None or "": the working directory


def build_in(d):
    os.makedirs(os.path.join(d, "build"))  # os.path.join(None, ...) raises: nothing written


@contextmanager
def working_dir(path, clean=False):
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)
        if clean:
            shutil.rmtree(path)
