"""What a test is told: the records new since the last look, attributed to it, fail it;
the per-test hooks, registered only with the run this process fences or joined.
"""


import pytest

from .state import _state


def _new_for(nodeid):
    """The TEST_SANDBOX_VIOLATION lines of records new since the last look, for NODEID."""
    st = _state
    new = st.session.violations(st.seen)
    st.seen += len(new)
    lines = []
    for r in new:
        if r["test"] != nodeid:
            continue
        line = r["line"]
        fixture = st.fixture_of.get((nodeid, r["resolved"]))
        if fixture:
            line += " (in fixture %s)" % fixture
        lines.append(line)
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
        self.rescan = shim.testfence_shim_rescan if shim is not None else None
        self.count = session.lib.tf_violations_load  # a stat when the log is as it was
        self.h = session.h

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_finish(self, session):
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
            lines = _new_for(item.nodeid)
            if lines:
                _fail(outcome.get_result(), lines)
