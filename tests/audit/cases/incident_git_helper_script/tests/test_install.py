# https://github.com/crenv/crenv/pull/41
# Running the tests overwrote the user's global git configuration from a helper script.
import subprocess


def test_install():
    subprocess.run("./test/helper.sh", shell=True, check=True)
