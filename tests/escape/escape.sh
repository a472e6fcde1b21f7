#!/usr/bin/env bash
# escape.sh: one case of the escape corpus, as one user, start to finish (escape.bats
# runs it once per case and user; a script, not bats functions, because bats traces
# every command it runs and that made the corpus five times slower).
#   1. control: the same command on a copy of the project, unfenced (--backend none),
#      must succeed and change the copy, so a broken case cannot pass by failing;
#   2. fenced: under `testfence run` the attempt must fail and everything outside
#      tests/ (content, entries, mode, owner, mtime/ctime, xattrs, inode flags) must be
#      exactly as before;
#   3. report: if the run wrote report.json, the attempt must be listed in it (only for
#      cases the LD_PRELOAD shim can see: a libc call in a dynamic program).
#   With E_WRAP set (corpus-nons: E_WRAP is nons), both runs are started through it, so
#   namespaces are unavailable to them and the fallback layer is what holds.
# usage: escape.sh CASE root|nobody WORKDIR   (env: TF and the E_* drivers, see escape.bats)
# Prints the result as its last line of stdout, diagnostics on stderr; exits 0 (blocked,
# or an expected failure), 1 (failed), 4 (skipped).
set -u

# ---- known failures ------------------------------------------------------------------
# Cases that are expected to fail until the named work lands. The harness is strict: a
# case listed here that passes fails with XPASS, so the list cannot go stale.
declare -A XFAIL=(
)

# Cases the fallback (the seccomp guard, where namespaces are unavailable: corpus-nons,
# and any run nested in another, whose fence forbids mounts) cannot hold, on top of
# XFAIL; strict too. docs/security.md lists the same.
declare -A XFAIL_NONS=(
    [meta_race]="fallback: the guard's check-then-continue race"
    [uring_setxattr]="fallback: io_uring IORING_OP_SETXATTR is not seen by seccomp"
    [uring_fsetxattr]="fallback: io_uring IORING_OP_FSETXATTR is not seen by seccomp"
    [tree_sigkill]="fallback: no PID namespace; testfence SIGKILLed, its subreaper is gone and the tree is reparented"
    [mqueue_unlink]="fallback: no IPC namespace; POSIX message queues are the machine's"
)

# Cases whose attempt is blocked but which the report does not list although the
# shim could see the call (strict too: a case listed here that is reported fails).
declare -A REPORT_XFAIL=(
)

# newproj DIR: a project with root files worth protecting; cd into it; P names it.
newproj() {
    P="$1"
    mkdir -p "$P/tests" "$P/data/sub" "$P/empty-dir" "$P/.git"
    printf 'theme = "dark"\n' >"$P/config.toml"
    printf '[keys]\nopenai = "sk-secret"\n' >"$P/credentials.toml"
    printf 'sample\n' >"$P/data/sample.csv"
    printf 'deep\n' >"$P/data/sub/deep.txt"
    printf 'inside tests\n' >"$P/tests/mine.txt"
    setfattr -n user.keep -v 1 "$P/config.toml" # for the removexattr cases
    cd "$P" || return 1
}

# xfail_reason: why this case is expected to fail in this corpus (nothing: it is not).
xfail_reason() {
    if [ -n "${XFAIL[$CASE]+x}" ]; then
        echo "${XFAIL[$CASE]}"
    elif [ -n "$FALLBACK" ] && [ -n "${XFAIL_NONS[$CASE]+x}" ]; then
        echo "${XFAIL_NONS[$CASE]}"
    fi
}

# set_user: AS_USER, the prefix that runs a command as the test's user. nobody has no
# home; give it one that exists nowhere so tools (git) do not read root's. A prefix, not
# a function, so a command started in the background is the process itself.
set_user() {
    if [ "$RUN_USER" = nobody ]; then
        AS_USER=(setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/nonexistent)
    else
        AS_USER=()
    fi
}

