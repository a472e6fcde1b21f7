#!/usr/bin/env bats
# The wheel: built with python3 -m build --no-isolation (offline: Debian's setuptools and
# wheel) and with pip install ., installed into fresh virtual environments: the CLI,
# pytest fenced by the plugin's entry point and with -p, pip uninstall. The plugin's
# own tests run against the wheel too (scripts/check-install.sh, TF_PLUGIN_PYTHON).

load install

setup_file() {
    export DIST="$TF_INSTALL_WORK/dist"
    export VENV="$TF_INSTALL_WORK/venv"
}

# newvenv DIR: a venv that sees Debian's pytest, as CI's does.
newvenv() {
    rm -rf "$1"
    /usr/bin/python3 -m venv --system-site-packages "$1"
}

@test "python3 -m build --no-isolation: an sdist and a py3-none-linux wheel" {
    src="$TF_INSTALL_WORK/wheel-src"
    rm -rf "$src" "$DIST" && cp -a "$TF_INSTALL_TREE" "$src"
    (cd "$src" && /usr/bin/python3 -m build --no-isolation --outdir "$DIST" .) \
        >"$TF_INSTALL_WORK/wheel.log" 2>&1 || { show_log "$TF_INSTALL_WORK/wheel.log"; false; }
    ls "$DIST"/testfence-*.tar.gz
    run unzip -Z1 "$DIST"/testfence-*-py3-none-linux_*.whl
    for f in testfence.py _testfence/__init__.py _testfence/hooks.py _testfence/_native.abi3.so testfence_native/libtestfence.so.0 testfence_native/libtestfence_preload.so \
        testfence-*.data/scripts/testfence testfence-*.data/data/lib/testfence/libtestfence_preload.so \
        testfence-*.dist-info/entry_points.txt testfence-*.dist-info/LICENSE; do
        grep -qxE "${f//\*/[^/]*}" <<<"$output" || { echo "the wheel lacks $f"; echo "$output"; false; }
    done
    # The sdist builds offline: it needs nothing fetched.
    ! tar -tzf "$DIST"/testfence-*.tar.gz | grep -q 'third_party/'
}

@test "the wheel in a fresh venv: the CLI with its shim, pytest fenced, nothing outside tests/" {
    newvenv "$VENV"
    "$VENV/bin/pip" install -q --no-index --no-deps "$DIST"/testfence-*.whl
    # The CLI is self-contained: libc only.
    ! ldd "$VENV/bin/testfence" | grep -v -e libc.so -e linux-vdso -e ld-linux | grep -q .
    cleanproject "$BATS_TEST_TMPDIR/p" && cd "$BATS_TEST_TMPDIR/p"
    run env PATH="$VENV/bin:$PATH" testfence doctor
    expect_status 0
    expect_output_has "diagnostics: $VENV/lib/testfence/libtestfence_preload.so"
    clobberproject "$BATS_TEST_TMPDIR/c" && cd "$BATS_TEST_TMPDIR/c"
    P=$PWD && fingerprint >"$BATS_TEST_TMPDIR/before"
    unset TESTFENCE_LIBRARY PYTHONPATH TESTFENCE_WORKSPACE TESTFENCE_RUN_ID TESTFENCE_PLUGIN PYTEST_ADDOPTS
    # The entry point loads it: plain pytest in the venv is fenced.
    run env -u PYTEST_DISABLE_PLUGIN_AUTOLOAD "$VENV/bin/python" -m pytest -p no:cacheprovider
    expect_status 1
    expect_output_has "testfence: fenced (Landlock ABI"
    expect_output_has "4 failed, 5 passed"
    expect_output_has "testfence: 4 writes outside the writable set were blocked"
    assert_outside_unchanged
    # -p testfence with autoload off, as a project's addopts does.
    run env PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 "$VENV/bin/python" -m pytest -p testfence -q -p no:cacheprovider
    expect_status 1
    expect_output_has "4 failed, 5 passed"
    # pip wrote the plugin's bytecode as it installed it: with bytecode off, pytest compiles
    # none of the plugin at its start.
    run env PYTHONDONTWRITEBYTECODE=1 PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 "$VENV/bin/python" -v \
        -m pytest -p testfence -q -p no:cacheprovider
    expect_status 1
    expect_output_has "4 failed, 5 passed"
    plugin_from_bytecode "$(echo "$VENV"/lib/python3*/site-packages)"
    # And testfence run from the venv's PATH.
    run env PATH="$VENV/bin:$PATH" testfence run -- "$VENV/bin/python" -m pytest -q -p no:testfence -p no:cacheprovider
    expect_status 1
    expect_output_has "TEST_SANDBOX_VIOLATION: tests/test_settings.py::"
    assert_outside_unchanged
}

@test "pip uninstall leaves the venv as it was" {
    newvenv "$BATS_TEST_TMPDIR/v"
    (cd "$BATS_TEST_TMPDIR/v" && find . | sort) >"$BATS_TEST_TMPDIR/before"
    "$BATS_TEST_TMPDIR/v/bin/pip" install -q --no-index --no-deps "$DIST"/testfence-*.whl
    # Bytecode, as any import leaves it.
    env -u PYTHONDONTWRITEBYTECODE "$BATS_TEST_TMPDIR/v/bin/python" -c 'import testfence'
    "$BATS_TEST_TMPDIR/v/bin/pip" uninstall -y -q testfence
    (cd "$BATS_TEST_TMPDIR/v" && find . | sort) >"$BATS_TEST_TMPDIR/after"
    diff -u "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
}

@test "pip install . from a source tree, offline" {
    src="$TF_INSTALL_WORK/pip-src"
    rm -rf "$src" && cp -a "$TF_INSTALL_TREE" "$src"
    newvenv "$BATS_TEST_TMPDIR/v"
    (cd "$src" && "$BATS_TEST_TMPDIR/v/bin/pip" install -q --no-index --no-build-isolation .) \
        >"$TF_INSTALL_WORK/pip.log" 2>&1 || { show_log "$TF_INSTALL_WORK/pip.log"; false; }
    run "$BATS_TEST_TMPDIR/v/bin/testfence" -V
    expect_status 0
    [[ "$output" == "testfence "* ]]
    run "$BATS_TEST_TMPDIR/v/bin/python" -c 'import testfence, os; print(os.path.exists(os.path.join(os.path.dirname(testfence.__file__), "testfence_native", "libtestfence.so.0")))'
    [ "$output" = True ]
}
