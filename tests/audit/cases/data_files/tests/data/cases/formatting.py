# A formatter's input: never imported, never run.
open("config.toml", "w")
def broken(:
    pass
