#!/usr/bin/env bats
# The kernel fence: writes outside tests/ fail however they are made; writes inside work.

load ../support/helpers

setup() { mkproject; }

@test "a shell redirect to a root file fails with EACCES and changes nothing" {
    run "$TESTFENCE" run -- sh -c 'echo clobbered > config.toml'
    expect_status 2
    expect_output_has "config.toml: Permission denied"
    assert_outside_unchanged
}

@test "a raw openat syscall is blocked" {
    run "$TESTFENCE" run -- "$TF_PROBE" write credentials.toml
    expect_status 1
    [[ "$output" =~ ^(EACCES|EROFS)$ ]] # EROFS: no shim to say EACCES under the read-only view
    run "$TF_PROBE" write "$BATS_TEST_TMPDIR/unfenced" # the probe itself works
    [ "$output" = ok ]
    assert_outside_unchanged
}

@test "a static binary is blocked (raw syscall, no libc to interpose)" {
    run "$TESTFENCE" run -- "$TF_PROBE_STATIC" write data/sample.csv
    expect_status 1
    [[ "$output" =~ ^(EACCES|EROFS)$ ]] # EROFS: no shim to say EACCES under the read-only view
    assert_outside_unchanged
}

@test "busybox-static cannot write, truncate or remove outside tests/" {
    bb=/bin/busybox
    run readelf -d "$bb"
    [[ "$output" != *NEEDED* ]] # it really is static
    run "$TESTFENCE" run -- "$bb" sh -c 'echo x > config.toml'
    [ "$status" -ne 0 ]
    run "$TESTFENCE" run -- "$bb" truncate -s 0 config.toml
    [ "$status" -ne 0 ]
    run "$TESTFENCE" run -- "$bb" rm -f credentials.toml
    [ "$status" -ne 0 ]
    assert_outside_unchanged
}

@test "truncate and O_TRUNC outside tests/ are blocked" {
    run "$TESTFENCE" run -- "$TF_PROBE" truncate config.toml
    expect_status 1
    [[ "$output" =~ ^(EACCES|EROFS)$ ]] # EROFS: no shim to say EACCES under the read-only view
    run "$TESTFENCE" run -- /usr/bin/python3 -c 'import os; os.open("config.toml", os.O_RDONLY | os.O_TRUNC)'
    [ "$status" -ne 0 ]
    expect_output_has PermissionError
    assert_outside_unchanged
}

@test "rm -rf of a directory outside tests/ deletes nothing" {
    run "$TESTFENCE" run -- rm -rf data
    [ "$status" -ne 0 ]
    expect_output_has "Permission denied"
    [ -f data/sample.csv ]
    assert_outside_unchanged
}

@test "renaming a file out of tests/ fails and it stays in tests/" {
    echo mine >tests/result.txt
    run "$TESTFENCE" run -- "$TF_PROBE" rename tests/result.txt result.txt
    expect_status 1
    [[ "$output" =~ ^(EACCES|EROFS|EXDEV)$ ]]
    [ "$(cat tests/result.txt)" = mine ]
    assert_outside_unchanged
}

@test "moving or hard-linking an outside file into tests/ is blocked" {
    run "$TESTFENCE" run -- "$TF_PROBE" rename config.toml tests/config.toml
    expect_status 1
    run "$TESTFENCE" run -- "$TF_PROBE" link credentials.toml tests/creds
    expect_status 1
    [ ! -e tests/config.toml ]
    [ ! -e tests/creds ]
    assert_outside_unchanged
}

@test "a symlink inside tests/ pointing outside does not let writes through" {
    ln -s ../config.toml tests/cfg
    ln -s ../new-file.toml tests/dangling
    # Such symlinks are refused as hazards; even when the user insists, the kernel blocks.
    run "$TESTFENCE" run --allow-hazards -- sh -c 'echo x > tests/cfg'
    [ "$status" -ne 0 ]
    run "$TESTFENCE" run --allow-hazards -- "$TF_PROBE" write tests/dangling
    expect_status 1
    [ ! -e new-file.toml ]
    rm tests/cfg tests/dangling
    assert_outside_unchanged
}

