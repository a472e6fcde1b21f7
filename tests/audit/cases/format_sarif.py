# audit-args: --format sarif --strict
def test_sarif():
    open("config.toml", "w")
    open("/tmp/scratch.txt", "w")  # testfence: ignore[TF104]
    open("/etc/app.conf", "w")
