# https://github.com/akheron/jansson/issues/71
# run-tests.sh deleted / when its variables were not set (suite_log=$logdir/$suite_name; rm -rf $suite_log).
import subprocess


def test_valid_suite():
    subprocess.run(["sh", "tests/run-suite.sh"], check=True)
