#!/usr/bin/env bats
# glibc's tmpfile() makes its unnamed file in /tmp whatever TMPDIR says, and the fence refuses
# /tmp (issue 27): the shim makes it in the run's private temp dir. make -O (output sync) uses
# it; git's `make -C t -j2 -Otarget` crashed (139) after 19,315 refused tries.

load compat

bats_require_minimum_version 1.5.0

CHECKLOG="/usr/bin/python3 $TESTFENCE_SRC/tests/support/checklog.py"

setup_file() {
    # Copies nobody can execute (the build dir may not be reachable for it), the shim beside
    # testfence as in the build dir.
    local b="$BATS_FILE_TMPDIR/bin" v
    mkdir -p "$b"
    install -m 755 "$TESTFENCE" "$b/"
    for v in "$(dirname "$TESTFENCE")"/libtestfence_preload.so*; do
        [ -e "$v" ] && install -m 755 "$v" "$b/"
    done
    # tmpf: tmpfile() and tmpfile64(), each written and read back; where the file is, as
    # /proc/self/fd names it, and what glibc's gives (0600 less the umask, no name, not
    # close-on-exec); or the errno of a NULL, and exit 1.
    cat >"$BATS_FILE_TMPDIR/tmpf.c" <<'EOF'
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int one(const char *name, FILE *(*make)(void))
{
    errno = 0;
    FILE *f = make();
    if (!f) {
        printf("%s: NULL %s\n", name, strerrorname_np(errno));
        return 1;
    }
    char back[16] = {0}, where[4096] = {0}, fdpath[64];
    struct stat st;
    int fd = fileno(f);
    snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", fd);
    if (readlink(fdpath, where, sizeof where - 1) < 0 || fstat(fd, &st) < 0 ||
        fputs("written", f) < 0 || fflush(f) || fseek(f, 0, SEEK_SET) ||
        !fgets(back, sizeof back, f) || strcmp(back, "written")) {
        printf("%s: read back failed\n", name);
        return 1;
    }
    printf("%s: ok mode=%o links=%lu cloexec=%d in=%s\n", name, (unsigned)st.st_mode & 07777,
           (unsigned long)st.st_nlink, !!(fcntl(fd, F_GETFD) & FD_CLOEXEC), where);
    return fclose(f) != 0;
}

int main(void)
{
    umask(022);
    return one("tmpfile", tmpfile) | one("tmpfile64", tmpfile64);
}
EOF
    cc -o "$b/tmpf" "$BATS_FILE_TMPDIR/tmpf.c"
    cc -static -o "$b/tmpf-static" "$BATS_FILE_TMPDIR/tmpf.c"
    chmod 755 "$BATS_FILE_TMPDIR"
}

setup() {
    compat_project
    TF="$BATS_FILE_TMPDIR/bin/testfence"
    TMPF="$BATS_FILE_TMPDIR/bin/tmpf"
    # The caller's temp dir, holding the run's (<it>/testfence-<uid>/<run_id>), not in /tmp:
    # the file must be found there, and /tmp is outside the writable set.
    mkdir -m 1777 "$BATS_TEST_TMPDIR/sys"
    SYS=$(realpath "$BATS_TEST_TMPDIR/sys")
}

# ws_file NAME: the one run workspace's file NAME.
ws_file() { echo "$P"/tests/artifacts/_isolation_workspace_*/"$1"; }

@test "tmpfile() in a dynamic program: made in the run's temp dir, as glibc's; no violation" {
    TMPDIR="$SYS" run "$TF" run -- "$TMPF"
    expect_clean
    for fn in tmpfile tmpfile64; do
        expect_output_has "$fn: ok mode=600 links=0 cloexec=0 in=$SYS/testfence-$(id -u)/"
    done
    [ "$(grep -c '(deleted)$' <<<"$output")" = 2 ]
    ! grep -q 'in=/tmp/[^/]*$' <<<"$output" # nothing directly in /tmp
    [ -z "$(ls -A "$SYS/testfence-$(id -u)")" ] # the run's temp dir went with the run
    assert_outside_unchanged
    # The shim not looking (no configuration: not started by testfence) is glibc's tmpfile.
    run env LD_PRELOAD="$BATS_FILE_TMPDIR/bin/libtestfence_preload.so" "$TMPF"
    expect_status 0
    expect_output_has "tmpfile: ok mode=600 links=0 cloexec=0 in=/tmp/"
}

@test "make -j2 -Otarget (output sync through tmpfile): exit 0, output grouped, no violation" {
    cat >Makefile <<'MK'
all: a b
a:
	@echo a-start; sleep 0.3; echo a-end
b:
	@echo b-start; sleep 0.1; echo b-end
MK
    fingerprint >"$BATS_TEST_TMPDIR/before"
    TMPDIR="$SYS" run timeout 120 "$TF" run -- make -j2 -Otarget
    expect_clean
    # Each target's lines together, as -O promises (its output went through the temp file).
    grep -A1 '^a-start$' <<<"$output" | grep -q '^a-end$'
    grep -A1 '^b-start$' <<<"$output" | grep -q '^b-end$'
    assert_outside_unchanged
}

