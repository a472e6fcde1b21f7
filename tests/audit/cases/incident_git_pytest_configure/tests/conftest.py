# https://github.com/lbedner/aegis-stack/issues/1065
# pytest_configure rewrote ~/.gitconfig with a test identity on every run.
import subprocess


def pytest_configure(config):
    subprocess.run(["git", "config", "--global", "user.name", "CI Bot"], capture_output=True)
