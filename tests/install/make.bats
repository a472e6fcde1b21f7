#!/usr/bin/env bats
# make from a fresh copy of the tree with no script run first, make install into a
# prefix, what the prefix holds (man pages, completions, the plugin), make uninstall.

load install

setup_file() {
    export CLONE="$TF_INSTALL_WORK/clone" PREFIX="$TF_INSTALL_WORK/prefix"
    rm -rf "$CLONE" "$PREFIX"
    cp -a "$TF_INSTALL_TREE" "$CLONE"
    mkdir "$PREFIX"
}

@test "make in a fresh clone: no third_party/, no script first, nothing fetched" {
    [ ! -e "$CLONE/third_party" ]
    cd "$CLONE"
    make >"$TF_INSTALL_WORK/make.log" 2>&1 || { show_log "$TF_INSTALL_WORK/make.log"; false; }
    ! grep -q "fetch-grammar.sh" "$TF_INSTALL_WORK/make.log"
    [ ! -e third_party ]
    [ -x build/testfence ]
    [ -e build/share/man/man1/testfence.1 ]
}

@test "make install PREFIX=...: the CLI finds its shim, man shows the pages" {
    cd "$CLONE"
    make install PREFIX="$PREFIX" >"$TF_INSTALL_WORK/install.log" 2>&1 ||
        { show_log "$TF_INSTALL_WORK/install.log"; false; }
    for f in bin/testfence lib/testfence/libtestfence_preload.so lib/libtestfence.so.0 \
        share/man/man1/testfence.1 share/man/man1/testfence-run.1 share/man/man1/testfence-audit.1 \
        share/bash-completion/completions/testfence share/zsh/site-functions/_testfence \
        share/fish/vendor_completions.d/testfence.fish include/testfence.h; do
        [ -e "$PREFIX/$f" ] || { echo "missing: $PREFIX/$f"; false; }
    done
    cleanproject "$BATS_TEST_TMPDIR/p"
    cd "$BATS_TEST_TMPDIR/p"
    run "$PREFIX/bin/testfence" doctor
    expect_status 0
    expect_output_has "diagnostics: $PREFIX/lib/testfence/libtestfence_preload.so"
    # man finds the pages from PATH, as for /usr/local.
    run env PATH="$PREFIX/bin:$PATH" MANPATH= man -w testfence
    [ "$output" = "$PREFIX/share/man/man1/testfence.1" ]
    run env PATH="$PREFIX/bin:$PATH" MANPATH= MANWIDTH=100 man -P cat testfence
    expect_output_has "testfence - run a test suite that cannot write outside the project's tests/"
    expect_output_has "testfence-run(1)"
    run env PATH="$PREFIX/bin:$PATH" MANPATH= MANWIDTH=100 man -P cat testfence-run
    expect_output_has "--junit FILE"
}

@test "the installed plugin fences pytest; pip sees its RECORD" {
    site=$(echo "$PREFIX"/lib/python3*/dist-packages)
    [ -e "$site/testfence.py" ]
    [ -e "$site/_testfence/hooks.py" ]
    grep -qx 'testfence.py,,' "$site"/testfence-*.dist-info/RECORD
    for f in "$TESTFENCE_SRC"/python/_testfence/*.py; do
        grep -qx "_testfence/${f##*/},," "$site"/testfence-*.dist-info/RECORD
    done
    # The compiled binding is installed, recorded, and what the plugin loads.
    [ -e "$site/_testfence/_native.abi3.so" ]
    grep -qx "_testfence/_native.abi3.so,," "$site"/testfence-*.dist-info/RECORD
    run env -u TESTFENCE_LIBRARY -u TESTFENCE_BINDING PYTHONPATH="$site" /usr/bin/python3 -c \
        'from _testfence import native; print(type(native._load_library()).__name__)'
    expect_status 0
    [ "$output" = module ]
    clobberproject "$BATS_TEST_TMPDIR/p"
    cd "$BATS_TEST_TMPDIR/p"
    fingerprint >"$BATS_TEST_TMPDIR/before"
    unset TESTFENCE_LIBRARY TESTFENCE_WORKSPACE TESTFENCE_RUN_ID TESTFENCE_PLUGIN PYTEST_ADDOPTS
    run env PYTHONPATH="$site" PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 \
        /usr/bin/python3 -m pytest -p testfence -p no:cacheprovider
    expect_status 1
    expect_output_has "testfence: fenced (Landlock ABI"
    expect_output_has "4 failed, 5 passed"
    assert_outside_unchanged
}

