"""testfence for plain `pytest`: the test process fences itself (Landlock, through
libtestfence.so), so no test can write outside the project's tests/.

Enable it in pyproject.toml with ``addopts = "-p testfence"`` under
``[tool.pytest.ini_options]``, or install it (``make install``) and pytest loads it
through its ``pytest11`` entry point. ``--testfence=off`` runs unfenced, loudly.
See docs/plugin.md. Standard library only.

The plugin's code, loaded through testfence.py (which hands pytest the hooks of
hooks.py), split along its seams:

    native     libtestfence.so and the shim: the calls, the constants, FenceError, through
               the compiled _native.abi3.so (src/pyext/) where it is built, else ctbinding
    ctbinding  the same calls through ctypes
    state      what this process's plugin knows about its run
    startup    fence this pytest, join its run or stand aside; the shim; at exit
    audithook  which test tried a write blocked in this process; metadata refused; under
               the python backend, every write outside refused
    pypolicy   the python backend's verdict on a path, with POSIX, macOS and Windows rules
    pyback     the python backend's pieces a child Python needs too (childguard/)
    report     records attributed to tests and failing them; the per-test hooks
    hooks      the pytest hooks

PYTEST_DONT_REWRITE: pytest's assertion rewriting leaves the package alone (testfence.py
takes it out of the names an installed plugin's distribution marks), and a pytest started
inside a test, which marks it again, does not warn that it was imported already.
"""
