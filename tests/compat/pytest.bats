#!/usr/bin/env bats
# pytest inside pytest (pytester, in-process and in a subprocess) behaves as bare, a second
# run works like the first, and pytest-benchmark's storage is harmless.

load compat

setup() {
    compat_project
    # The project's own pytest configuration: inner sessions must not find it.
    cat >pyproject.toml <<'TOML'
[tool.pytest.ini_options]
addopts = "-p pytester -ra"
filterwarnings = ["error"]
testpaths = ["tests"]
TOML
    cat >tests/test_nested.py <<'PY'
import os
import subprocess
import sys


def test_inprocess(pytester):
    pytester.makepyfile("def test_inner(): pass")
    pytester.makeconftest("")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["rootdir: %s" % pytester.path])
    assert "configfile" not in result.stdout.str()


def test_subprocess(pytester):
    pytester.makepyfile("def test_inner(): pass")
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["rootdir: %s" % pytester.path])


def test_plain_subprocess(tmp_path):
    # A pytest a test starts itself, with the test's environment.
    (tmp_path / "test_x.py").write_text("def test_x(): pass")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                       cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "--basetemp" not in os.environ.get("PYTEST_ADDOPTS", "")


def test_cache(request):
    request.config.cache.set("compat/x", 1)
    assert request.config.cache.mkdir("compat").is_dir()
PY
    fingerprint >"$BATS_TEST_TMPDIR/before"
}

@test "pytester in-process and in a subprocess: bare, fenced twice, all pass" {
    run $PY -m pytest -q
    expect_status 0
    expect_output_has "4 passed"
    rm -rf .pytest_cache
    for _ in 1 2; do
        fenced $PY -m pytest -q
        expect_clean
        expect_output_has "4 passed"
    done
    # The artifacts dir holds nothing a later run collects, fenced or bare.
    [ -z "$(find tests/artifacts -name '*.py' | head -1)" ]
    run $PY -m pytest -q
    expect_status 0
    expect_output_has "4 passed"
}

@test "pytester under the plugin, with and without -n 2, twice" {
    for _ in 1 2; do
        plugin -q
        expect_clean
        expect_output_has "4 passed"
        plugin -q -p xdist.plugin -n 2
        expect_clean
        expect_output_has "4 passed"
    done
    assert_outside_unchanged
}

@test "pytest-benchmark: its .benchmarks and git describe are refused quietly" {
    $PY -c 'import pytest_benchmark' 2>/dev/null || skip "python3-pytest-benchmark is not installed"
    cat >tests/test_bench.py <<'PY'
def test_bench(benchmark):
    benchmark(sum, [1, 2, 3])
PY
    fenced $PY -m pytest -q -p pytest_benchmark.plugin tests/test_bench.py
    expect_clean
    [ ! -e .benchmarks ]
    plugin -q -p pytest_benchmark.plugin tests/test_bench.py
    expect_clean
    [ ! -e .benchmarks ]
    run $PY -m pytest -q -p pytest_benchmark.plugin -p no:cacheprovider tests/test_bench.py
    expect_status 0
}

@test "pytest-benchmark below the git root (a monorepo's pkg/, run from pkg/ and from pkg/src/): quiet" {
    $PY -c 'import pytest_benchmark' 2>/dev/null || skip "python3-pytest-benchmark is not installed"
    compat_monorepo
    cat >tests/test_bench.py <<'PY'
def test_bench(benchmark):
    benchmark(sum, [1, 2, 3])
PY
    # Its git describe --dirty takes the enclosing repository's index lock, at the start.
    fenced $PY -m pytest -q -p pytest_benchmark.plugin tests/test_bench.py
    expect_clean
    expect_output_has "1 passed"
    # From a subdirectory: .benchmarks is made in the cwd, not at the root.
    (cd src && fenced $PY -m pytest -q -p pytest_benchmark.plugin ../tests/test_bench.py &&
        expect_clean && expect_output_has "1 passed")
    [ ! -e src/.benchmarks ]
    [ ! -e .benchmarks ]
    assert_mono_unchanged
    # The plugin: pytest-benchmark's pytest_addoption runs git describe before any fence (it
    # refreshes the index, bare); what it does after the fence is quiet.
    plugin -q -p pytest_benchmark.plugin tests/test_bench.py
    expect_clean
    (cd src && plugin -q -p pytest_benchmark.plugin ../tests/test_bench.py && expect_clean)
    [ ! -e src/.benchmarks ]
    [ ! -e .benchmarks ]
}

