"""The app under test reads the run workspace's placeholders, never the user's files."""
import os
import sys
from pathlib import Path

import pytest

from slop import paths

TOP_LEVEL = {p.name for p in paths.ROOT.glob("*.toml")}


@pytest.fixture
def opened_paths():
    """Every path the interpreter opens while the test runs (audit hook)."""
    seen = []
    active = [True]

    def hook(event, args):
        if active[0] and event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
            seen.append(Path(os.fsdecode(args[0])).resolve())

    sys.addaudithook(hook)  # hooks cannot be removed; switch it off instead
    yield seen
    active[0] = False


def test_app_reads_placeholders_not_the_real_files(opened_paths):
    workspace = os.environ.get("TESTFENCE_WORKSPACE")
    if workspace is None:
        pytest.skip("run under testfence: the placeholders come from [tool.testfence]")
    data = paths.load_all()
    assert data["credentials"] == {"api_key": "placeholder"}
    assert data["personas"] == {"default": "placeholder"}
    for kind in paths._FILES:
        assert paths.path_of(kind).parent == Path(workspace), kind
    real = [p for p in opened_paths if p.parent == paths.ROOT and p.name in TOP_LEVEL]
    assert real == [], f"the app read the user's own files: {real}"
    assert len(opened_paths) >= 6
