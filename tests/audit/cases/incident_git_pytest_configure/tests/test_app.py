# https://github.com/lbedner/aegis-stack/issues/1065
# pytest_configure rewrote ~/.gitconfig with a test identity on every run.
def test_app():
    assert True
