open("regen.out", "w")  # a maintenance script no test imports
