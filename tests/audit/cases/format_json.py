# audit-args: --format json
import shelve


def test_json():
    open("config.toml", "w")
    open("/tmp/scratch.txt", "w")  # testfence: ignore[TF104]
    open("caf\u00e9 \"quoted\".txt", "w")
    shelve.open("/tmp/cache.db")