@test "a child that clears its environment is still fenced" {
    run "$TESTFENCE" run -- env -i /bin/sh -c 'echo x > config.toml'
    [ "$status" -ne 0 ]
    run "$TESTFENCE" run -- env -i "$TF_PROBE" write config.toml
    [[ "$output" =~ ^(EACCES|EROFS)$ ]] # EROFS: no shim to say EACCES under the read-only view
    assert_outside_unchanged
}

@test "writes inside tests/, the temp dir and the system set work" {
    run "$TESTFENCE" run -- sh -c '
        set -e
        echo a > tests/a.txt
        mkdir -p tests/sub/deeper && echo b > tests/sub/deeper/b.txt
        mv tests/a.txt tests/sub/a.txt
        f=$(mktemp) && echo t > "$f" && rm "$f"
        d=$(mktemp -d) && touch "$d/x" && rm -r "$d"
        echo discard > /dev/null
        echo shm > /dev/shm/tf-$$ && rm /dev/shm/tf-$$
        case "$TMPDIR" in "'"$(runtmp_user)"'"/*) ;; *) exit 9;; esac
        echo done'
    expect_status 0
    [ "$output" = done ]
    [ "$(cat tests/sub/a.txt)" = a ]
    [ "$(cat tests/sub/deeper/b.txt)" = b ]
    assert_outside_unchanged
}

@test "--allow opens a directory outside the root, and only that one" {
    other="$BATS_TEST_TMPDIR/other"
    mkdir "$other"
    run "$TESTFENCE" run --allow "$other" -- sh -c "echo x > '$other/f' && echo y > config.toml"
    [ "$status" -ne 0 ]
    [ "$(cat "$other/f")" = x ]
    assert_outside_unchanged
}

@test "a hard link hidden in a directory the scan may list but not search is refused, not skipped" {
    # As nobody, tests/d mode 0444: readdir lists x, fstatat on it fails (EACCES). The scan
    # skipped it, and the command could chmod its own directory and write through the link.
    reachable_by_others # nobody must reach the project
    install -m 755 "$TESTFENCE" "$BATS_TEST_TMPDIR/testfence"
    mkdir -p tests/d
    ln credentials.toml tests/d/x
    chown -R nobody "$P"
    chmod 0444 tests/d
    mkdir -m 1777 "$BATS_TEST_TMPDIR/tmp"
    fingerprint >"$BATS_TEST_TMPDIR/before"
    TMPDIR="$BATS_TEST_TMPDIR/tmp" run setpriv --reuid=nobody --regid=nogroup --clear-groups \
        "$BATS_TEST_TMPDIR/testfence" run -- sh -c 'chmod 755 tests/d; echo pwned >tests/d/x'
    expect_status 125
    expect_output_has "$P/tests/d/x could not be checked (Permission denied)"
    chmod 0755 tests/d
    [ "$(cat credentials.toml)" = '[keys]
openai = "sk-secret"' ]
    assert_outside_unchanged
}

@test "the fence holds for an unprivileged user too (nobody)" {
    # Make the project writable by nobody so only Landlock can stop the write.
    # nobody must reach the project: open up the directories above it that need it.
    reachable_by_others # nobody must reach the project
    install -m 755 "$TESTFENCE" "$BATS_TEST_TMPDIR/testfence"
    chown -R nobody "$P"
    # A temp dir nobody can write, as /tmp is (the suite's own TMPDIR may be root's).
    mkdir -m 1777 "$BATS_TEST_TMPDIR/tmp"
    fingerprint >"$BATS_TEST_TMPDIR/before"
    TMPDIR="$BATS_TEST_TMPDIR/tmp" run setpriv --reuid=nobody --regid=nogroup --clear-groups "$BATS_TEST_TMPDIR/testfence" run -- \
        sh -c 'echo ok > tests/mine.txt; echo x > config.toml'
    [ "$status" -ne 0 ]
    # No shim next to this copy of testfence: the shell sees the read-only view's EROFS
    # (Landlock's EACCES where there is no namespace layer: a run nested in another).
    [[ "$output" =~ "config.toml: "("Read-only file system"|"Permission denied") ]]
    [ "$(cat tests/mine.txt)" = ok ]
    [ "$(stat -c %U tests/mine.txt)" = nobody ]
    assert_outside_unchanged
}

@test "chmod, chown, utime and xattrs outside tests/ are refused; inside they work" {
    if [ -n "${TESTFENCE_RUN_ID:-}" ]; then
        skip "nested under testfence: the kernel allows one seccomp listener per process tree, and the outer run's guard holds it"
    fi
    touch -d '2020-01-01 00:00' config.toml
    fingerprint >"$BATS_TEST_TMPDIR/before"
    run "$TESTFENCE" run -- sh -c '
        chmod 600 config.toml || echo chmod-blocked
        chown nobody config.toml || echo chown-blocked
        touch config.toml || echo touch-blocked
        /usr/bin/python3 -c "import os; os.setxattr(\"config.toml\", \"user.tf\", b\"1\")" 2>/dev/null || echo xattr-blocked
        /usr/bin/python3 -c "import os; os.chmod(os.open(\"data/sample.csv\", os.O_RDONLY), 0o600)" 2>/dev/null || echo fchmod-blocked
        ln -s ../config.toml tests/cfglink && chmod 600 tests/cfglink || echo link-chmod-blocked
        echo x > tests/mine && chmod 600 tests/mine && touch -d 2001-01-01 tests/mine && echo inside-ok'
    expect_status 120 # the command exited 0, but writes were blocked
    expect_output_has "TEST_SANDBOX_VIOLATION: chmod"
    for what in chmod chown touch xattr fchmod link-chmod; do expect_output_has "$what-blocked"; done
    expect_output_has "inside-ok"
    [ "$(stat -c %a tests/mine)" = 600 ]
    rm tests/cfglink
    [ -z "$(/usr/bin/python3 -c 'import os; print(os.listxattr("config.toml"))' | tr -d '[]')" ]
    assert_outside_unchanged
}

@test "a hard link in tests/ to an outside file is a hazard: refused, nothing created" {
    ln credentials.toml tests/creds-link
    fingerprint >"$BATS_TEST_TMPDIR/before"
    run "$TESTFENCE" run -- sh -c 'echo pwned > tests/creds-link'
    expect_status 125
    expect_output_has "refusing to run: the writable set holds 1 hazard:"
    expect_output_has "$P/tests/creds-link is a hard link to a file that also has 1 link(s) outside the writable set"
    expect_output_has "--allow-hazards"
    [ ! -e tests/artifacts ]
    assert_outside_unchanged
    # Two links both inside tests/ are no hazard.
    rm tests/creds-link
    echo a >tests/one && ln tests/one tests/two
    run "$TESTFENCE" run -- true
    expect_status 0
}

@test "a hazard found beside the command's set-up: the command never runs, nothing is made" {
    run "$TESTFENCE" run -- true # the artifacts dir exists: the scan runs beside the set-up
    expect_status 0
    ls tests/artifacts >"$BATS_TEST_TMPDIR/runs"
    ln credentials.toml tests/creds-link
    fingerprint >"$BATS_TEST_TMPDIR/before"
    run "$TESTFENCE" run -- sh -c 'echo ran > tests/ran; echo pwned > tests/creds-link'
    expect_status 125
    expect_output_has "refusing to run: the writable set holds 1 hazard:"
    [ ! -e tests/ran ]
    [ "$(cat credentials.toml)" != pwned ]
    ls tests/artifacts | diff "$BATS_TEST_TMPDIR/runs" - # no workspace, no report
    [ "$(echo "$output" | grep -c 'refusing to run')" = 1 ]
    assert_outside_unchanged
    # --keep-tmp: nothing ran, so no temp dir is kept (or left).
    run env TMPDIR="$BATS_TEST_TMPDIR/t" sh -c 'mkdir "$TMPDIR" && exec "$0" run --keep-tmp -- true' "$TESTFENCE"
    expect_status 125
    [[ "$output" != *"kept the run's temp dir"* ]]
    [ -z "$(find "$BATS_TEST_TMPDIR/t" -mindepth 2 -maxdepth 2)" ]
    # A declared output that does not exist yet: scanned first, so it is not created either.
    printf 'outputs = ["coverage.xml"]\n' >testfence.toml
    fingerprint >"$BATS_TEST_TMPDIR/before"
    run "$TESTFENCE" run -- sh -c 'echo ran > tests/ran'
    expect_status 125
    [ ! -e coverage.xml ]
    [ ! -e tests/ran ]
    assert_outside_unchanged
}

@test "a symlink in tests/ leading outside (even a dangling one) is no hazard: the run goes, a write through it is refused and reported, doctor notes it" {
    ln -s ../data tests/data-link
    ln -s ../no-such-dir tests/dangling
    run "$TESTFENCE" run -- sh -c 'cat tests/data-link/sample.csv >/dev/null'
    expect_status 0
    [[ "$output" != *hazard* ]]
    run "$TESTFENCE" run -- sh -c 'echo x > tests/data-link/sample.csv; exit 0'
    expect_status 120 # the command exited 0, but the write was blocked
    expect_output_has "attempted to write to $P/data/sample.csv"
    run "$TESTFENCE" run -- sh -c 'mkdir tests/dangling/x'
    [ "$status" -ne 0 ]
    [ ! -e "$P/no-such-dir" ]
    run "$TESTFENCE" doctor
    expect_output_has "$P/tests/data-link is a symlink to $P/data, outside the writable set"
    expect_output_has "hazards:   none"
    rm tests/data-link tests/dangling
    assert_outside_unchanged
}

@test "the run's temp dir: removed when the run passed, kept when it failed (pruning: test_runtmp), --keep-tmp and --no-keep-tmp" {
    local t="$BATS_TEST_TMPDIR/t" dir
    mkdir "$t"
    # The command writes into its temp dir and says where it is.
    local cmd='echo data >"$TMPDIR/f"; echo "$TMPDIR" >tests/tmpdir; exit "$0"'
    TMPDIR="$t" run "$TESTFENCE" run -- sh -c "$cmd" 0
    expect_status 0
    expect_output_lacks "kept"
    [ ! -e "$(cat tests/tmpdir)" ]
    TMPDIR="$t" run "$TESTFENCE" run -- sh -c "$cmd" 3
    expect_status 3
    dir=$(cat tests/tmpdir)
    [ -z "$output" ] # quiet, as pytest keeps a failed test's tmp_path; its failure shows where
    [ "$(cat "$dir/f")" = data ]
    [ -e "$dir/.testfence-failed" ]
    TMPDIR="$t" run "$TESTFENCE" run --no-keep-tmp -- sh -c "$cmd" 3
    expect_status 3
    expect_output_lacks "kept"
    [ ! -e "$(cat tests/tmpdir)" ]
    TMPDIR="$t" run "$TESTFENCE" run --keep-tmp -- sh -c "$cmd" 0
    expect_status 0
    expect_output_has "testfence: kept the run's temp dir $(cat tests/tmpdir)"
    [ -e "$(cat tests/tmpdir)/f" ]
    assert_outside_unchanged
}

@test "a run nested in another run keeps working (one seccomp listener per tree)" {
    # Under the ASan build the outer run's shim is preloaded ahead of the inner
    # binary's sanitizer runtime; tell ASan that order is expected here.
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
    run "$TESTFENCE" run -- "$TESTFENCE" run -- sh -c 'echo in > tests/inner; echo x > config.toml'
    [ "$status" -ne 0 ]
    [ "$(cat tests/inner)" = in ]
    assert_outside_unchanged
}

@test "chroot is refused and recorded: a chrooted process could no longer reach the record (root, and nobody in a user namespace of its own)" {
    if [ -n "${TESTFENCE_RUN_ID:-}" ]; then
        skip "nested under testfence: the outer run's guard holds the one seccomp listener"
    fi
    echo keep >tests/test_a.py
    chmod -R a+rwX "$P" && fingerprint >"$BATS_TEST_TMPDIR/before" # nobody's project too
    chroot_then_unlink='import ctypes, os, sys
if sys.argv[1] == "userns":
    assert ctypes.CDLL(None, use_errno=True).unshare(0x10000000) == 0  # CLONE_NEWUSER
os.chroot("tests"); os.chdir("/"); os.unlink("test_a.py")'
    run "$TESTFENCE" run -- /usr/bin/python3 -c "$chroot_then_unlink" root
    [ "$status" -ne 0 ]
    expect_output_has "PermissionError: [Errno 1] Operation not permitted: 'tests'"
    expect_output_has "a test cannot change mounts, chroot or open files by handle under testfence"
    grep -q '"op": "chroot"' tests/artifacts/_isolation_workspace_*/report.json
    rm -rf tests/artifacts
    run setpriv --reuid=nobody --regid=nogroup --clear-groups "$TESTFENCE" run -- /usr/bin/python3 -c "$chroot_then_unlink" userns
    [ "$status" -ne 0 ]
    expect_output_has "Operation not permitted: 'tests'"
    grep -q '"op": "chroot"' tests/artifacts/_isolation_workspace_*/report.json
    [ "$(cat tests/test_a.py)" = keep ]
    assert_outside_unchanged
}

