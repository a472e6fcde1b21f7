# audit-args: --select TF104
def test_select():
    open("config.toml", "w")
    open("/tmp/fixed.log", "w")
