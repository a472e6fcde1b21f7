# tests/unit/test_c.py
import os


def test_writes():
    open("config.toml", "w")
    open("/tmp/fixed.log", "w")
    open("out.log", "w")