# prepare DIR: a fresh project in DIR with the case's fixtures, owned by the test's user.
prepare() {
    newproj "$1"
    CMD=() EXPECT="" TARGET="config.toml" SHIM=1 CTL_STATUS=0 FENCED_STATUS="" CTL_CHANGES=1
    SKIP="" CORE_NOTE="" OPTS=() STDIN_FILE="" STDIN_OPATH="" POST_WAIT=0 KILL_AFTER=""
    FENCED_CHECK="" CLEANUP=""
    MARK="tf-escape-$CASE-$RUN_USER-$$-$RANDOM" # in the command line of what a case starts
    unset CTL_OPTS
    "c_$CASE"
    case $CASE in
    meta_* | ia32_* | uring_*setxattr*)
        # The metadata guard is a seccomp listener, and the kernel allows one per process
        # tree: nested in another run, the outer guard (whose writable set holds this
        # whole project) answers instead, so these cases cannot be tested here.
        if [ -n "${TESTFENCE_RUN_ID:-}" ]; then
            SKIP="nested under testfence: the outer run's guard holds the one seccomp listener"
        fi
        ;;
    child_clone3)
        # nons answers every clone3 with ENOSYS (seccomp cannot read its flags), so this
        # driver cannot make its child at all there.
        [ ${#WRAP[@]} -eq 0 ] || SKIP="nons refuses clone3 (ENOSYS: seccomp cannot read its flags)"
        ;;
    esac
    [ -n "${CTL_OPTS+x}" ] || CTL_OPTS=("${OPTS[@]}")
    if [ "$RUN_USER" = nobody ]; then
        # Only the fence may stop the write: nobody owns everything (the group stays
        # root's, so the chown case as nobody has something to change).
        chown -R nobody "$P"
    fi
}

# runc CMD...: run CMD, keeping its exit status, stdout and stderr apart. Its stdin is
# /dev/null, or STDIN_FILE when the case sets one (opened here, outside the fence, as a
# user's shell does); stdout and stderr are pipes, as under CI (a file outside the
# writable set would cost the run io_uring). With KILL_AFTER, CMD is started in the
# background and SIGKILLed that many seconds later (CMD must exec its way to testfence,
# so the pid is testfence's). With POST_WAIT, what the command left behind gets that
# long to act (wait_late). fd 3 is bats' own: nothing a case leaves behind may keep it
# open.
runc() {
    local in=/dev/null readers
    [ -z "$STDIN_FILE" ] || in=$STDIN_FILE
    status=0
    rm -f "$W/out.fifo" "$W/err.fifo"
    mkfifo "$W/out.fifo" "$W/err.fifo"
    cat "$W/out.fifo" >"$W/out" 3>&- &
    readers=$!
    cat "$W/err.fifo" >"$W/err" 3>&- &
    readers="$readers $!"
    if [ -n "$STDIN_OPATH" ]; then # an O_PATH fd as stdin: a launcher handing the path down
        set -- /usr/bin/python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_PATH)
os.dup2(fd, 0)
os.execvp(sys.argv[2], sys.argv[2:])' "$STDIN_OPATH" "$@"
    fi
    if [ -n "$KILL_AFTER" ]; then
        "$@" <"$in" >"$W/out.fifo" 2>"$W/err.fifo" 3>&- &
        local pid=$! n=50
        sleep "$KILL_AFTER"
        # ... and once what the case starts is up (esc_late writes tests/late.pid), so a
        # slow start cannot make the kill come first.
        while [ "$n" -gt 0 ] && ! [ -e "$P/tests/late.pid" ]; do
            sleep 0.1
            n=$((n - 1))
        done
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null || status=$? # (not bash's "Killed" line)
    else
        "$@" <"$in" >"$W/out.fifo" 2>"$W/err.fifo" 3>&- || status=$?
    fi
    [ "$POST_WAIT" = 0 ] || wait_late "$POST_WAIT"
    # shellcheck disable=SC2086 # one pid a word
    wait $readers # what a case leaves running has let go of the pipes (esc_late does)
    rm -f "$W/out.fifo" "$W/err.fifo"
    output=$(cat "$W/out")
    stderr=$(cat "$W/err")
}

# marked: the pids of the processes whose command line holds this case's MARK.
marked() {
    pgrep -f -- "$MARK" || true
}

# wait_late SECONDS: wait until nothing of the case is running any more, or until what
# it left behind has acted (esc_late writes tests/late.out) and had half a second to
# exit; at most SECONDS.
wait_late() {
    local n=$(($1 * 10)) acted=""
    while [ "$n" -gt 0 ] && [ -n "$(marked)" ]; do
        if [ -z "$acted" ] && [ -e "$P/tests/late.out" ]; then
            acted=1 n=5
        fi
        sleep 0.1
        n=$((n - 1))
    done
}

# kill_marked: end what the case left running (by pid); say whether there was any.
kill_marked() {
    local pids
    pids=$(marked)
    [ -n "$pids" ] || return 1
    # shellcheck disable=SC2086 # one pid a word
    kill -KILL $pids 2>/dev/null
    return 0
}

# escape CASE USER: the control, the fenced attempt, the report.
escape() {
    CASE=$1 RUN_USER=$2 DETAIL=""
    set_user
    declare -f "c_$CASE" >/dev/null || {
        DETAIL="no case c_$CASE"
        return 1
    }
    if [ "$RUN_USER" = root ]; then
        CHOWN_TO=(65534 65534) # a different owner and group
    else
        CHOWN_TO=(-1 65534) # nobody may only give its file to its own group
    fi

    # 1. Control: unfenced, the case must work and change something.
    prepare "$W/ctl"
    if [ -n "${SKIP:-}" ]; then
        RESULT="skipped ($SKIP)"
        return 4
    fi
    fingerprint_meta >"$W/ctl.before"
    runc "${AS_USER[@]}" "${WRAP[@]}" "$TF" run --backend none "${CTL_OPTS[@]}" -- "${CMD[@]}"
    fingerprint_meta >"$W/ctl.after"
    kill_marked || true
    [ -z "$CLEANUP" ] || "$CLEANUP"
    if [ "$status" -eq 3 ] && [[ "$stderr" == *"io_uring_queue_init: "* ]]; then
        # esc_uring got no ring at all: nested in a run that goes without io_uring (its
        # output goes to a file outside), or a kernel without it. Nothing to test here.
        RESULT="skipped (no io_uring here: ${stderr##*io_uring_queue_init: })"
        return 4
    fi
    if [ "$status" -ne "$CTL_STATUS" ]; then
        DETAIL="control: exit $status, expected $CTL_STATUS"
        printf 'control (unfenced) failed: exit %s\nstdout: %s\nstderr: %s\n' \
            "$status" "$output" "$stderr" >&2
        return 1
    fi
    if [ "$CTL_CHANGES" = 1 ] && cmp -s "$W/ctl.before" "$W/ctl.after"; then
        DETAIL="control changed nothing"
        echo "control (unfenced) succeeded but changed nothing outside tests/: the case is dead" >&2
        return 1
    fi

    # 2. Fenced.
    prepare "$W/proj"
    fingerprint_meta >"$W/before"
    runc "${AS_USER[@]}" "${WRAP[@]}" "$TF" run "${OPTS[@]}" -- "${CMD[@]}"
    local xfail held=0
    xfail=$(xfail_reason)
    fenced_holds || held=$?
    [ -z "$CLEANUP" ] || "$CLEANUP"
    if [ "$held" -eq 0 ]; then
        if [ -n "$xfail" ]; then
            RESULT=XPASS
            echo "XPASS: $CASE is blocked now; remove it from XFAIL${FALLBACK:+ or XFAIL_NONS} in $0" >&2
            return 1
        fi
        RESULT="blocked${WHY:+ ($WHY)}${CORE_NOTE:+; $CORE_NOTE}"
    elif [ -n "$xfail" ]; then
        RESULT="xfail ($xfail; TODO)"
        return 0
    else
        return 1
    fi

    # 3. Report.
    check_report
}

