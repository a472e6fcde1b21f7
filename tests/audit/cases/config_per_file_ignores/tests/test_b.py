# tests/test_b.py
import os


def test_writes():
    open("config.toml", "w")
    open("/tmp/fixed.log", "w")
    open("out.log", "w")
