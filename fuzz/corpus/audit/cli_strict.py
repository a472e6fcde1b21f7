# audit-args: --strict
def test_strict():
    open("config.toml", "w")
