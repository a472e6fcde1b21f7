# Issue 29: what TF108, TF109 and TF110 must not report: git's configuration redirected or
# only read, git config in a repository the test made, guarded or loop shell variables, a
# find filter, deletions of what the test made.
import os
import shutil
import subprocess

import pytest


@pytest.fixture
def git_home(monkeypatch, tmp_path):
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))


def test_global_redirected(git_home):
    subprocess.run(["git", "config", "--global", "user.name", "T"])


def test_home_and_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / ".config"))
    subprocess.run(["git", "config", "--global", "user.name", "T"])


def test_env_dicts(tmp_path):
    env = os.environ.copy()
    env["GIT_CONFIG_GLOBAL"] = str(tmp_path / "g")
    subprocess.run(["git", "config", "--global", "user.name", "T"], env=env)
    subprocess.run("git config --global user.name T", shell=True, env={"PATH": "/usr/bin"})
    subprocess.run("GIT_CONFIG_GLOBAL=/dev/null git config --global a.b c", shell=True)
    os.environ["GIT_CONFIG_SYSTEM"] = str(tmp_path / "s")
    subprocess.run(["git", "config", "--system", "core.x", "y"])


def test_reads():
    subprocess.run(["git", "config", "--global", "--get", "user.name"])
    subprocess.run(["git", "config", "--global", "user.name"])
    subprocess.run(["git", "config", "--list"])
    subprocess.run(["git", "config", "get", "user.email"])
    subprocess.run(["python3", "-c", "import sys; print('>', file=sys.stderr)"])


def test_repo_the_test_made(tmp_path, monkeypatch):
    subprocess.run(["git", "init", str(tmp_path)])
    subprocess.run(["git", "-C", str(tmp_path), "config", "user.name", "T"])
    subprocess.run(["git", "config", "user.name", "T"], cwd=tmp_path)
    monkeypatch.chdir(tmp_path)
    subprocess.run(["git", "config", "user.email", "t@x"])


def test_shell_guarded():
    subprocess.run(["bash", "-c", 'rm -rf "${BUILD_DIR:?}"/*'])
    subprocess.run("rm -rf $TMPDIR/cache", shell=True)
    subprocess.run("for d in a b; do rm -rf \"$d\"/*; done", shell=True)
    subprocess.run("find . -name '*.pyc' -delete", shell=True)
    subprocess.run("rm -rf \"$OUT\"", shell=True)  # empty: rm -rf "" deletes nothing


def test_deletes_what_it_made(tmp_path, name):
    made = tmp_path / "made"
    made.mkdir()
    shutil.rmtree(made)
    shutil.rmtree(tmp_path / name)
    shutil.rmtree(os.path.join(os.path.dirname(__file__), "fixtures", "out"))


def test_tmp_cwd(tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    shutil.rmtree(os.path.join(os.getcwd(), name))
    shutil.rmtree(os.getcwd())
