# https://github.com/CompSciLauren/awesome-git-hooks/issues/31
# A test set user.name/user.email with git config --local in the project's own repository.
import subprocess


def test_incorrect_name_rejected():
    subprocess.run(["git", "config", "--local", "user.name", "Someone Else"], check=True)
