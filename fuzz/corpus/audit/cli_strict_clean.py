# audit-args: --strict
def test_strict_clean(tmp_path):
    open(tmp_path / "config.toml", "w")
    open("config.toml", "w")  # testfence: ignore[TF101]
