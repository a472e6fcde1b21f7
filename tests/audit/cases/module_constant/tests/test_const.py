import os

from support import os_helper
from support.os_helper import DATA_DIR, TESTFN


def test_testfn():
    with open(TESTFN, "w") as f:  # TF106: a relative name in the working directory
        f.write("x")
    os.remove(os_helper.TESTFN)  # TF106
    open(os.path.join(DATA_DIR, "out.bin"), "wb")  # fine: under tests/