@test "a static program's tmpfile(): no shim, so the kernel refuses /tmp and nothing records it" {
    TMPDIR="$SYS" run "$TF" run -- "$BATS_FILE_TMPDIR/bin/tmpf-static"
    # The read-only view says EROFS, Landlock alone (a nested run) EACCES; the program fails,
    # and the run keeps its status. The refusal is not recorded: a program without the shim
    # is fenced, not reported (docs/diagnostics.md), and the summary never comes.
    expect_status 1
    [[ "$output" =~ "tmpfile: NULL "(EROFS|EACCES) ]]
    [[ "$output" =~ "tmpfile64: NULL "(EROFS|EACCES) ]]
    expect_output_lacks TEST_SANDBOX_VIOLATION
    [ ! -s "$(ws_file violations.jsonl)" ]
    assert_outside_unchanged
}

@test "as nobody: made in the run's temp dir; where that dir cannot be written, glibc's runs, refused and recorded with its own hint" {
    reachable_by_others
    chown -R nobody:nogroup "$P"
    fingerprint >"$BATS_TEST_TMPDIR/before"
    local as=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
    TMPDIR="$SYS" run "${as[@]}" "$TF" run -- "$TMPF"
    expect_clean
    expect_output_has "tmpfile: ok mode=600 links=0 cloexec=0 in=$SYS/testfence-$(id -u nobody)/"
    rm -rf tests/artifacts
    # The test takes write access to its own temp dir away (nobody: the mode binds it).
    TMPDIR="$SYS" run "${as[@]}" "$TF" run -- sh -c 'chmod 0500 "$TMPDIR" && exec "$1"' _ "$TMPF"
    expect_status 1
    expect_output_has "tmpfile: NULL EACCES"
    expect_output_has "tmpfile64: NULL EACCES"
    expect_output_has "attempted to write to /tmp which is outside $P/tests/. How to fix: an unnamed temp file from tmpfile()"
    expect_output_lacks "use \$TMPDIR"
    [ "$($CHECKLOG "$(ws_file violations.jsonl)" ops)" = "$(printf 'tmpfile\ntmpfile64')" ]
    assert_outside_unchanged
}

@test "the pytest plugin: a C extension's tmpfile() in pytest's own process is made in the run's temp dir" {
    cat >"$BATS_TEST_TMPDIR/tmpfext.c" <<'EOF'
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <unistd.h>
/* where(): tmpfile(), then where /proc/self/fd says its file is ("" when it failed). */
static PyObject *where(PyObject *self, PyObject *args)
{
    char fdpath[64], buf[4096] = {0};
    FILE *f = tmpfile();
    if (!f)
        return PyUnicode_FromString("");
    snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", fileno(f));
    ssize_t n = readlink(fdpath, buf, sizeof buf - 1);
    fclose(f);
    return PyUnicode_FromString(n > 0 ? buf : "?");
}
static PyMethodDef methods[] = {{"where", where, METH_NOARGS, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "tmpfext", NULL, -1, methods};
PyMODINIT_FUNC PyInit_tmpfext(void) { return PyModule_Create(&def); }
EOF
    local inc suffix
    inc=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
    suffix=$("$PY" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
    [ -e "$inc/Python.h" ] || skip "no Python.h (python3-dev)"
    mkdir "$BATS_TEST_TMPDIR/ext"
    cc -shared -fPIC -I"$inc" -o "$BATS_TEST_TMPDIR/ext/tmpfext$suffix" "$BATS_TEST_TMPDIR/tmpfext.c"
    cat >tests/test_tmpf.py <<'EOF'
import os, sys

def test_tmpfile_in_run_tmp():
    sys.path.insert(0, os.environ["TF_EXT_DIR"])
    import tmpfext
    where = tmpfext.where()
    assert where.startswith(os.path.realpath(os.environ["TMPDIR"]) + "/"), where
EOF
    TMPDIR="$SYS" TF_EXT_DIR="$BATS_TEST_TMPDIR/ext" plugin -p no:cacheprovider tests/test_tmpf.py
    expect_clean
    expect_output_has "1 passed"
    # Under a run of its own that it does not know of (the shim preloaded for that run, its
    # variables gone), pytest fences itself again: the shim follows the inner, narrower run.
    TMPDIR="$SYS" TF_EXT_DIR="$BATS_TEST_TMPDIR/ext" PYTHONPATH="$TESTFENCE_SRC/python" \
        TESTFENCE_LIBRARY="$LIB" run "$TESTFENCE" run -- env -u TESTFENCE_WORKSPACE \
        -u TESTFENCE_RUN_ID -u TESTFENCE_PLUGIN $PY -m pytest -p testfence -p no:cacheprovider \
        tests/test_tmpf.py
    expect_clean
    expect_output_has "1 passed"
    assert_outside_unchanged
}
