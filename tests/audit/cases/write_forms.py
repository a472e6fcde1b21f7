import dbm
import logging
import os
import shelve
import sqlite3
import subprocess
import sys
import tarfile
import zipfile
from logging.handlers import RotatingFileHandler

LOG = "suite.log"


class TestForms:
    OUT = "forms.out"

    def test_logging(self):
        logging.basicConfig(filename="test.log", level=logging.DEBUG)
        logging.FileHandler(LOG)
        RotatingFileHandler("rot.log")

    def test_archives_and_databases(self):
        zipfile.ZipFile("out.zip", "w")
        zipfile.ZipFile("in.zip")  # read: fine
        tarfile.open("out.tar.gz", "w:gz")
        tarfile.open("in.tar")  # read: fine
        shelve.open("shelf")
        dbm.open("cache.db", "c")
        dbm.open("cache.db")  # read: fine
        sqlite3.connect("app.sqlite")
        sqlite3.connect(":memory:")  # fine

    def test_shell(self):
        subprocess.run("echo hi > shell.txt", shell=True)
        os.system("make >> build.log 2>&1")
        subprocess.run(["sh", "-c", "date > date.txt"])
        subprocess.run("echo hi > /dev/null", shell=True)  # fine
        subprocess.run("echo hi 2>&1", shell=True)  # fine
        subprocess.run(["echo", ">", "not-a-redirect"])  # fine: no shell

    def test_constants_and_fstrings(self, name):
        open(self.OUT, "w")
        open(f"out_{name}.log", "w")
        open("result_%s.csv" % name, "w")
        open("data_{}.json".format(name), "w")
        open(f"{name}", "w")  # fine: could be anywhere

    def test_bytecode(self):
        env = dict(os.environ)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run([sys.executable, "-c", "import app"], env=env)
        subprocess.run([sys.executable, "-B", "-c", "import app"], env=env)  # fine: -B

    def test_bytecode_monkeypatch(self, monkeypatch):
        monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
        subprocess.check_call([sys.executable, "-m", "app"])