# fenced_holds: the fenced attempt failed the expected way and nothing outside changed.
fenced_holds() {
    local last="${output##*$'\n'}"
    WHY="exit $status"
    [ -z "$EXPECT" ] || WHY="$last"
    if [ -n "$FENCED_STATUS" ]; then
        if [ "$status" -ne "$FENCED_STATUS" ]; then
            DETAIL="fenced: exit $status, expected $FENCED_STATUS"
        fi
    elif [ "$status" -eq 0 ]; then
        DETAIL="fenced: the attempt succeeded"
    elif [ -n "$EXPECT" ] && ! [[ "$last" =~ ^($EXPECT)$ ]]; then
        DETAIL="fenced: got '$last', expected $EXPECT"
    fi
    fingerprint_meta >"$W/after"
    if ! diff -u "$W/before" "$W/after" >"$W/diff"; then
        DETAIL="${DETAIL:+$DETAIL; }outside tests/ changed"
        cat "$W/diff" >&2
    fi
    if [ "$POST_WAIT" != 0 ]; then
        local left
        left=$(marked | paste -sd,)
        if [ -n "$left" ]; then
            DETAIL="${DETAIL:+$DETAIL; }left running: $left"
            ps -o pid,ppid,args -p "$left" >&2 || true
            kill_marked || true
        fi
    fi
    if [ -n "$FENCED_CHECK" ] && ! "$FENCED_CHECK"; then
        DETAIL="${DETAIL:+$DETAIL; }$FENCED_CHECK failed"
    fi
    if [ -n "$DETAIL" ]; then
        printf '%s\nstdout: %s\nstderr: %s\n' "$DETAIL" "$output" "$stderr" >&2
        return 1
    fi
}

# check_report: the run's report.json lists the attempt on TARGET (space-separated
# paths relative to the root, any of which may be a glob; a directory matches below it).
# ---- REPORT ASSERTION (the shim's part of the issue) ----
# report.json is written by `run` into the workspace (src/core/report.c). Cases where the
# shim cannot see the call (raw syscalls, static binaries, io_uring, a cleared
# environment) set SHIM=0; for them the report is allowed to be silent.
check_report() {
    local rep
    rep=$(find "$P/tests/artifacts" -maxdepth 2 -name report.json -path '*_isolation_workspace_*' 2>/dev/null | head -1)
    if [ -z "$rep" ]; then
        RESULT="$RESULT, no report.json in the workspace"
        return 0
    fi
    [ "$SHIM" = 1 ] || {
        RESULT="$RESULT, report: not visible to the shim"
        return 0
    }
    local t targets=()
    for t in $TARGET; do targets+=("$P/$t"); done
    if ! /usr/bin/python3 - "$rep" "${targets[@]}" <<'EOF'; then
import fnmatch, json, sys
rep, targets = sys.argv[1], sys.argv[2:]
seen = []
def walk(x):
    if isinstance(x, dict):
        if "resolved" in x:
            seen.append(x["resolved"])
        for v in x.values():
            walk(v)
    elif isinstance(x, list):
        for v in x:
            walk(v)
walk(json.load(open(rep)))
if not any(fnmatch.fnmatchcase(s, t) or s.startswith(t + "/") for s in seen for t in targets):
    print("report.json does not list %s; it lists %s" % (" or ".join(targets), seen), file=sys.stderr)
    sys.exit(1)
EOF
        if [ -n "${REPORT_XFAIL[$CASE]+x}" ]; then
            RESULT="$RESULT, report: xfail (${REPORT_XFAIL[$CASE]}; TODO)"
            return 0
        fi
        DETAIL="report.json does not list $TARGET"
        return 1
    fi
    if [ -n "${REPORT_XFAIL[$CASE]+x}" ]; then
        RESULT=XPASS
        echo "XPASS: $CASE is reported now; remove it from REPORT_XFAIL in $0" >&2
        return 1
    fi
    RESULT="$RESULT, reported"
}

