#!/usr/bin/env bats
# The Debian packages: dpkg-buildpackage -b -us -uc builds them, lintian finds no error,
# and installed (in a throwaway root: nothing reaches this machine) doctor, the demo,
# man testfence and the plugin work from the installed files; purge removes them.

load install

setup_file() {
    export DEBS="$TF_INSTALL_WORK/deb"
}

@test "dpkg-buildpackage -b -us -uc: testfence and python3-testfence" {
    rm -rf "$DEBS"
    "$TESTFENCE_SRC/scripts/build-deb.sh" "$DEBS" >"$TF_INSTALL_WORK/deb.log" 2>&1 ||
        { show_log "$TF_INSTALL_WORK/deb.log"; false; }
    ls "$DEBS"/testfence_*.deb "$DEBS"/python3-testfence_*.deb
    run dpkg-deb -c "$DEBS"/testfence_*.deb
    expect_output_has "./usr/bin/testfence"
    expect_output_has "./usr/share/man/man1/testfence.1.gz"
    expect_output_has "/testfence/libtestfence_preload.so"
}

@test "lintian: no errors" {
    run lintian "$DEBS"/testfence_*.changes
    echo "$output"
    ! grep -q '^E:' <<<"$output"
}

@test "installed in a throwaway root: doctor, the demo, man, the plugin; purge leaves nothing" {
    [ "$(id -u)" -eq 0 ] || skip "needs root for the throwaway root"
    cleanproject "$BATS_TEST_TMPDIR/p"
    clobberproject "$BATS_TEST_TMPDIR/c"
    run "$BATS_TEST_DIRNAME/throwaway-root.sh" bash -c '
        set -u
        step() { echo "== $*"; }
        step install
        dpkg -i "$1"/testfence_*.deb "$1"/python3-testfence_*.deb >/dev/null || exit 1
        step version; testfence -V
        step doctor; (cd "$2" && testfence doctor); echo "doctor=$?"
        step demo; TESTFENCE=/usr/bin/testfence "$4/scripts/demo.sh"; echo "demo=$?"
        step man; man -w testfence; MANWIDTH=100 man -P cat testfence-run | head -3
        site=/usr/lib/python3/dist-packages
        pyc() { { ls $site/__pycache__/ | grep "^testfence\.cpython-.*\.pyc$"; ls $site/_testfence/__pycache__/ | grep "\.pyc$"; } 2>/dev/null | wc -l; }
        step bytecode; echo "pyc-installed=$(pyc)"
        step plugin
        (cd "$3" && env -u TESTFENCE_LIBRARY -u PYTHONPATH -u PYTEST_ADDOPTS -u TESTFENCE_WORKSPACE \
            PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 /usr/bin/python3 -m pytest -p testfence -p no:cacheprovider)
        echo "plugin=$?"
        step binding
        echo "binding=$(env -u TESTFENCE_LIBRARY -u PYTHONPATH -u TESTFENCE_BINDING /usr/bin/python3 -c \
            "from _testfence import native; print(type(native._load_library()).__name__)")"
        step not-default
        (cd "$2" && env -u PYTEST_ADDOPTS -u TESTFENCE_WORKSPACE /usr/bin/python3 -m pytest -q -p no:cacheprovider)
        step purge
        dpkg -L testfence python3-testfence | sort -u >/var/tmp/tf-files
        dpkg --purge python3-testfence testfence >/dev/null
        while read -r f; do [ -f "$f" ] || [ -L "$f" ] && echo "left behind: $f"; done </var/tmp/tf-files
        rm -f /var/tmp/tf-files
        hash -r; command -v testfence || echo "gone=yes"
        echo "pyc-left=$(pyc)"
        [ -e $site/_testfence ] && echo "left behind: $site/_testfence"
    ' bash "$DEBS" "$BATS_TEST_TMPDIR/p" "$BATS_TEST_TMPDIR/c" "$TESTFENCE_SRC"
    echo "$output"
    expect_output_has "testfence 0.1.0"
    expect_output_has "diagnostics: /usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/testfence/libtestfence_preload.so"
    expect_output_has "doctor=0"
    expect_output_has "Every protected file is byte-for-byte unchanged"
    expect_output_has "demo=0"
    expect_output_has "/usr/share/man/man1/testfence.1.gz"
    expect_output_has "TESTFENCE-RUN(1)"
    expect_output_has "testfence: fenced (Landlock ABI"
    expect_output_has "4 failed, 5 passed"
    expect_output_has "plugin=1"
    expect_output_has "binding=module" # the compiled binding, not ctypes
    expect_output_has "gone=yes"
    # Byte-compiled at install (dh_python3's postinst), as Debian's own modules are: with
    # PYTHONDONTWRITEBYTECODE set, every pytest would compile the plugin again otherwise.
    expect_output_has "pyc-installed=$((1 + $(ls "$TESTFENCE_SRC"/python/_testfence/*.py | wc -l)))"
    expect_output_has "pyc-left=0"
    [[ "$output" != *"left behind"* ]]
    # The plugin is not registered for every pytest: the clean project ran unfenced.
    [[ "$(sed -n '/== not-default/,/== purge/p' <<<"$output")" != *"testfence:"* ]]
    # And nothing reached this machine.
    [ ! -e /usr/bin/testfence ] || dpkg -s testfence >/dev/null 2>&1
}
