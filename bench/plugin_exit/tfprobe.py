"""A pytest plugin that stamps the phases of the pytest it is loaded into (-p tfprobe, first):
its exit handler, registered at import, runs last of all and writes the stamps to fd 2 as one
line (no file: it works in a fenced pytest). Loaded by bench/plugin_exit.py.
"""

import atexit
import os
import time

import pytest

_T0 = time.perf_counter()
_marks = [("import", _T0)]


def _mark(name):
    _marks.append((name, time.perf_counter()))


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_load_initial_conftests(early_config, parser, args):
    _mark("start")  # the plugins named after this one are imported by now
    yield
    _mark("fenced")  # testfence's start is a wrapper of this hook


@pytest.hookimpl(hookwrapper=True)
def pytest_runtestloop(session):
    _mark("collected")
    yield
    _mark("tested")


def _last():
    _mark("exit")
    os.write(2, ("TFPROBE %s\n" % " ".join("%s=%.6f" % m for m in _marks)).encode())


atexit.register(_last)  # the first registered: the last to run
