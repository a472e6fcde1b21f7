"""Where a small app keeps its settings, as the apps in these incidents did:
https://github.com/opsdroid/opsdroid/issues/325 (tox overwrote ~/.opsdroid/configuration.yaml)
https://github.com/VocaHQ/vocalinux/issues/693 (save_config() wrote the module-level CONFIG_FILE)
https://github.com/SwissDataScienceCenter/renku-python/pull/657 (tests overwrote renku's config)
"""
import os
from pathlib import Path

CONFIG_DIR = Path.home() / ".notes"  # HOME read once, when the module is imported
CONFIG_FILE = CONFIG_DIR / "config.yaml"
PROJECT_FILE = Path(__file__).resolve().parents[2] / "config.toml"


def save_config(text, path=CONFIG_FILE):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def save_project(text, path=None):
    path = path or PROJECT_FILE
    with open(path, "w") as f:
        f.write(text)


def save_user(text, path=None):
    if path is None:
        path = os.path.expanduser("~/.notes/user.yaml")  # HOME read at each call
    with open(path, "w") as f:
        f.write(text)


def load_config(path=CONFIG_FILE):
    with open(path) as f:
        return f.read()


class Notes:
    def __init__(self, config_path=None):
        self.config_path = Path(config_path or CONFIG_FILE)

    def save(self):
        self.config_path.write_text("{}")