@test "what the plugin records is only what would have been written" {
    cat >tests/test_exists.py <<'PY'
import os
import pathlib
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_makedirs_existing():
    os.makedirs(ROOT, exist_ok=True)
    (ROOT / "tests").mkdir(exist_ok=True)
    ROOT.mkdir(parents=True, exist_ok=True)


def test_remove_missing():
    with pytest.raises(FileNotFoundError):
        os.remove(ROOT / "no-such-file")


def test_open_in_missing_dir():
    with pytest.raises(FileNotFoundError):
        open(ROOT / "no-such-dir" / "x", "w")


def test_write_a_directory():
    with pytest.raises(IsADirectoryError):
        open(ROOT / ".git", "w")
PY
    plugin -q tests/test_exists.py
    expect_clean
    expect_output_has "4 passed"
    fenced $PY -m pytest -q tests/test_exists.py
    expect_clean
    assert_outside_unchanged
}

@test "tests that keep scratch files in \$HOME on purpose: the hint gives the recipe, [env] HOME = \"{workspace}\" makes them pass" {
    export HOME="$BATS_TEST_TMPDIR/home"
    mkdir -p "$HOME" && echo mine >"$HOME/.profile"
    cat >tests/test_home.py <<'PY'
import os
from pathlib import Path


def test_scratch_in_home():  # as send2trash's tests do
    scratch = Path(os.path.expanduser("~")) / "scratch.txt"
    scratch.write_text("x")
    scratch.unlink()
PY
    printf '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n' >pyproject.toml
    fenced $PY -m pytest -q -p no:cacheprovider tests/test_home.py
    expect_status 1
    expect_output_has "$HOME/scratch.txt"
    expect_output_has 'give the run a home of its own: [env] HOME = "{workspace}" in the config'
    printf '[tool.testfence.env]\nHOME = "{workspace}"\n' >>pyproject.toml
    fenced $PY -m pytest -q -p no:cacheprovider tests/test_home.py
    expect_clean
    expect_output_has "1 passed"
    plugin -q -p no:cacheprovider tests/test_home.py
    expect_clean
    expect_output_has "1 passed"
    [ "$(ls -A "$HOME")" = .profile ]
    [ "$(cat "$HOME/.profile")" = mine ]
}

@test "a write by a pytest a test started, after its own tests (pytest's test_cache_reportheader): fails the test that started it" {
    # A write at start-up is no test's: not the first test's either.
    printf 'import os\n\ndef pytest_configure(config):\n    try:\n        open(os.path.join(os.environ["PROJ"], "configured.txt"), "w")\n    except PermissionError:\n        pass\n' >tests/conftest.py
    cat >tests/test_nest.py <<'PY'
import os

import pytest


def test_first():
    pass


@pytest.mark.parametrize("how", ["inline", "subprocess"])
def test_inner_cache_outside(pytester, monkeypatch, how):
    pytester.makepyfile("def test_foo(): pass")
    # The inner pytest's cache goes there: written at its end, when it names no test.
    monkeypatch.setenv("TOX_ENV_DIR", os.path.join(os.environ["PROJ"], "toxenv"))
    run = pytester.runpytest if how == "inline" else pytester.runpytest_subprocess
    run("-v").assert_outcomes(passed=1)


def test_after():
    pass
PY
    PROJ="$P" plugin -q -p pytester tests/test_nest.py
    expect_status 1
    expect_output_has "FAILED tests/test_nest.py::test_inner_cache_outside[inline]"
    expect_output_has "FAILED tests/test_nest.py::test_inner_cache_outside[subprocess]"
    expect_output_has "attempted to write to $P/toxenv which is outside $P/tests/."
    expect_output_has "named no test of this session: made while this test ran, by a pytest it started"
    expect_output_has "2 failed, 2 passed" # test_first and test_after pass
    [ ! -e toxenv ]
    expect_output_has " $P/configured.txt (EACCES)" # in the summary, outside any test
    [ ! -e configured.txt ]
    assert_outside_unchanged
}
