def test_multiline():
    with open(
        "config.toml",
        mode="w",
    ) as fh:
        fh.write("")
    text = (
        "manual_slop.toml"
    )
    open(text,
         "a")