@test "the plugin's bytecode is installed: a pytest with bytecode off compiles none of it" {
    # Written at install (the plugin writes none before the fence is up, the fence refuses it
    # after), listed in the RECORD so that pip removes it too.
    site=$(echo "$PREFIX"/lib/python3*/dist-packages)
    tag=$(/usr/bin/python3 -c 'import sys; print(sys.implementation.cache_tag)')
    for f in "$TESTFENCE_SRC"/python/_testfence/*.py "$TESTFENCE_SRC"/python/testfence.py; do
        m=${f#"$TESTFENCE_SRC"/python/}
        pyc="$(dirname "$m")/__pycache__/$(basename "$m" .py).$tag.pyc"
        pyc=${pyc#./}
        [ -f "$site/$pyc" ] || { echo "no $site/$pyc"; false; }
        grep -qx "$pyc,," "$site"/testfence-*.dist-info/RECORD
    done
    clobberproject "$BATS_TEST_TMPDIR/p"
    cd "$BATS_TEST_TMPDIR/p"
    unset TESTFENCE_LIBRARY TESTFENCE_WORKSPACE TESTFENCE_RUN_ID TESTFENCE_PLUGIN PYTEST_ADDOPTS
    run env PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$site" PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 \
        /usr/bin/python3 -v -m pytest -p testfence -p no:cacheprovider
    expect_status 1
    expect_output_has "testfence: fenced (Landlock ABI"
    plugin_from_bytecode "$site"
}

@test "completions: bash completes commands, options and values; zsh and fish load theirs" {
    comp="$PREFIX/share/bash-completion/completions/testfence"
    run bash -c '
        source "$1"
        c() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _testfence
              echo "${COMPREPLY[*]}"; }
        c testfence d; c testfence run --ju; c testfence run --backend ""; c testfence audit --format s
        c testfence run -- true-no-such-prefix' bash "$comp"
    [ "${lines[0]}" = doctor ]
    [ "${lines[1]}" = --junit ]
    [ "${lines[2]}" = "landlock preload none" ]
    [ "${lines[3]}" = sarif ]
    [ "${#lines[@]}" -eq 4 ] # the wrapped command completes as a command: nothing matches
    zsh -n "$PREFIX/share/zsh/site-functions/_testfence"
    run zsh -fc 'fpath=("$1" $fpath); autoload -Uz compinit && compinit -u -D &&
        print -r -- ${_comps[testfence]}' zsh "$PREFIX/share/zsh/site-functions"
    [ "$output" = _testfence ]
    run fish --no-config -c "source $PREFIX/share/fish/vendor_completions.d/testfence.fish
        complete -C 'testfence run --bac'; complete -C 'testfence run --backend '"
    expect_output_has "--backend"
    expect_output_has "preload"
}

@test "make uninstall: the prefix is empty again" {
    # The plugin's bytecode, as a user's python3 leaves it, goes too.
    site=$(echo "$PREFIX"/lib/python3*/dist-packages)
    env -u PYTHONDONTWRITEBYTECODE /usr/bin/python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import testfence' "$site"
    ls "$site"/__pycache__/testfence.*.pyc
    cd "$CLONE"
    make uninstall
    run find "$PREFIX" -mindepth 1
    [ -z "$output" ] || { echo "left behind: $output"; false; }
}

@test "make uninstall after a staged install (DESTDIR) removes the staged files, never the live ones" {
    cd "$CLONE"
    live="$TF_INSTALL_WORK/live" stage="$TF_INSTALL_WORK/stage"
    rm -rf "$live" "$stage"
    make install PREFIX="$live" >/dev/null
    DESTDIR="$stage" make install PREFIX="$live" >/dev/null
    [ -x "$stage$live/bin/testfence" ]
    # The manifest names where the files run, as CMake's own entries do.
    run grep -c "^$stage" build/install_manifest.txt
    [ "$output" = 0 ]
    (cd "$live" && find . | sort) >"$BATS_TEST_TMPDIR/live"
    run env DESTDIR=/elsewhere make uninstall
    [ "$status" -ne 0 ]
    expect_output_has "went to DESTDIR='$stage', not '/elsewhere': nothing removed"
    [ -x "$stage$live/bin/testfence" ]
    make uninstall
    diff -u "$BATS_TEST_TMPDIR/live" <(cd "$live" && find . | sort) # untouched
    # The stage's files gone, and the directories that install made there with them.
    [ ! -e "$stage" ] || { echo "left in the stage: $(find "$stage")"; false; }
    rm -rf "$live"
}

@test "install with a TESTFENCE_PYTHON that does not run: stops before anything is written" {
    cd "$CLONE"
    cmake -S . -B build -DTESTFENCE_PYTHON=/nonexistent/python3 >/dev/null
    run cmake --install build --prefix "$TF_INSTALL_WORK/bad"
    cmake -S . -B build -DTESTFENCE_PYTHON=/usr/bin/python3 >/dev/null # as before, whatever happened
    [ "$status" -ne 0 ]
    expect_output_has "TESTFENCE_PYTHON=/nonexistent/python3 is not a Python 3 that runs"
    expect_output_has "Nothing was installed."
    [ ! -e "$TF_INSTALL_WORK/bad" ]
}
