def test_ok():
    open("output.log", "w")


def test_broken(:
    pass


def test_after_error():
    open("after.log", "w")
