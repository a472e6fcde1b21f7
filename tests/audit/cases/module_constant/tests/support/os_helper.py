import os

TESTFN = "@test_{}_tmp".format(os.getpid())
DATA_DIR = os.path.join(os.path.dirname(__file__), "data")