@test "hazards hide nowhere: a repeated writable entry, the artifacts dir" {
    ln credentials.toml tests/creds-link
    printf 'writable = ["tests", "./tests"]\n' >testfence.toml
    fingerprint >"$BATS_TEST_TMPDIR/before"
    run "$TESTFENCE" run -- sh -c 'echo pwned >> tests/creds-link'
    expect_status 125
    expect_output_has "tests/creds-link is a hard link"
    rm tests/creds-link testfence.toml
    mkdir -p tests/artifacts && ln credentials.toml tests/artifacts/creds-link
    fingerprint >"$BATS_TEST_TMPDIR/before"
    run "$TESTFENCE" run -- sh -c 'echo pwned >> tests/artifacts/creds-link'
    expect_status 125
    expect_output_has "tests/artifacts/creds-link is a hard link"
    rm tests/artifacts/creds-link
    assert_outside_unchanged
}

@test "a symlink planted in the artifacts dir never makes testfence write outside" {
    mkdir "$BATS_TEST_TMPDIR/elsewhere" tests/artifacts
    # tmp/ itself a symlink: the run makes nothing there (its temp dir is outside the project).
    ln -s "$BATS_TEST_TMPDIR/elsewhere" tests/artifacts/tmp
    run "$TESTFENCE" run -- true
    expect_status 0
    [ -z "$(ls -A "$BATS_TEST_TMPDIR/elsewhere")" ]
    rm tests/artifacts/tmp
    mkdir -p tests/artifacts/tmp
    ln -s "$BATS_TEST_TMPDIR/elsewhere" tests/artifacts/tmp/20200101T000000Z-0000001
    ln -s "$BATS_TEST_TMPDIR/elsewhere" tests/artifacts/_pytest_tmp
    run "$TESTFENCE" run --retain 1 -- true
    expect_status 0
    [ -z "$(ls -A "$BATS_TEST_TMPDIR/elsewhere")" ]
    [ -L tests/artifacts/tmp/20200101T000000Z-0000001 ]
}

