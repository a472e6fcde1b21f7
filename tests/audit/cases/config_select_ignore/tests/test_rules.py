import os


def test_rules():
    open("config.toml", "w")  # TF101: selected
    open("/tmp/fixed.log", "w")  # TF104: ignored by the config
    os.makedirs("tests/artifacts/run")  # TF105: selected by the prefix TF1
    open("out.log", "w")  # TF106: selected
