# A relative path whose destination is outside the project is not called a "relative path
# outside tests/" (issue 29): the message names where it lands and the path as written.
import os
from pathlib import Path


def test_chdir_elsewhere():
    os.chdir("/srv/data")
    open("out.txt", "w")
    Path("e.txt").write_text("x")


def test_climbs_out_of_the_root():
    with open("../outside.txt", "w"):
        pass


def test_cwd_joined():
    os.chdir("/srv/data")
    open(os.path.join(os.getcwd(), "c.txt"), "w")


def test_inside_the_root():
    open("c.txt", "w")
