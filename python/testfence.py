"""testfence for plain `pytest`: the test process fences itself (Landlock, through
libtestfence.so with ctypes), so no test can write outside the project's tests/.

Enable it in pyproject.toml with ``addopts = "-p testfence"`` under
``[tool.pytest.ini_options]``, or install it (``make install``) and pytest loads it
through its ``pytest11`` entry point. ``--testfence=off`` runs unfenced, loudly.
See docs/plugin.md. Standard library only.

The plugin's code is in the package _testfence: pytest parses and compiles every module it loads as
a plugin again, for its assertion rewriting, at each start where bytecode is not written
(PYTHONDONTWRITEBYTECODE, a read-only site-packages), some 12 ms for the whole plugin; this
module only hands pytest its hooks.
"""

from _testfence.hooks import *  # noqa: F401,F403 (the pytest_* hooks)
