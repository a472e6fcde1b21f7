# audit-args: --format junit
# JUnit XML of a clean audit: one passing testcase, so a CI server shows a result.
def test_clean(tmp_path):
    open(tmp_path / "out.log", "w")