@test "the run's temp dir is refused when its per-user directory is not ours alone" {
    mkdir "$BATS_TEST_TMPDIR/t" "$BATS_TEST_TMPDIR/elsewhere"
    ln -s "$BATS_TEST_TMPDIR/elsewhere" "$BATS_TEST_TMPDIR/t/testfence-$(id -u)"
    TMPDIR="$BATS_TEST_TMPDIR/t" run "$TESTFENCE" run -- true
    expect_status 125
    expect_output_has "testfence-$(id -u) (a symlink?)"
    rm "$BATS_TEST_TMPDIR/t/testfence-$(id -u)"
    mkdir -m 0777 "$BATS_TEST_TMPDIR/t/testfence-$(id -u)"
    TMPDIR="$BATS_TEST_TMPDIR/t" run "$TESTFENCE" run -- true
    expect_status 125
    expect_output_has "it is not yours alone"
    [ -z "$(ls -A "$BATS_TEST_TMPDIR/elsewhere")" ]
}

@test "the metadata guard resolves a final '..' instead of trusting the name" {
    if [ -n "${TESTFENCE_RUN_ID:-}" ]; then
        skip "nested under testfence: the outer run's guard holds the one seccomp listener"
    fi
    touch -d '2020-01-01 00:00' .
    fingerprint >"$BATS_TEST_TMPDIR/before"
    run "$TESTFENCE" run -- sh -c 'touch -h tests/..; cd tests && touch -h -d 2001-01-01 ..'
    [ "$status" -ne 0 ]
    expect_output_has "Permission denied"
    assert_outside_unchanged
}