# ---- the cases -----------------------------------------------------------------------
# c_NAME runs in the fresh project dir. It sets CMD, and may set EXPECT (the driver's
# errno, a regex; empty: any failure), TARGET (what the report must name), SHIM=0,
# CTL_STATUS / FENCED_STATUS (expected exit statuses), CTL_CHANGES=0, SKIP, STDIN_FILE,
# KILL_AFTER and POST_WAIT (see runc), FENCED_CHECK (a function: more the fenced run must
# show), CLEANUP (a function run after each of the two runs: what the case set up, undone).

# Opening for writing.
c_open_w() { CMD=("$E_OPEN" open-w config.toml) EXPECT='EACCES|EROFS'; }
c_open_a() { CMD=("$E_OPEN" open-a config.toml) EXPECT='EACCES|EROFS'; }
c_open_rw() { CMD=("$E_OPEN" open-rw config.toml) EXPECT='EACCES|EROFS'; }
c_open_trunc() { CMD=("$E_OPEN" open-trunc config.toml) EXPECT='EACCES|EROFS'; }
c_creat_new() { CMD=("$E_OPEN" creat new.toml) EXPECT='EACCES|EROFS' TARGET=new.toml; }
c_creat_existing() { CMD=("$E_OPEN" creat config.toml) EXPECT='EACCES|EROFS'; }
c_fopen_w() { CMD=("$E_OPEN" fopen w config.toml) EXPECT='EACCES|EROFS'; }
c_fopen_a() { CMD=("$E_OPEN" fopen a config.toml) EXPECT='EACCES|EROFS'; }
c_fopen_rplus() { CMD=("$E_OPEN" fopen r+ config.toml) EXPECT='EACCES|EROFS'; }
c_openat_dirfd() { CMD=("$E_OPEN" openat-dirfd data sample.csv) EXPECT='EACCES|EROFS' TARGET=data/sample.csv; }
c_openat_opath_dirfd() { CMD=("$E_OPEN" openat-opath data new.csv) EXPECT='EACCES|EROFS' TARGET=data/new.csv; }
c_openat2_plain() { CMD=("$E_OPEN" openat2 config.toml none) EXPECT='EACCES|EROFS' SHIM=0; }
c_openat2_beneath() { CMD=("$E_OPEN" openat2 config.toml beneath) EXPECT='EACCES|EROFS' SHIM=0; }
c_openat2_in_root() { CMD=("$E_OPEN" openat2 config.toml in-root) EXPECT='EACCES|EROFS' SHIM=0; }
c_openat2_strict() {
    CMD=("$E_OPEN" openat2 config.toml no-symlinks,no-magiclinks,no-xdev) EXPECT='EACCES|EROFS' SHIM=0
}
c_dotdot() { CMD=("$E_OPEN" open-w tests/../config.toml) EXPECT='EACCES|EROFS'; }
c_proc_cwd_dotdot() {
    CMD=(sh -c 'cd tests && exec "$0" open-w /proc/self/cwd/../config.toml' "$E_OPEN") EXPECT='EACCES|EROFS'
}
c_procfd_reopen() { CMD=("$E_OPEN" procfd config.toml) EXPECT='EACCES|EROFS'; }

# Changing content without a plain write.
c_truncate() { CMD=("$E_OPEN" truncate config.toml) EXPECT='EACCES|EROFS'; }
c_rdonly_trunc() { CMD=("$E_OPEN" rdonly-trunc config.toml) EXPECT='EACCES|EROFS'; }
c_fallocate() { CMD=("$E_OPEN" fallocate config.toml) EXPECT='EACCES|EROFS'; }
c_copy_file_range() { CMD=("$E_OPEN" copy-range tests/mine.txt config.toml) EXPECT='EACCES|EROFS'; }

# Directory entries.
c_mkdir() { CMD=("$E_NS" mkdir newdir) EXPECT='EACCES|EROFS' TARGET=newdir; }
c_rmdir() { CMD=("$E_NS" rmdir empty-dir) EXPECT='EACCES|EROFS' TARGET=empty-dir; }
# libc's own: remove() unlinks through no exported function, and posix_spawn's file actions
# open in the child inside libc: the shim wraps remove and the spawn itself.
c_remove_libc() { CMD=("$E_NS" remove credentials.toml) EXPECT='EACCES' TARGET=credentials.toml; }
c_spawn_addopen() { CMD=("$E_NS" spawn-open config.toml) EXPECT='EACCES'; }
c_unlink() { CMD=("$E_NS" unlink credentials.toml) EXPECT='EACCES|EROFS' TARGET=credentials.toml; }
c_rm_rf() { CMD=(rm -rf data) TARGET=data; }
c_mknod_reg() { CMD=("$E_NS" mknod-reg node) EXPECT='EACCES|EROFS' TARGET=node; }
c_mknod_chr() {
    [ "$RUN_USER" = root ] || SKIP="a device node needs CAP_MKNOD: EPERM for nobody, fence or not"
    [ -z "${TESTFENCE_RUN_ID:-}" ] || SKIP="nested under testfence: the outer run's command has no CAP_MKNOD"
    CMD=("$E_NS" mknod-chr null) EXPECT='EACCES|EROFS' TARGET=null
}
c_mkfifo() { CMD=("$E_NS" mkfifo fifo) EXPECT='EACCES|EROFS' TARGET=fifo; }
c_bind_socket() { CMD=("$E_NS" bind sock) EXPECT='EACCES|EROFS' TARGET=sock; }
c_symlink_create() { CMD=("$E_NS" symlink /etc/passwd evil) EXPECT='EACCES|EROFS' TARGET=evil; }
c_link_create() { CMD=("$E_NS" link config.toml config.bak) EXPECT='EACCES|EROFS' TARGET=config.bak; }

