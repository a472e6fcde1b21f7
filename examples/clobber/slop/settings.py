"""The app's settings: read and written as TOML-ish key = value lines."""
from pathlib import Path


def save(path, values):
    lines = [f'{key} = "{value}"' for key, value in values.items()]
    Path(path).write_text("\n".join(lines) + "\n")


def load(path):
    values = {}
    for line in Path(path).read_text().splitlines():
        if "=" in line and not line.lstrip().startswith(("#", "[")):
            key, value = line.split("=", 1)
            values[key.strip()] = value.strip().strip('"')
    return values
