# https://github.com/roddhjav/pass-update/pull/34
# The tests kept overwriting the contributor's git config settings.
import shlex
import subprocess


def test_update_commits():
    subprocess.run(shlex.split("git config --global user.email pass@example.invalid"))
