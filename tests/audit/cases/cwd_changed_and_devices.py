import os
from pathlib import Path


def test_monkeypatch_chdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    open("config.toml", "w")
    Path("out.log").write_text("")
    open("/etc/app.conf", "w")


def test_change_cwd(d):
    with os_helper.change_cwd(d):
        open("x.txt", "w")


def test_cwd_not_changed():
    open("y.txt", "w")


def test_dir_fd_and_devices(fd):
    os.mkdir("sub", dir_fd=fd)
    os.replace("a", "b", src_dir_fd=fd, dst_dir_fd=fd)
    open("NUL", "w")
    open("//./conout$", "wb")
