from pathlib import Path

from helpers import build_in, clean, clean_below, reset, working_dir

ROOT = Path(__file__).resolve().parents[1]


def test_clean_root():
    clean(Path(__file__).parents[1])  # TF102: the project root itself


def test_clean_data():
    clean(ROOT / "data")  # TF102


def test_clean_tmp(tmp_path):
    clean(tmp_path)  # fine


def test_clean_below():
    clean_below(ROOT)  # TF102: two calls deep, ROOT/out


def test_reset_env(workdir):
    reset(workdir)  # TF106 warning: the working directory when NOTES_WORKDIR is unset


def test_reset_scratch(scratch):
    reset(scratch)  # fine: never None


def test_build_env(workdir):
    build_in(workdir)  # fine: a None path raises before anything is written


def test_changer_clean():
    with working_dir(ROOT / "build", clean=True):  # TF102: removed on the way out
        pass


def test_changer_keep():
    with working_dir(ROOT / "build"):  # fine: clean is False
        pass
