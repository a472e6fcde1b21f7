# audit-args: --statistics
# --statistics (issue 29): the count of each rule's findings, the most frequent first, as ruff
# prints them; suppressed findings do not count.
def test_statistics():
    open("config.toml", "w")
    open("a.log", "w")
    open("b.log", "w")
    open("c.log", "w")  # noqa: TF106
    open("/tmp/fixed.log", "w")