# Renames and links across the fence.
c_rename_outside() { CMD=("$E_NS" rename config.toml config.bak) EXPECT='EACCES|EROFS' TARGET="config.toml config.bak"; }
c_rename_out_of_tests() {
    CMD=("$E_NS" rename tests/mine.txt mine.txt) EXPECT='EACCES|EROFS|EXDEV' TARGET=mine.txt
}
c_rename_into_tests() { CMD=("$E_NS" rename config.toml tests/config.toml) EXPECT='EACCES|EROFS|EXDEV'; }
c_renameat2_exchange() {
    CMD=("$E_NS" renameat2 tests/mine.txt config.toml exchange) EXPECT='EACCES|EROFS|EXDEV' SHIM=0
}
c_renameat2_noreplace_out() {
    CMD=("$E_NS" renameat2 tests/mine.txt mine.txt noreplace) EXPECT='EACCES|EROFS|EXDEV' SHIM=0
}
c_link_into_tests() { CMD=("$E_NS" link config.toml tests/cfg) EXPECT='EACCES|EROFS|EXDEV'; }
c_link_out_of_tests() { CMD=("$E_NS" link tests/mine.txt mine.txt) EXPECT='EACCES|EROFS|EXDEV' TARGET=mine.txt; }

# Symlinks inside tests/ that lead out: no hazard (issue 27), the run starts, and the kernel
# refuses the write through each.
c_symlink_write_through() {
    ln -s ../config.toml tests/cfg
    CMD=("$E_OPEN" open-w tests/cfg) EXPECT='EACCES|EROFS'
}
c_symlink_dangling_creat() {
    ln -s ../new.toml tests/dangling
    CMD=("$E_OPEN" creat tests/dangling) EXPECT='EACCES|EROFS' TARGET=new.toml
}
c_symlink_dir_up() {
    ln -s .. tests/up
    CMD=("$E_OPEN" open-w tests/up/data/sample.csv) EXPECT='EACCES|EROFS' TARGET=data/sample.csv
}

# Metadata (Landlock never covers it: the seccomp guard does).
c_meta_chmod() { CMD=("$E_META" chmod config.toml) EXPECT='EACCES|EROFS'; }
c_meta_fchmod() { CMD=("$E_META" fchmod config.toml) EXPECT='EACCES|EROFS'; }
c_meta_fchmodat2_opath() { CMD=("$E_META" fchmodat2-opath config.toml) EXPECT='EACCES|EROFS' SHIM=0; }
c_meta_chmod_procfd() { CMD=("$E_META" chmod-procfd config.toml) EXPECT='EACCES|EROFS'; }
c_meta_chown() { CMD=("$E_META" chown config.toml "${CHOWN_TO[@]}") EXPECT='EACCES|EROFS'; }
c_meta_fchown() { CMD=("$E_META" fchown config.toml "${CHOWN_TO[@]}") EXPECT='EACCES|EROFS'; }
c_meta_lchown() { CMD=("$E_META" lchown config.toml "${CHOWN_TO[@]}") EXPECT='EACCES|EROFS'; }
c_meta_utimensat() { CMD=("$E_META" utimensat config.toml) EXPECT='EACCES|EROFS'; }
c_meta_futimens() { CMD=("$E_META" futimens config.toml) EXPECT='EACCES|EROFS'; }
c_meta_touch() { CMD=(touch config.toml); }
c_meta_setxattr() { CMD=("$E_META" setxattr config.toml) EXPECT='EACCES|EROFS'; }
c_meta_lsetxattr() { CMD=("$E_META" lsetxattr config.toml) EXPECT='EACCES|EROFS'; }
c_meta_fsetxattr() { CMD=("$E_META" fsetxattr config.toml) EXPECT='EACCES|EROFS'; }
c_meta_setxattrat() { CMD=("$E_META" setxattrat config.toml) EXPECT='EACCES|EROFS' SHIM=0; }
c_meta_removexattr() { CMD=("$E_META" removexattr config.toml user.keep) EXPECT='EACCES|EROFS'; }
c_meta_removexattrat() { CMD=("$E_META" removexattrat config.toml user.keep) EXPECT='EACCES|EROFS' SHIM=0; }
c_meta_setflags() { CMD=("$E_META" setflags config.toml) EXPECT='EACCES|EROFS' SHIM=0; }
# The guard records what it refuses to a program without the shim.
c_meta_static_chmod() { CMD=("$E_META_STATIC" chmod config.toml) EXPECT='EACCES|EROFS'; }
c_ia32_chmod() {
    CMD=("$E_IA32" chmod config.toml) EXPECT='EACCES|EROFS' SHIM=0
    ia32_probe
}
c_ia32_lchown() {
    CMD=("$E_IA32" lchown config.toml "${CHOWN_TO[@]}") EXPECT='EACCES|EROFS' SHIM=0
    ia32_probe
}
# ia32_probe: some kernels (ia32_emulation=0, some hypervisors) kill a process that makes
# a 32-bit syscall; there the route does not exist, fenced or not, so there is nothing
# to test. Probed on a scratch file outside the project, unfenced.
ia32_probe() {
    local f="$W/ia32-probe"
    : >"$f"
    "$E_IA32" chmod "$f" >/dev/null 2>&1 && return 0
    [ $? -lt 128 ] || SKIP="this kernel kills a 32-bit syscall (int \$0x80): no such route here"
}