@test "a module a test plants in tests/ to shadow testfence, pytest or start-up: that run fails and moves it away; one there before, the next refuses" {
    run "$TESTFENCE" run -- sh -c 'echo "raise SystemExit" > tests/testfence.py'
    expect_status 120 # the write is allowed, but what it leaves fails this run
    expect_output_has "the command left 1 hazard in the writable set, which would switch the next run's fence off or make it refuse"
    expect_output_has "tests/testfence.py is a module inside the writable set: a Python started there would import it instead of the real testfence"
    expect_output_has "(this run made it: moved to $P/tests/artifacts/_isolation_workspace_"
    [ ! -e tests/testfence.py ]
    run "$TESTFENCE" run -- true
    expect_status 0
    run "$TESTFENCE" run -- sh -c 'printf "[pytest]\naddopts = -p no:testfence\n" > tests/pytest.ini'
    expect_status 120
    expect_output_has "tests/pytest.ini turns the testfence plugin off"
    [ ! -e tests/pytest.ini ]
    echo "raise SystemExit" >tests/testfence.py # the user's own: said, never moved
    run "$TESTFENCE" run -- true
    expect_status 125
    expect_output_has "tests/testfence.py is a module inside the writable set"
    rm tests/testfence.py
    echo "raise SystemExit" >tests/_testfence.py # where the plugin's code is
    run "$TESTFENCE" run -- true
    expect_status 125
    expect_output_has "tests/_testfence.py is a module inside the writable set"
    rm tests/_testfence.py
    # A package whose __init__ is an extension module: Python imports it as readily.
    mkdir tests/_testfence && : >tests/_testfence/__init__.abi3.so
    run "$TESTFENCE" run -- true
    expect_status 125
    expect_output_has "tests/_testfence is a module inside the writable set"
    rm -r tests/_testfence
    run "$TESTFENCE" run -- sh -c 'mkdir tests/pytest && : >tests/pytest/__init__.cpython-311-x86_64-linux-gnu.so'
    expect_status 120
    expect_output_has "tests/pytest is a module inside the writable set"
    [ ! -e tests/pytest ]
    mkdir -p tests/pluggy tests/sub && : >tests/pluggy/__init__.py && : >tests/sub/evil.pth
    run "$TESTFENCE" run -- true
    expect_status 125
    expect_output_has "tests/pluggy is a module inside the writable set"
    expect_output_has "tests/sub/evil.pth is a .pth file inside the writable set"
    # --allow-hazards runs anyway, and what was there before is no new hazard at the end.
    run "$TESTFENCE" run --allow-hazards -- true
    expect_status 0
    rm -r tests/pluggy tests/sub
    # A venv the suite made in the artifacts dir is its own business: not a hazard.
    mkdir -p tests/artifacts/venv/lib/site-packages/_pytest
    : >tests/artifacts/venv/lib/site-packages/_pytest/__init__.py
    : >tests/artifacts/venv/lib/site-packages/distutils-precedence.pth
    run "$TESTFENCE" run -- true
    expect_status 0
    assert_outside_unchanged
}

