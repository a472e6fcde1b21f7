def test_suppressed_above():
    # testfence: ignore[TF104]
    open("/tmp/a.log", "w")
    open("/tmp/b.log", "w")
    # testfence: ignore[TF104, TF106]
    open("out.log", "w")
