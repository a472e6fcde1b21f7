# https://github.com/radical-cybertools/radical.pilot/issues/3070
# test_session.py created a config file in the user's config directory.
import json
from pathlib import Path


def test_session_config():
    cfg = Path.home() / ".radical" / "pilot" / "configs" / "session_test.json"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(json.dumps({"x": 1}))