@test "blkid's probe of the machine's devices is no violation (read-only queries, a quiet cache)" {
    command -v blkid >/dev/null || skip "no blkid"
    run "$TESTFENCE" run -- blkid
    [ "$status" -ne 120 ]
    [[ "$output" != *TEST_SANDBOX_VIOLATION* ]]
    assert_outside_unchanged
}

@test "as root the command starts without the capabilities doctor names, and keeps the ordinary ones" {
    [ "$(id -u)" = 0 ] || skip "only root has capabilities to lose"
    [ -z "${TESTFENCE_RUN_ID:-}" ] || skip "nested: the outer run dropped them already"
    run "$TESTFENCE" run -- sh -c 'grep CapBnd /proc/self/status'
    expect_status 0
    local bnd names
    bnd=$(awk '/^CapBnd:/ { print $2 }' <<<"$output")
    names=$("$TESTFENCE" doctor 2>&1 | sed -n '/^root:      the command runs without/,/(each a way/p' |
        grep -o 'CAP_[A-Z_]*')
    [ "$(wc -w <<<"$names")" -ge 20 ]
    /usr/bin/python3 - "$bnd" $names <<'EOF'
import sys
bnd = int(sys.argv[1], 16)
nums = {"CAP_CHOWN": 0, "CAP_DAC_OVERRIDE": 1, "CAP_DAC_READ_SEARCH": 2, "CAP_FOWNER": 3,
        "CAP_KILL": 5, "CAP_SETGID": 6, "CAP_SETUID": 7, "CAP_LINUX_IMMUTABLE": 9,
        "CAP_NET_BIND_SERVICE": 10, "CAP_NET_ADMIN": 12, "CAP_NET_RAW": 13, "CAP_SYS_MODULE": 16,
        "CAP_SYS_RAWIO": 17, "CAP_SYS_PTRACE": 19, "CAP_SYS_PACCT": 20, "CAP_SYS_ADMIN": 21,
        "CAP_SYS_BOOT": 22, "CAP_SYS_TIME": 25, "CAP_SYS_TTY_CONFIG": 26, "CAP_MKNOD": 27,
        "CAP_AUDIT_CONTROL": 30, "CAP_SETFCAP": 31, "CAP_MAC_OVERRIDE": 32, "CAP_MAC_ADMIN": 33,
        "CAP_SYSLOG": 34, "CAP_WAKE_ALARM": 35, "CAP_BLOCK_SUSPEND": 36, "CAP_AUDIT_READ": 37,
        "CAP_PERFMON": 38, "CAP_BPF": 39, "CAP_CHECKPOINT_RESTORE": 40}
for name in sys.argv[2:]:
    assert not bnd & (1 << nums[name]), "%s is still in the bounding set %x" % (name, bnd)
for name in ("CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_KILL", "CAP_SETUID",
             "CAP_NET_BIND_SERVICE", "CAP_NET_RAW"):
    assert bnd & (1 << nums[name]), "%s was dropped: tests as root need it" % name
EOF
    # Started with them inheritable (a container may be), the command has them no more.
    run setpriv --inh-caps +setfcap,+mknod "$TESTFENCE" run -- sh -c 'grep CapInh /proc/self/status'
    expect_status 0
    expect_output_has "CapInh:	0000000000000000"
}

