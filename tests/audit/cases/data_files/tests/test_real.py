from support import util


def test_uses_util():
    util.write_report()
