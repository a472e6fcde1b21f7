#!/usr/bin/env bats
# The diagnostic layer: the LD_PRELOAD shim's records, the live line, the summary,
# report.json, exit status 120, --backend preload, and the log read as untrusted input.

load ../support/helpers

bats_require_minimum_version 1.5.0

BIN=$(dirname "$TESTFENCE")
DRV="$BIN/tf_shimdrv"
CHECKLOG="/usr/bin/python3 $TESTFENCE_SRC/tests/support/checklog.py"

setup() {
    mkproject
    mkdir emptydir
    fingerprint >"$BATS_TEST_TMPDIR/before"
}

# The one run workspace's file NAME.
ws_file() { echo "$P"/tests/artifacts/_isolation_workspace_*/"$1"; }

# expect_ops FUNCTION...: the log holds a record for each function, and only for them.
expect_ops() {
    local want got
    want=$(printf '%s\n' "$@" | sort)
    got=$($CHECKLOG "$(ws_file violations.jsonl)" ops)
    if [ "$want" != "$got" ]; then
        diff <(echo "$want") <(echo "$got") >&2
        return 1
    fi
}

@test "open family: every function is recorded, with a live line, and the run exits 120" {
    run "$TESTFENCE" run -- "$DRV" open config.toml
    expect_status 120
    expect_ops open open64 openat openat64 __open_2 __open64_2 __openat_2 __openat64_2 \
        creat creat64 truncate truncate64
    expect_output_has "TEST_SANDBOX_VIOLATION: tf_shimdrv (pid "
    expect_output_has "attempted to write to $P/config.toml which is outside $P/tests/. How to fix:"
    expect_output_has "exiting 120 because writes were blocked"
    assert_outside_unchanged
}

@test "stdio family: fopen and freopen; tmpfile (which ignores TMPDIR) is made in the run's temp dir" {
    run "$TESTFENCE" run -- "$DRV" stdio config.toml
    expect_status 120
    expect_ops fopen fopen64 freopen freopen64
    expect_output_has "tmpfile: ok"
    expect_output_has "tmpfile64: ok"
    expect_output_lacks "attempted to write to /tmp which is outside"
    assert_outside_unchanged
}

@test "create family: mkdir, mknod, mkfifo and symlink, plain and *at" {
    run "$TESTFENCE" run -- "$DRV" create data
    expect_status 120
    expect_ops mkdir mkdirat mknod mknodat mkfifo mkfifoat symlink symlinkat
    [ ! -e data/new ]
    assert_outside_unchanged
}

@test "remove, rename and link families" {
    run "$TESTFENCE" run -- "$DRV" remove config.toml emptydir
    expect_status 120
    expect_ops unlink unlinkat rmdir
    rm -rf tests/artifacts
    run "$TESTFENCE" run -- "$DRV" rename config.toml data/moved.toml
    expect_status 120
    expect_ops rename renameat renameat2 link linkat
    # The name written (the target) is the one reported.
    expect_output_has "attempted to write to $P/data/moved.toml"
    assert_outside_unchanged
}

@test "temporary-file family: mkstemp and friends, mkdtemp" {
    run "$TESTFENCE" run -- "$DRV" temp data
    expect_status 120
    expect_ops mkstemp mkstemp64 mkostemp mkostemp64 mkstemps mkstemps64 mkostemps \
        mkostemps64 mkdtemp
    assert_outside_unchanged
}

@test "metadata family: chmod, chown, utimes and xattrs are refused and recorded" {
    if [ -n "${TESTFENCE_RUN_ID:-}" ]; then
        skip "nested under testfence: the outer run's guard holds the one seccomp listener"
    fi
    run "$TESTFENCE" run -- "$DRV" meta config.toml
    expect_status 120
    expect_ops chmod lchmod fchmod fchmodat chown lchown fchown fchownat utime utimes lutimes \
        futimes futimesat utimensat futimens setxattr lsetxattr fsetxattr removexattr \
        lremovexattr fremovexattr
    assert_outside_unchanged
}

@test "writes inside tests/ and reads anywhere leave no record and no summary" {
    run "$TESTFENCE" run -- sh -c 'cat config.toml >/dev/null; echo ok > tests/ok; mkdir tests/d;
        mv tests/ok tests/d/ok; chmod 600 tests/d/ok; touch tests/d/ok; rm -r tests/d'
    expect_status 0
    [ "$output" = "" ]
    [ ! -e "$(ws_file violations.jsonl)" ]
    grep -q '"blocked": 0' "$(ws_file report.json)"
}

