def test_multiline():
    open(
        "out.log",
        "w",
    )  # testfence: ignore[TF106]
    open("config.toml", "w")  # testfence: ignore
    open("b.log", "w")  # testfence:ignore[tf106]
