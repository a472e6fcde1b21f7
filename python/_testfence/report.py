"""What a test is told: the records new since the last look, attributed to it, fail it;
the per-test hooks, registered only with the run this process fences or joined.
"""

import os

import pytest

from .state import _state


_NESTED = (" (named no test of this session: made while this test ran, by a pytest it "
           "started or a process it left)")


def _made_during(r):
    """Was record R, new after a test's phase, made by that test though it names none of this
    session's tests? A pytest the test started (pytester, a subprocess) names its own tests or,
    at its start and end, none. A pytest-xdist worker shares the log with the others, so
    there only its own process's records count."""
    st = _state
    if r["test"] in st.items:
        return False
    return not st.xdist_worker or r["pid"] == os.getpid()


def _new_for(nodeid, phase=False):
    """The TEST_SANDBOX_VIOLATION lines of records new since the last look, for NODEID; with
    PHASE (after a test's phase), also those _made_during it."""
    st = _state
    new = st.session.violations(st.seen)
    st.seen += len(new)
    lines = []
    for r in new:
        if r["test"] == nodeid:
            line = r["line"]
            fixture = st.fixture_of.get((nodeid, r["resolved"]))
            if fixture:
                line += " (in fixture %s)" % fixture
            lines.append(line)
        elif phase and _made_during(r):
            lines.append(r["line"] + _NESTED)
    return lines


def _fail(rep, lines):
    text = "\n".join(lines)
    if rep.failed:
        rep.sections.append(("testfence: blocked writes", text))
        return
    rep.outcome = "failed"
    rep.longrepr = text
    if hasattr(rep, "wasxfail"):
        del rep.wasxfail  # a blocked write is not the expected failure


class _PerTest:
    """The hooks run for every test, registered only with the pytest run this process fences
    or joined (not with a pytester run inside it, nor when the plugin stands aside): each
    costs every test of the suite, so there are as few as can do the work, doing as little
    (bench/plugin_pertest.py counts it)."""

    def __init__(self, session, shim):
        self.rescan = shim.rescan if shim is not None else None
        self.count = session.lib.tf_violations_load  # a stat when the log is as it was
        self.h = session.h

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_finish(self, session):
        _state.items = frozenset(item.nodeid for item in session.items)
        _state.xdist_worker = hasattr(session.config, "workerinput")
        # What start-up made (pytest_configure, a session fixture's import) is no test's: it
        # is past before the first test's phase, which would otherwise take it (_made_during).
        _state.seen += len(_state.session.violations(_state.seen))
        if self.rescan:
            self.rescan()  # what collection loaded, before the first test runs

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        # After each phase, before the next: what the phase loaded that the shim's own
        # dlopen did not see (a library's own loader) is patched before the next one runs.
        if self.rescan:
            self.rescan()
        outcome = yield
        if self.count(self.h) != _state.seen:  # new records (or an error: _new_for says it)
            lines = _new_for(item.nodeid, phase=True)
            if lines:
                _fail(outcome.get_result(), lines)
