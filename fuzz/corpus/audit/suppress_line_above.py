import tempfile


def test_suppressed_above():
    # testfence: ignore[TF104]
    tempfile.mkdtemp()
    tempfile.mkdtemp()
    # testfence: ignore[TF104, TF106]
    open("out.log", "w")
