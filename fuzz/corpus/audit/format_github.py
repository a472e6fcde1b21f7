# audit-args: --format github
def test_github():
    open("config.toml", "w")
    open("a,b:c%.txt", "w")
