from pathlib import Path


def test_suppressed():
    Path("config.toml").write_text("")  # testfence: ignore[TF101]
    open("out.log", "w")  # testfence: ignore[TF106] -- legacy, see #12
    open("out2.log", "w")  # testfence: ignore[TF101]