# No libc to interpose: static binaries and raw syscall().
c_static_open_w() { CMD=("$E_OPEN_STATIC" open-w config.toml) EXPECT='EACCES|EROFS' SHIM=0; }
c_static_raw_openat() { CMD=("$E_RAW_STATIC" openat config.toml) EXPECT='EACCES|EROFS' SHIM=0; }
c_static_raw_truncate() { CMD=("$E_RAW_STATIC" truncate config.toml) EXPECT='EACCES|EROFS' SHIM=0; }
c_static_raw_unlinkat() {
    CMD=("$E_RAW_STATIC" unlinkat credentials.toml) EXPECT='EACCES|EROFS' SHIM=0 TARGET=credentials.toml
}
c_raw_openat() { CMD=("$E_RAW" openat config.toml) EXPECT='EACCES|EROFS' SHIM=0; }
c_raw_open_legacy() { CMD=("$E_RAW" open config.toml) EXPECT='EACCES|EROFS' SHIM=0; }
c_raw_truncate() { CMD=("$E_RAW" truncate config.toml) EXPECT='EACCES|EROFS' SHIM=0; }
c_raw_unlinkat() { CMD=("$E_RAW" unlinkat credentials.toml) EXPECT='EACCES|EROFS' SHIM=0; }
c_raw_mkdirat() { CMD=("$E_RAW" mkdirat newdir) EXPECT='EACCES|EROFS' SHIM=0; }
c_raw_renameat2_in() { CMD=("$E_RAW" renameat2 config.toml tests/config.toml) EXPECT='EACCES|EROFS|EXDEV' SHIM=0; }
c_raw_rename_legacy_out() { CMD=("$E_RAW" rename tests/mine.txt mine.txt) EXPECT='EACCES|EROFS|EXDEV' SHIM=0; }

# io_uring: the kernel does the work for the ring, no syscall of that name.
c_uring_openat() { CMD=("$E_URING" openat config.toml) EXPECT='EACCES|EROFS' SHIM=0; }
c_uring_renameat() { CMD=("$E_URING" renameat config.toml tests/config.toml) EXPECT='EACCES|EROFS|EXDEV' SHIM=0; }
c_uring_unlinkat() { CMD=("$E_URING" unlinkat credentials.toml) EXPECT='EACCES|EROFS' SHIM=0; }
c_uring_mkdirat() { CMD=("$E_URING" mkdirat newdir) EXPECT='EACCES|EROFS' SHIM=0; }
c_uring_linkat() { CMD=("$E_URING" linkat config.toml tests/cfg) EXPECT='EACCES|EROFS|EXDEV' SHIM=0; }
c_uring_setxattr() { CMD=("$E_URING" setxattr config.toml) EXPECT='EACCES|EROFS' SHIM=0; }
c_uring_fsetxattr() { CMD=("$E_URING" fsetxattr config.toml) EXPECT='EACCES|EROFS' SHIM=0; }

# Descendants: each way of making one inherits the fence (the child uses raw syscalls).
c_child_fork() { CMD=("$E_PROC" fork config.toml) EXPECT='EACCES|EROFS' SHIM=0; }
c_child_vfork() { CMD=("$E_PROC" vfork config.toml) EXPECT='EACCES|EROFS' SHIM=0; }
c_child_clone3() { CMD=("$E_PROC" clone3 config.toml) EXPECT='EACCES|EROFS' SHIM=0; }
c_child_posix_spawn() { CMD=("$E_PROC" posix-spawn config.toml) EXPECT='EACCES|EROFS' SHIM=0; }
c_child_thread() { CMD=("$E_PROC" thread config.toml) EXPECT='EACCES|EROFS' SHIM=0; }
c_child_env_i() { CMD=(env -i "$E_OPEN" open-w config.toml) EXPECT='EACCES|EROFS' SHIM=0; }

