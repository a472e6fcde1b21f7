# File-level suppression of some codes (issue 29): "# testfence: noqa: CODES" and ruff's own
# "# ruff: noqa: CODES" form. A bare "# ruff: noqa" is ruff's business and suppresses nothing.
# ruff: noqa
# ruff: noqa: F401, TF104
# testfence: noqa: TF106
def test_some_suppressed():
    open("config.toml", "w")
    open("/tmp/fixed.log", "w")
    open("out.log", "w")
