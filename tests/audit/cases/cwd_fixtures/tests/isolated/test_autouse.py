def test_writes_in_tmp():
    open("out.log", "w")  # fine: the autouse fixture of this directory moved to tmp_path
