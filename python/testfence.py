"""testfence for plain `pytest`: the test process fences itself (Landlock, through
libtestfence.so), so no test can write outside the project's tests/.

Enable it in pyproject.toml with ``addopts = "-p testfence"`` under
``[tool.pytest.ini_options]``, or install it (``make install``) and pytest loads it
through its ``pytest11`` entry point. ``--testfence=off`` runs unfenced, loudly.
See docs/plugin.md. Standard library only.

The plugin's code is in the package _testfence: pytest parses and compiles every module it loads as
a plugin again, for its assertion rewriting, at each start where bytecode is not written
(PYTHONDONTWRITEBYTECODE, a read-only site-packages), some 12 ms for the whole plugin; this
module only hands pytest its hooks.
"""

import sys


def _not_rewritten(package):
    """Installed (a dist-info whose RECORD lists _testfence/__init__.py, and a pytest11 entry
    point), the package is marked for assertion rewriting too: with autoload on, pytest marks
    every top-level package of each plugin distribution. Each of its modules is then parsed
    and compiled from source at every start where the rewritten bytecode is not written (see
    above; and the plugin writes none from its load until the fence is up: state.py): 20-30 ms
    a start. It holds no test and no assert to rewrite, so it is taken out of the marked names
    before it is imported. pytest has no public call for that: where its hook has no such set,
    nothing changes."""
    for hook in sys.meta_path:
        marked = getattr(hook, "_must_rewrite", None)
        if isinstance(marked, set) and package in marked:
            marked.discard(package)
            cache = getattr(hook, "_marked_for_rewrite_cache", None)
            if isinstance(cache, dict):
                cache.clear()


_not_rewritten("_testfence")

from _testfence.hooks import *  # noqa: E402,F401,F403 (the pytest_* hooks)
