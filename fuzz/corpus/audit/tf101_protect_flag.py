# audit-args: --protect history.db --protect .secrets
def test_protected_by_flag():
    open("history.db", "wb")
    open(".secrets", "w")
    open("other.db", "wb")