@test "what a command plants under a module Python imports, or as a symlink named like one or like pytest's configuration, fails its run and is moved away" {
    run "$TESTFENCE" run -- sh -c 'echo "import os" > tests/iniconfig.py; ln -s ../data tests/_pytest; printf "[pytest]\naddopts = -p no:testfence\n" > tests/cfg.txt; ln -s cfg.txt tests/pytest.ini; ln -s mine.txt tests/pytest.py'
    expect_status 120
    expect_output_has "tests/iniconfig.py is a module inside the writable set: a Python started there would import it instead of the real iniconfig"
    expect_output_has "tests/_pytest is a module (a symlink) inside the writable set"
    expect_output_has "tests/pytest.py is a module (a symlink) inside the writable set"
    expect_output_has "tests/pytest.ini is a symlink named like pytest's configuration"
    for f in iniconfig.py _pytest pytest.ini pytest.py; do
        if [ -e "tests/$f" ] || [ -L "tests/$f" ]; then echo "tests/$f is still there"; false; fi
    done
    # A module of the user's by such a name, there before the run, is left alone, even when
    # the run writes its bytecode beside it.
    echo "x = 1" >tests/json.py
    mkdir tests/email && echo "y = 1" >tests/email/__init__.py
    run "$TESTFENCE" run -- sh -c 'mkdir -p tests/email/__pycache__ tests/__pycache__; : >tests/email/__pycache__/x.pyc'
    expect_status 0
    [ -e tests/json.py ]
    [ -e tests/email/__init__.py ]
    assert_outside_unchanged
}

@test "a package made by renaming a directory older than the run (its birth time is old) fails the run and is moved away" {
    # Red-team finding: the end-of-run scan judged a directory by its birth time alone, and a
    # rename keeps it: the run's own xdg/cache (made before the run then) renamed to
    # tests/argparse/ with an __init__.py passed both scans, and a Python started in tests/ ran
    # it before any fence. Here an empty directory made before the run, and a package.
    mkdir -p tests/helpers tests/empty && echo "z = 1" >tests/helpers/__init__.py
    run "$TESTFENCE" run -- sh -c 'mv tests/empty tests/argparse && echo "import os" >tests/argparse/__init__.py && mv tests/helpers tests/inspect'
    expect_status 120
    expect_output_has "tests/argparse is a module inside the writable set: a Python started there would import it instead of the real argparse"
    expect_output_has "tests/inspect is a module inside the writable set"
    [ ! -e tests/argparse ]
    [ ! -e tests/inspect ]
    ls tests/artifacts/_isolation_workspace_*/quarantine/ | grep -q 'tests%inspect$' # kept, not lost
    run "$TESTFENCE" run -- true
    expect_status 0
    assert_outside_unchanged
}
