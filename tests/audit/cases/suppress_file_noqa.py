# A file-level "# testfence: noqa" (issue 29): every finding of the file is suppressed,
# wherever the comment stands, and still counted on stderr.
import os


def test_everything_suppressed():
    open("config.toml", "w")
    open("/tmp/fixed.log", "w")
    os.remove("out.log")

# testfence: noqa
