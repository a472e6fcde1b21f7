def test_open_modes():
    open("credentials.toml", "w")
    open("config.toml", "a")
    open("presets.toml", "x")
    open("personas.toml", "r+")
    open("manual_slop.toml", mode="wb")
    open(file="tool_presets.toml", mode="at")
    with open("manual_slop_history.toml", "w", encoding="utf-8") as f:
        f.write("")