# Runner-shaped: what real test suites and their tools do.
c_sed_in_place() { CMD=(sed -i s/dark/light/ config.toml) TARGET="config.toml sed*"; } # sed's temp file
c_git_commit() {
    git init -q .
    git -c user.name=t -c user.email=t@example.com add config.toml
    git -c user.name=t -c user.email=t@example.com commit -qm init
    CMD=(git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m escape)
    TARGET=.git
}
c_sqlite_create() { CMD=(sqlite3 app.db 'create table t(x);') TARGET=app.db; }
c_sqlite_write() {
    sqlite3 app.db 'create table t(x);'
    CMD=(sqlite3 app.db 'insert into t values (1);') TARGET=app.db
}
c_python_rmtree() { CMD=(/usr/bin/python3 -c 'import shutil; shutil.rmtree("data")') TARGET=data; }
c_core_dump() {
    # A shell that dies of SIGSEGV with no core size limit: the kernel writes the core
    # with the dying process's credentials, into its cwd for a plain core_pattern.
    CMD=(sh -c 'ulimit -c unlimited && kill -s SEGV $$') CTL_STATUS=139 FENCED_STATUS=139 SHIM=0
    local pat
    pat=$(cat /proc/sys/kernel/core_pattern)
    case "$pat" in
    '|'*)
        # The core goes to a helper program, never to the cwd: there is nothing the
        # fence could stop here. Assert the crash and an unchanged tree, and say so.
        CTL_CHANGES=0
        CORE_NOTE="core_pattern pipes to ${pat#|}: the core never lands in the cwd"
        ;;
    /*)
        CTL_CHANGES=0
        CORE_NOTE="core_pattern is the absolute path $pat, outside the project"
        ;;
    *) CORE_NOTE="core_pattern '$pat' is relative: a core would land in the project root" ;;
    esac
}

# ---- the namespace layer's cases (issue 23) -------------------------------------------
# Through the command's stdin, which the user's shell opened read-only (STDIN_FILE is
# opened by the harness, outside testfence): the path never appears inside the fence.
c_meta_stdin_fchmod() { CMD=("$E_META" fchmod-fd 0) STDIN_FILE=config.toml EXPECT='EACCES|EROFS'; }
c_meta_stdin_fsetxattr() { CMD=("$E_META" fsetxattr-fd 0) STDIN_FILE=config.toml EXPECT='EACCES|EROFS'; }
# (EROFS on the read-only view; without it io_uring is refused for the run: exit 3.)
c_uring_fsetxattr_stdin() {
    CMD=("$E_URING" fsetxattr-fd 0) STDIN_FILE=config.toml SHIM=0
    uring_refused_or EROFS
}

# The fenced run of an io_uring case on an inherited fd: EROFS on the read-only view (the
# driver prints it), or, in the fallback, io_uring refused for the run (the driver exits 3).
uring_refused_or() {
    if [ -n "$FALLBACK" ]; then FENCED_STATUS=3; else EXPECT=$1; fi
}

# stdin an O_PATH fd of the project (or of config.toml) on the machine's writable mount: a
# file opened read-only relative to it, or reopened through /proc/self/fd/0, takes an xattr
# through io_uring, which makes no syscall the guard sees. The fd is reopened on the read-only
# view, and io_uring is refused for a run with such an fd.
c_opath_stdin_dir() {
    CMD=("$E_URING" fsetxattr-at 0 config.toml) STDIN_OPATH=. SHIM=0
    uring_refused_or EROFS
}
c_opath_stdin_file() {
    CMD=("$E_URING" fsetxattr-proc 0) STDIN_OPATH=config.toml SHIM=0
    uring_refused_or EROFS
}

# The race between the guard's check of the path in the caller's memory and the kernel's
# own reading of it: 10,000 tries of chmod, fchmodat and setxattr on a buffer another
# thread flips between tests/mine.txt and config.toml.
c_meta_race() { CMD=("$E_RACE" 10000 tests/mine.txt config.toml) EXPECT='EACCES|EROFS'; }

# What outlives the command (esc_late; MARK in its command line finds what is left): it
# must be killed when the command exits, and said (a process still running is a
# violation: exit 120); if testfence itself is killed, the tree dies with it. Nothing of
# it is left running afterwards. The control shows each acts when nothing contains it.
c_uring_setxattr_late() {
    # io_uring xattrs from a daemon, a second after the command exited: after --verify.
    CMD=("$E_LATE" daemon 1000 0 uring-xattr config.toml "$MARK") OPTS=(--verify)
    POST_WAIT=3 FENCED_STATUS=120 SHIM=0
}
c_daemon_after_exit() {
    # A plain write by a daemon the command started, two seconds after it exited.
    CMD=("$E_LATE" daemon 2000 0 write config.toml "$MARK")
    POST_WAIT=4 FENCED_STATUS=120 SHIM=0 FENCED_CHECK=leftover_named
}
c_tree_sigkill() {
    # testfence SIGKILLed while the command and its child run; the child writes later.
    CMD=("$E_LATE" tree 1500 10000 write config.toml "$MARK") KILL_AFTER=0.3
    POST_WAIT=3 CTL_STATUS=137 FENCED_STATUS=137 SHIM=0
}
# leftover_named: the run said a process was still running, and which (its program or
# command line).
leftover_named() {
    [[ "$stderr" == *"still running"* ]] || {
        echo "the run's stderr does not say a process was still running" >&2
        return 1
    }
    [[ "$stderr" == *"$(basename "$E_LATE")"* || "$stderr" == *"$MARK"* ]] || {
        echo "the run's stderr does not name the process left running" >&2
        return 1
    }
}

# ---- every other way out (issue 24) ---------------------------------------------------
# A block device node for the disk under the project would reach every file on it: making
# one in tests/ is refused (and none may be there: a hazard). The node itself would lie
# inside tests/, so the control changes nothing outside.
c_mknod_blk() {
    [ "$RUN_USER" = root ] || SKIP="a device node needs CAP_MKNOD: EPERM for nobody, fence or not"
    [ -z "${TESTFENCE_RUN_ID:-}" ] || SKIP="nested under testfence: the outer run's command has no CAP_MKNOD"
    CMD=("$E_NS" mknod-blk tests/blk) EXPECT='EACCES|EPERM|EROFS' TARGET=tests/blk CTL_CHANGES=0
    SHIM=0 FENCED_CHECK=no_blk
}
no_blk() { [ ! -e "$P/tests/blk" ]; }

# A service outside the run, listening on an abstract unix socket, writes whatever file it
# is asked to: Landlock's abstract-socket scope (ABI 6) keeps the command from reaching it.
c_abstract_service() {
    local name="tf-esc-$$-$RANDOM"
    local ready="$W/$name.ready" n=100
    rm -f "$ready"
    /usr/bin/python3 - "$name" "$ready" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind("\0" + sys.argv[1])
s.listen()
open(sys.argv[2], "w").close()  # listening: the case may connect
s.settimeout(15)
try:
    c, _ = s.accept()
    path = c.recv(4096).decode()
    open(path, "w").write("escaped\n")
    c.sendall(b"ok")
except OSError:
    pass
PY
    while [ "$n" -gt 0 ] && [ ! -e "$ready" ]; do # up, not after a guessed delay
        sleep 0.05
        n=$((n - 1))
    done
    CMD=(/usr/bin/python3 -c '
import errno, socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("\0" + sys.argv[1])
except OSError as e:
    print(errno.errorcode[e.errno]); sys.exit(1)
s.sendall(sys.argv[2].encode()); print(s.recv(10).decode())' "$name" "$P/config.toml")
    EXPECT=EPERM SHIM=0
}

# As root, mount_setattr makes a mount outside the writable set noexec, nosuid and nodev: the
# machine's mount, not the run's view, would change (the new mount API is refused). The
# project's data/ is a bind mount of its own here, so the control changes only that one.
c_mount_setattr() {
    [ "$RUN_USER" = root ] || SKIP="changing a mount needs CAP_SYS_ADMIN: EPERM for nobody, fence or not"
    [ -z "${TESTFENCE_RUN_ID:-}" ] || SKIP="nested under testfence: the outer run's command may not mount"
    [ -n "$SKIP" ] || mount --bind "$P/data" "$P/data" || SKIP="cannot bind-mount here"
    CMD=("$E_NS" mount-setattr data) EXPECT='EACCES|EPERM|EROFS' CTL_CHANGES=0 SHIM=0
    FENCED_CHECK=data_mount_unchanged CLEANUP=unmount_data
}
# data_mount_unchanged: the mount kept its flags, and the refusal is in the report (the
# guard records it: no shim sees a raw syscall).
data_mount_unchanged() {
    local opts
    opts=$(findmnt -no OPTIONS --mountpoint "$P/data") || return 1
    [[ ",$opts," != *,noexec,* && ",$opts," != *,nosuid,* && ",$opts," != *,nodev,* ]] || {
        echo "the mount at data/ changed: $opts" >&2
        return 1
    }
    [ -n "$FALLBACK" ] && [ -n "${TESTFENCE_RUN_ID:-}" ] && return 0 # no guard of ours: unrecorded
    grep -q '"op": "mount_setattr"' "$P"/tests/artifacts/_isolation_workspace_*/report.json || {
        echo "report.json does not list the refused mount_setattr" >&2
        return 1
    }
}
unmount_data() { umount "$P/data" 2>/dev/null || true; }

