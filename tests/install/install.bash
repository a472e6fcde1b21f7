# Shared by the install tests: where scripts/check-install.sh left its work, and a small
# project to run things in. Nothing here installs onto this machine.

: "${TF_INSTALL_WORK:?run these through scripts/check-install.sh}"
: "${TF_INSTALL_TREE:?run these through scripts/check-install.sh}"
: "${TESTFENCE_SRC:?run these through scripts/check-install.sh}"

# expect_status / expect_output_has / fingerprint, as in the other folders.
load ../support/helpers

# cleanproject DIR: a project whose tests write only where they may.
cleanproject() {
    mkdir -p "$1/tests"
    printf '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n' >"$1/pyproject.toml"
    printf 'theme = "dark"\n' >"$1/config.toml"
    cat >"$1/tests/test_ok.py" <<'PY'
def test_writes_in_tmp_path(tmp_path):
    (tmp_path / "out.txt").write_text("ok")
PY
}

# clobberproject DIR: the careless example project.
clobberproject() {
    cp -r "$TESTFENCE_SRC/examples/clobber" "$1"
    rm -rf "$1/tests/artifacts"
}

# show_log FILE: the end of a build log, for a failed step.
show_log() {
    echo "--- the end of $1:" >&2
    tail -40 "$1" >&2
}

# plugin_from_bytecode SITE: $output, a `python -v -m pytest -p testfence` run with the plugin
# in SITE, shows every module of the plugin loaded from its installed bytecode: `python -v`
# says 'code object from' the .pyc (quoted), or the .py (unquoted) when it compiled one.
plugin_from_bytecode() {
    local from_pyc compiled
    from_pyc=$(grep -c "^# code object from '$1/_testfence/__pycache__/" <<<"$output")
    compiled=$(grep "^# code object from $1/_testfence/" <<<"$output") || true
    [ -z "$compiled" ] || { echo "compiled from source at this start: $compiled"; return 1; }
    # The modules the kernel backend loads: hooks, native, state, report, startup, ...
    [ "$from_pyc" -ge 8 ] || { echo "only $from_pyc modules from their bytecode"; return 1; }
}
