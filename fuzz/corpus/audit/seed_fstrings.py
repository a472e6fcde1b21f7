open(f"tests/artifacts/{a!r:>{w}}/{b}", "w")
open(rb"C:\x\y", mode="w" "b")
open("\x41\u00e9\U0001F600\N{BULLET}", "w")