# The machine's POSIX message queues are no path Landlock or a read-only mount knows: the
# command has an IPC namespace of its own, so the queue it removes is not the machine's.
c_mqueue_unlink() {
    MQ="/tf-esc-$$-$RANDOM"
    "${AS_USER[@]}" "$E_NS" mq-create "$MQ" >/dev/null || SKIP="cannot create a POSIX message queue here"
    [ -z "$SKIP" ] || return 0
    CMD=("$E_NS" mq-unlink "$MQ") EXPECT='ENOENT|EACCES|EPERM' CTL_CHANGES=0 SHIM=0
    FENCED_CHECK=mqueue_kept CLEANUP=remove_mqueue
}
mqueue_kept() { "$E_NS" mq-exists "$MQ" >/dev/null || { echo "the machine's queue $MQ is gone" >&2; return 1; }; }
remove_mqueue() { "$E_NS" mq-unlink "$MQ" >/dev/null 2>&1 || true; }

# ---- main ----------------------------------------------------------------------------
[ $# -eq 3 ] || {
    echo "usage: $0 CASE root|nobody WORKDIR" >&2
    exit 2
}
W=$3
TESTFENCE=$TF
WRAP=()
[ -z "${E_WRAP:-}" ] || WRAP=("$E_WRAP")
# The fenced run falls back to the guard: namespaces are refused to it (nons), or it is
# nested in another run (which forbids mounts).
FALLBACK=""
if [ ${#WRAP[@]} -gt 0 ] || [ -n "${TESTFENCE_RUN_ID:-}" ]; then
    FALLBACK=1
fi
# shellcheck source=../support/helpers.bash
. "$(dirname "$0")/../support/helpers.bash"
RESULT=FAILED DETAIL=""
rc=0
escape "$1" "$2" || rc=$?
case $rc in
0) ;;
4) ;;
*)
    [ "$RESULT" = XPASS ] || RESULT="FAILED${DETAIL:+ ($DETAIL)}"
    rc=1
    ;;
esac
echo "$RESULT"
exit $rc
