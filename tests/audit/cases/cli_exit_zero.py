# audit-args: --exit-zero
# --exit-zero (issue 29): the findings are printed, the status is 0.
def test_exit_zero():
    open("config.toml", "w")