@test "examples/clobber: every careless test is named with operation and path; good tests are not" {
    cp -r "$TESTFENCE_SRC/examples/clobber/." .
    rm -rf tests/artifacts
    fingerprint >"$BATS_TEST_TMPDIR/before"
    run env -u PYTHONDONTWRITEBYTECODE "$TESTFENCE" run -- /usr/bin/python3 -m pytest -q -p no:randomly
    expect_status 1
    t=tests/test_settings.py
    expect_output_has "  $t::test_save_overwrites_manual_slop_with_open: 1 blocked write
    open64     $P/manual_slop.toml (EACCES)"
    expect_output_has "  $t::test_save_through_path_write_text: 1 blocked write
    open64     $P/config.toml (EACCES)"
    expect_output_has "  $t::test_shell_helper_clobbers_config: 1 blocked write
    open64     $P/config.toml (EACCES)"
    expect_output_has "  $t::test_credentials_reset: 1 blocked write
    open64     $P/credentials.toml (EACCES)"
    expect_output_has "4 writes outside the writable set were blocked"
    run $CHECKLOG "$(ws_file violations.jsonl)" tests
    [ "$output" = "$t::test_credentials_reset
$t::test_save_overwrites_manual_slop_with_open
$t::test_save_through_path_write_text
$t::test_shell_helper_clobbers_config" ]
    /usr/bin/python3 - "$(ws_file report.json)" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["schema"] == "testfence-report/1" and r["blocked"] == 4 and r["status"] == 1
tests = {t["test"]: t for t in r["tests"]}
w = tests["tests/test_settings.py::test_shell_helper_clobbers_config"]["writes"][0]
assert w["op"] == "open64" and w["path"] == "../config.toml" and w["exe"].endswith("sh"), w
assert w["phase"] == "call" and w["count"] == 1 and w["error"] == "EACCES"
PY
    assert_outside_unchanged
}

@test "pytest -n 2: both xdist workers' records are complete and well-formed" {
    /usr/bin/python3 -c 'import xdist' || skip "python3-pytest-xdist is not installed"
    cat >tests/test_many.py <<'PY'
import pytest
@pytest.mark.parametrize("i", range(60))
def test_clobber(i):
    with pytest.raises(PermissionError):
        open(f"data/out{i}.txt", "w")
PY
    run "$TESTFENCE" run -- /usr/bin/python3 -m pytest -q -p xdist.plugin -n 2 -p no:cacheprovider tests/test_many.py
    expect_status 120
    expect_output_has "60 passed"
    log=$(ws_file violations.jsonl)
    [ "$($CHECKLOG "$log" count)" -eq 60 ]
    [ "$($CHECKLOG "$log" pids)" -ge 2 ]
    [ "$($CHECKLOG "$log" tests | grep -c 'tests/test_many.py::test_clobber\[')" -eq 60 ]
    assert_outside_unchanged
}

@test "--allow-violations keeps the command's status; --test-env names another variable" {
    run "$TESTFENCE" run --allow-violations -- sh -c 'echo x > config.toml; exit 0'
    expect_status 0
    expect_output_has "1 write outside the writable set was blocked"
    rm -rf tests/artifacts
    MY_TEST=suite/case-7 run "$TESTFENCE" run --test-env MY_TEST -- sh -c 'echo x > config.toml'
    expect_status 2
    expect_output_has "TEST_SANDBOX_VIOLATION: suite/case-7 attempted to write to $P/config.toml"
    run "$TESTFENCE" run --test-env 'bad name' -- true
    expect_status 125
}

@test "LD_PRELOAD is appended to the user's, and --dry-run shows it" {
    # (An ASan build of testfence would refuse a preload ahead of its runtime.)
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 LD_PRELOAD=libm.so.6 \
        run "$TESTFENCE" run -- sh -c 'echo "$LD_PRELOAD"'
    expect_status 0
    [ "$output" = "libm.so.6 $BIN/libtestfence_preload.so" ] || [ "$output" = "libm.so.6 $(realpath "$BIN")/libtestfence_preload.so" ]
    run "$TESTFENCE" run --dry-run -- true
    expect_output_has "LD_PRELOAD="
    expect_output_has "libtestfence_preload.so"
}

# send_records: a python3 program that sends its arguments, each as one datagram, to the
# record socket named in the shim's configuration (as a hostile command could).
SEND='import os, socket, sys
conf = open(os.environ["TESTFENCE_SHIM_CONF"]).read().splitlines()
path = [l.split("\t")[2] for l in conf if l.startswith("sink\tsocket\t")][0]
if len(path) >= 108:  # too long for sun_path (nested runs): through its directory
    d = os.open(os.path.dirname(path), os.O_PATH)
    path = "/proc/self/fd/%d/%s" % (d, os.path.basename(path))
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
for a in sys.argv[1:]:
    s.sendto(a.encode(), path)'

@test "forged, cut and over-long records sent to testfence are dropped; escapes are not printed" {
    run "$TESTFENCE" run -- sh -c '
        /usr/bin/python3 -c "$0" \
            "{\"v\":1,\"pid\":7,\"op\":\"open\",\"resolved\":\"/x\",\"errno\":13,\"blocked_by\":\"kernel\",\"test\":{}}" \
            "{\"v\":1,\"pid\":7,\"op\":\"op" \
            "{\"v\":1,\"pid\":7,\"op\":\"open\",\"resolved\":\"/evil\",\"errno\":13,\"blocked_by\":\"kernel\",\"test\":\"t\\u001b]0;pwned\\u0007\"}" \
            "$(head -c 20000 /dev/zero | tr "\0" x)"
        echo x > config.toml' "$SEND"
    expect_status 2
    expect_output_has "3 malformed records sent to testfence were dropped"
    expect_output_has "2 writes outside the writable set were blocked"
    expect_output_has "t?]0;pwned?: 1 blocked write"
    [[ "$output" != *$'\e'* ]]
    [[ "$output" != *$'\a'* ]]
    # The pid is the sender's, as the kernel says, not the 7 it claimed.
    [ "$(grep -o '"pid":[0-9]*,' "$(ws_file violations.jsonl)" | sort -u | wc -l)" -eq 2 ]
    ! grep -q '"pid":7,' "$(ws_file violations.jsonl)"
    assert_outside_unchanged
}

# What a command runs, in its shell, to wait until testfence has written the blocked write's
# record to the workspace (records reach testfence asynchronously).
WAIT_LOG='until [ -s "$TESTFENCE_WORKSPACE/violations.jsonl" ]; do sleep 0.05; done'

@test "a deleted violation log fails the run, says so, and reports what was blocked" {
    run "$TESTFENCE" run -- sh -c "echo x > config.toml; $WAIT_LOG; "'rm "$TESTFENCE_WORKSPACE/violations.jsonl"; true'
    expect_status 120
    expect_output_has "violations.jsonl was deleted during the run: a test must not touch testfence's record"
    expect_output_has "1 write outside the writable set was blocked"
    [ "$($CHECKLOG "$(ws_file violations.jsonl)" count)" -eq 1 ] # restored
    assert_outside_unchanged
}

@test "a rewritten, emptied or forged violation log fails the run and is restored" {
    run "$TESTFENCE" run -- sh -c "echo x > config.toml; $WAIT_LOG; "': > "$TESTFENCE_WORKSPACE/violations.jsonl"; true'
    expect_status 120
    expect_output_has "violations.jsonl was changed during the run"
    [ "$($CHECKLOG "$(ws_file violations.jsonl)" count)" -eq 1 ]
    rm -rf tests/artifacts
    run "$TESTFENCE" run -- sh -c "echo x > config.toml; $WAIT_LOG; "'printf "{}\n" >> "$TESTFENCE_WORKSPACE/violations.jsonl"; true'
    expect_status 120
    expect_output_has "violations.jsonl was changed during the run"
    rm -rf tests/artifacts
    run "$TESTFENCE" run -- sh -c 'printf "{}\n" > "$TESTFENCE_WORKSPACE/violations.jsonl"'
    expect_status 120
    expect_output_has "violations.jsonl was written, but not by testfence (nothing was blocked)"
    [ ! -s "$(ws_file violations.jsonl)" ]
    # Said again at the end where a summary is printed with no write in it (the preload
    # backend always prints one): the reason is the log, not a refused write.
    rm -rf tests/artifacts
    run "$TESTFENCE" run --backend preload -- sh -c 'printf "{}\n" > "$TESTFENCE_WORKSPACE/violations.jsonl"'
    expect_status 120
    expect_output_has "testfence: the command exited 0; exiting 120 because testfence's record was touched"
    expect_output_lacks "protected test files"
    # With a write blocked and --allow-violations, the run fails for the record, not the write.
    rm -rf tests/artifacts
    run "$TESTFENCE" run --allow-violations -- sh -c "echo x > config.toml; $WAIT_LOG; "': > "$TESTFENCE_WORKSPACE/violations.jsonl"; true'
    expect_status 120
    expect_output_has "testfence: the command exited 0; exiting 120 because testfence's record was touched"
    expect_output_lacks "because writes were blocked"
    assert_outside_unchanged
}

@test "a log replaced by a FIFO or a symlink does not hang or mislead the report" {
    run timeout 20 "$TESTFENCE" run -- sh -c "echo x > config.toml; $WAIT_LOG; "'rm "$TESTFENCE_WORKSPACE/violations.jsonl"; mkfifo "$TESTFENCE_WORKSPACE/violations.jsonl"; true'
    expect_status 120
    expect_output_has "was replaced by something that is not a regular file"
    expect_output_has "1 write outside the writable set was blocked"
    rm -rf tests/artifacts
    run timeout 20 "$TESTFENCE" run -- sh -c 'ln -s /etc/passwd "$TESTFENCE_WORKSPACE/violations.jsonl"; ln -s /etc/hostname "$TESTFENCE_WORKSPACE/report.json"'
    expect_status 120
    expect_output_has "was replaced by something that is not a regular file"
    [ -f "$(ws_file report.json)" ]
    [ ! -L "$(ws_file report.json)" ]
    [ -f "$(ws_file violations.jsonl)" ]
    [ ! -L "$(ws_file violations.jsonl)" ]
}

@test "a workspace removed during the run is said, and what was blocked still reported" {
    run "$TESTFENCE" run -- sh -c "echo x > config.toml; $WAIT_LOG; "'rm -rf "$TESTFENCE_WORKSPACE"; true'
    expect_status 120
    expect_output_has "was removed while the command ran"
    expect_output_has "was removed with the whole run workspace during the run"
    expect_output_has "1 write outside the writable set was blocked"
    assert_outside_unchanged
    run "$TESTFENCE" run -- sh -c 'rm -rf "$TESTFENCE_WORKSPACE"'
    expect_status 0 # nothing was blocked: nothing was lost
    expect_output_has "was removed while the command ran"
}

@test "10,000 blocked writes: fast, the live lines stop at 100, the summary stays short" {
    start=$SECONDS
    run "$TESTFENCE" run -- "$DRV" many config.toml 10000
    expect_status 120
    expect_output_has "many: 10000 of 10000 failed"
    expect_output_has "10000 writes outside the writable set were blocked (1 distinct)"
    expect_output_has "open       $P/config.toml (EACCES) x10000"
    expect_output_has "further violations in this process are only logged"
    [ "$(grep -c '^TEST_SANDBOX_VIOLATION' <<<"$output")" -eq 100 ]
    [ "$($CHECKLOG "$(ws_file violations.jsonl)" count)" -eq 10000 ]
    rm -rf tests/artifacts
    # 10,000 distinct writes from 100 tests: the summary lists 20 tests of 10 writes.
    run "$TESTFENCE" run -- /usr/bin/python3 -c '
import os
for t in range(100):
    os.environ["PYTEST_CURRENT_TEST"] = f"tests/test_x.py::test_{t} (call)"
    for i in range(100):
        try:
            open(f"data/f{t}_{i}", "w")
        except PermissionError:
            pass'
    expect_status 120
    expect_output_has "10000 writes outside the writable set were blocked (10000 distinct)"
    expect_output_has "... and 90 more distinct writes (see report.json)"
    expect_output_has "... and 80 more tests (see report.json)"
    [ "$(grep -vc '^TEST_SANDBOX_VIOLATION' <<<"$output")" -lt 300 ]
    [ $((SECONDS - start)) -lt 60 ]
    grep -q '"blocked": 10000,' "$(ws_file report.json)"
    assert_outside_unchanged
}

@test "a configuration a test attaches adds to what the shim refuses and records, never takes away" {
    # The shim stacks a second configuration on the first (a plugin-fenced pytest inside a
    # run): a test attaching its own, without the run's sink or in diagnose mode, must not
    # hide its writes from the run's report nor, under --backend preload, let them through.
    cat >tests/attach.py <<'PY'
import ctypes, os, sys
src = open(os.environ["TESTFENCE_SHIM_CONF"]).read().splitlines()
keep = [l for l in src if not l.startswith("sink")]
keep = ["mode\tdiagnose" if l.startswith("mode") else l for l in keep]
conf = os.path.abspath("tests/mine.conf")
with open(conf, "w") as f:
    f.write("\n".join(keep) + "\n")
assert ctypes.CDLL(None).testfence_shim_attach(conf.encode()) == 0
# A configuration the shim cannot hold fails, though one is in force: its caller must know.
assert ctypes.CDLL(None).testfence_shim_attach(b"/" + b"x" * 5000) == -1
assert ctypes.CDLL(None).testfence_shim_attach(b"relative.conf") == -1
try:
    with open("config.toml", "w") as f:
        f.write("clobbered\n")
    print("WRITTEN")
except PermissionError:
    print("REFUSED")
PY
    run "$TESTFENCE" run -- /usr/bin/python3 tests/attach.py
    expect_status 120
    expect_output_has "REFUSED"
    expect_output_has "$P/config.toml"
    grep -q "config.toml" "$(ws_file report.json)"
    rm -rf tests/artifacts tests/mine.conf
    assert_outside_unchanged
    run "$TF_NOLANDLOCK" "$TESTFENCE" run --backend preload -- /usr/bin/python3 tests/attach.py
    expect_status 120
    expect_output_has "REFUSED"
    expect_output_lacks "WRITTEN"
    grep -q "config.toml" "$(ws_file report.json)"
    rm -rf tests/artifacts tests/mine.conf
    assert_outside_unchanged
}

@test "--backend preload: the shim refuses writes itself, loudly labelled weaker" {
    run "$TF_NOLANDLOCK" "$TESTFENCE" run --backend preload --dry-run -- true
    expect_status 0
    expect_output_has "backend:   preload (WEAKER than landlock"
    run "$TF_NOLANDLOCK" "$TESTFENCE" run --backend preload -- sh -c 'echo x > config.toml; echo in > tests/in'
    expect_status 120
    expect_output_has "WARNING: --backend preload"
    expect_output_has "config.toml: Permission denied"
    expect_output_has "(EACCES, refused by the shim)"
    expect_output_has "static"
    [ "$(cat tests/in)" = in ]
    grep -q '"weak_backend": true' "$(ws_file report.json)"
    assert_outside_unchanged
    rm -rf tests/artifacts
    for fam in "open config.toml" "create data" "remove config.toml emptydir" \
        "rename config.toml data/moved.toml" "temp data" "meta config.toml" "stdio config.toml"; do
        run "$TF_NOLANDLOCK" "$TESTFENCE" run --backend preload -- "$DRV" $fam
        expect_status 120
        # tmpfile's file is made in the run's temp dir, inside the writable set.
        [[ "$(grep -v '^tmpfile' <<<"$output")" != *": ok"* ]] || { echo "$output" >&2; false; }
        rm -rf tests/artifacts
    done
    assert_outside_unchanged
    # posix_spawn's file actions open in the child, inside libc: refused when asked for
    # (review finding: the preload backend let them through).
    run "$TF_NOLANDLOCK" "$TESTFENCE" run --backend preload -- /usr/bin/python3 -c 'import os
os.posix_spawn("/bin/true", ["true"], os.environ,
               file_actions=[(os.POSIX_SPAWN_OPEN, 1, "config.toml", os.O_WRONLY | os.O_TRUNC, 0)])'
    expect_status 1
    expect_output_has "PermissionError"
    expect_output_has "posix_spawn $P/config.toml (EACCES, refused by the shim)"
    rm -rf tests/artifacts
    assert_outside_unchanged
    # A call that fails on its own writes nothing: let through, to fail as without testfence
    # (the python backend's children and xdist workers ran into it: makedirs(exist_ok=True)).
    run "$TF_NOLANDLOCK" "$TESTFENCE" run --backend preload -- /usr/bin/python3 -c 'import os, pathlib
os.makedirs(os.getcwd(), exist_ok=True)
os.makedirs("/usr/lib", exist_ok=True)
pathlib.Path("missing.txt").unlink(missing_ok=True)
try:
    os.rmdir("nodir")
except FileNotFoundError:
    pass
try:
    os.mkdir("config.toml")
except FileExistsError:
    print("EEXIST as without testfence")'
    expect_status 0
    expect_output_has "EEXIST as without testfence"
    expect_output_lacks "TEST_SANDBOX_VIOLATION"
    expect_output_has "no blocked writes were recorded"
    rm -rf tests/artifacts
    assert_outside_unchanged
    # What it cannot stop, said and shown: a raw syscall (outside the project, to keep it intact).
    run "$TF_NOLANDLOCK" "$TESTFENCE" run --backend preload -- "$TF_PROBE" write "$BATS_TEST_TMPDIR/escaped"
    [ "$output" != "${output/ok/}" ]
    [ -e "$BATS_TEST_TMPDIR/escaped" ]
}

@test "doctor describes the shim and labels the preload backend weaker" {
    run "$TESTFENCE" doctor
    expect_output_has "diagnostics: "
    expect_output_has "preload backend: available with --backend preload only; WEAKER"
}

@test "testfence killed by SIGKILL: the next run, or clean, says so and what the log held" {
    # Once testfence has written the command's record, it is killed from outside (the
    # command cannot see it from its PID namespace); its whole tree goes with it, unless
    # nested in another run (no PID namespace there: the outer run sweeps it at its end).
    "$TESTFENCE" run -- sh -c 'echo x > config.toml; exec sleep 299.5' 2>/dev/null &
    local tf=$! i st=0
    for i in $(seq 200); do
        [ -s "$(ws_file violations.jsonl 2>/dev/null)" ] && break
        sleep 0.05
    done
    kill -KILL "$tf"
    wait "$tf" || st=$?
    [ "$st" -eq 137 ]
    if [ -z "${TESTFENCE_RUN_ID:-}" ]; then
        for i in $(seq 100); do pgrep -fx 'sleep 299.5' >/dev/null || break; sleep 0.05; done
        ! pgrep -fx 'sleep 299.5'
    fi
    pkill -fx 'sleep 299.5' || true
    id=$(basename "$(ls -d tests/artifacts/_isolation_workspace_*)" | sed 's/_isolation_workspace_//')
    run "$TESTFENCE" clean --retain 5
    expect_status 0
    expect_output_has "testfence: the earlier run $id did not finish (testfence, or the pytest that fenced itself, was killed): its violation log holds 1 blocked write (1 distinct)"
    grep -q '"status": -1' "$(ws_file report.json)"
    run "$TESTFENCE" run -- true # said once
    expect_status 0
    [[ "$output" != *"did not finish"* ]]
    # And from the next run, when clean did not come first.
    rm -rf tests/artifacts
    "$TESTFENCE" run -- sleep 298.5 2>/dev/null &
    tf=$!
    for i in $(seq 200); do pgrep -fx 'sleep 298.5' >/dev/null && break; sleep 0.05; done
    kill -KILL "$tf"
    wait "$tf" || true
    pkill -fx 'sleep 298.5' || true # nested, no PID namespace takes it with testfence
    run "$TESTFENCE" run -- true
    expect_status 0
    expect_output_has "did not finish (testfence, or the pytest that fenced itself, was killed): its violation log holds 0 blocked writes (0 distinct)"
    assert_outside_unchanged
}

@test "every run that ends leaves report.json, also without the shim or when the command cannot start" {
    run "$TESTFENCE" run --backend none -- true
    expect_status 0
    run -127 "$TESTFENCE" run -- no-such-command-xyz
    [ "$(ls tests/artifacts/_isolation_workspace_*/report.json | wc -l)" -eq 2 ]
    run "$TESTFENCE" run -- true
    [[ "$output" != *"did not finish"* ]]
}

@test "HOME under /tmp (a CI container's): a write to ~/.x gets the home hint, not the /tmp one" {
    # Under /tmp, made where this test may write (TMPDIR lies under /tmp under testfence run).
    home=$(mktemp -d "${TMPDIR:-/tmp}/tf-somehome.XXXXXX")
    [[ $home == /tmp/* ]] || skip "TMPDIR is not under /tmp"
    HOME=$home PYTEST_CURRENT_TEST="tests/test_h.py::test_x (call)" \
        run "$TESTFENCE" run -- sh -c "echo x > '$home/.apprc'; true"
    rm -rf "$home"
    expect_status 120
    expect_output_has "attempted to write to $home/.apprc which is outside $P/tests/. How to fix: a file in your home directory: point the code at tmp_path"
    [[ "$output" != *"hard-coded /tmp path"* ]]
    HOME=$home run "$TESTFENCE" run -- sh -c "echo x > /tmp/tf-fixed-name-$$; true"
    expect_status 120
    expect_output_has "How to fix: a hard-coded /tmp path"
}
