from pathlib import Path

CONFIG = Path("config.toml")


def test_local_variable():
    p = Path("manual_slop.toml")
    data = "x"
    p.write_text(data)


def test_module_constant():
    CONFIG.write_text("y")


def test_string_then_path():
    name = "credentials.toml"
    target = Path(name)
    target.unlink()


def test_walrus_and_self(self):
    if (q := Path("presets.toml")):
        q.write_text("")
    self.path = Path("personas.toml")
    self.path.write_text("")
