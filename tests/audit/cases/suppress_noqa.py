# flake8/ruff's "# noqa" on a line (issue 29): bare, with codes in any case and spacing, after
# another directive; codes of other linters, an empty list and a noqa on the line above do not
# suppress.
def test_noqa():
    open("config.toml", "w")  # noqa
    open("config.toml", "w")  # noqa: TF101
    open("config.toml", "w")  # NOQA:TF101,TF104
    open("/tmp/fixed.log", "w")  # noqa: E501 TF104 reason: a shared name on purpose
    open("config.toml", "w")  # type: ignore  # noqa: TF101
    open(
        "out.log",
        "w",
    )  # noqa: TF106
    open("config.toml", "w")  # noqa: E501
    open("config.toml", "w")  # noqa:
    open("out.log", "w")  # noqa: TF101
    # noqa: TF106
    open("above.log", "w")
