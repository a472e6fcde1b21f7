import logging
import pytest

log = logging.getLogger(__name__)


def test_messages():
    print('open("config.toml", "w")')
    print("writes go to tests/artifacts/run1")
    log.info("see tests/artifacts/report.html")
    code = 'Path("config.toml").write_text("x")'
    pytest.fail("tempfile.mkdtemp() is not allowed")
    raise ValueError("tests/artifacts/ missing")
