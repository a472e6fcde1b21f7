def test_common_config_names():
    open(".env", "w")
    open("pyproject.toml", "w")
    open("settings.json", "w")
    open("not_a_config.txt", "w")
