# audit-args: --format junit
# JUnit XML (issue 29): a testsuite per file, a failed testcase per finding, pytest's classname
# for the file; markup and characters XML cannot hold are escaped.
def test_junit():
    open("config.toml", "w")
    open("a<b>&\"c\".log", "w")
    open("tab\there.log", "w")
    open("bell\x07.log", "w")
    open("/tmp/scratch.txt", "w")  # testfence: ignore[TF104]
