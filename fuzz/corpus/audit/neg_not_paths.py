def test_string_methods(s):
    "config.toml".replace("a", "b")
    s.replace("config.toml", "x")
    name = "config.toml"
    name.rename("x")
    d = {"config.toml": 1}
    d.update(open="w")
    obj.write_text("config.toml")
