#!/usr/bin/env bats
# The escape corpus: each case tries to change something outside tests/ in exactly one
# way; escape.sh runs one case (unfenced control, fenced attempt, report), this file runs
# every case as root and as nobody. Each test prints "# <case> <root|nobody>: <result>",
# and the file ends with the counts per user. With ESC_WRAP set (the test corpus-nons:
# nons), every run starts through it: namespaces are unavailable, the fallback holds.

bats_require_minimum_version 1.5.0

# ---- setup ---------------------------------------------------------------------------

setup_file() {
    # Everything runs from copies in a directory nobody can reach and execute.
    local b="$BATS_FILE_TMPDIR/bin" v
    mkdir -p "$b"
    install -m 755 "$TESTFENCE" "$b/testfence"
    # run looks for the shim next to its own binary.
    for v in "$(dirname "$TESTFENCE")"/libtestfence_preload.so*; do
        [ -e "$v" ] && install -m 755 "$v" "$b/"
    done
    for v in ESC_OPEN ESC_NS ESC_META ESC_RAW ESC_PROC ESC_URING ESC_RACE ESC_LATE \
        ESC_OPEN_STATIC ESC_RAW_STATIC ESC_META_STATIC ESC_IA32; do
        [ -n "${!v:-}" ] || {
            echo "set $v to the driver (ctest does)" >&2
            return 1
        }
        install -m 755 "${!v}" "$b/$(basename "${!v}")"
    done
    [ -z "${ESC_WRAP:-}" ] || install -m 755 "$ESC_WRAP" "$b/$(basename "$ESC_WRAP")"
    : >"$BATS_FILE_TMPDIR/results"
}

# Per-test: the copied binaries by role, and the path up to the test dir opened for nobody.
setup() {
    unset PYTEST_ADDOPTS # an outer run (the suite under itself) sets it
    local b="$BATS_FILE_TMPDIR/bin" d
    TF="$b/testfence"
    E_OPEN="$b/$(basename "$ESC_OPEN")" E_NS="$b/$(basename "$ESC_NS")"
    E_META="$b/$(basename "$ESC_META")" E_RAW="$b/$(basename "$ESC_RAW")"
    E_PROC="$b/$(basename "$ESC_PROC")" E_URING="$b/$(basename "$ESC_URING")"
    E_RACE="$b/$(basename "$ESC_RACE")" E_LATE="$b/$(basename "$ESC_LATE")"
    E_OPEN_STATIC="$b/$(basename "$ESC_OPEN_STATIC")" E_RAW_STATIC="$b/$(basename "$ESC_RAW_STATIC")"
    E_META_STATIC="$b/$(basename "$ESC_META_STATIC")" E_IA32="$b/$(basename "$ESC_IA32")"
    d="$BATS_TEST_TMPDIR"
    while [ "$d" != / ]; do
        case $(stat -c %A "$d") in *[xt]) ;; *) chmod o+x "$d" ;; esac # t: sticky, x for others
        d=$(dirname "$d")
    done
    # A temp dir nobody can write, as /tmp is (the suite's own TMPDIR may be root's).
    mkdir -m 1777 "$BATS_TEST_TMPDIR/tmp"
    export TMPDIR="$BATS_TEST_TMPDIR/tmp"
    RESULT="FAILED"
    E_WRAP=""
    [ -z "${ESC_WRAP:-}" ] || E_WRAP="$b/$(basename "$ESC_WRAP")"
    export TF E_OPEN E_NS E_META E_RAW E_PROC E_URING E_RACE E_LATE E_OPEN_STATIC E_RAW_STATIC \
        E_META_STATIC E_IA32 E_WRAP
}

teardown() {
    echo "# ${CASE:-?} ${RUN_USER:-?}: $RESULT" >&3
    echo "${CASE:-?} ${RUN_USER:-?} ${RESULT%% *}" >>"$BATS_FILE_TMPDIR/results"
}

teardown_file() {
    local u w=""
    [ -z "${ESC_WRAP:-}" ] || w=" (namespaces unavailable)"
    for u in root nobody; do
        awk -v u="$u" -v w="$w" '$2 == u { n++; c[$3]++ }
            END { printf "# escape corpus%s, %s: %d cases: %d blocked, %d xfail, %d skipped, %d failed\n",
                  w, u, n, c["blocked"], c["xfail"], c["skipped"], n - c["blocked"] - c["xfail"] - c["skipped"] }' \
            "$BATS_FILE_TMPDIR/results" >&3
    done
}

# escape CASE USER: run the case; its last line of output is the result.
escape() {
    CASE=$1 RUN_USER=$2
    local rc=0
    bash "$BATS_TEST_DIRNAME/escape.sh" "$1" "$2" "$BATS_TEST_TMPDIR" >"$BATS_TEST_TMPDIR/result" || rc=$?
    RESULT=$(tail -n 1 "$BATS_TEST_TMPDIR/result")
    case $rc in
    0) ;;
    4) skip "${RESULT#skipped }" ;;
    *) return 1 ;;
    esac
}

# ---- the tests -----------------------------------------------------------------------
@test "open-w root" { escape open_w root; }
@test "open-w nobody" { escape open_w nobody; }
@test "open-a root" { escape open_a root; }
@test "open-a nobody" { escape open_a nobody; }
@test "open-rw root" { escape open_rw root; }
@test "open-rw nobody" { escape open_rw nobody; }
@test "open-trunc root" { escape open_trunc root; }
@test "open-trunc nobody" { escape open_trunc nobody; }
@test "creat-new root" { escape creat_new root; }
@test "creat-new nobody" { escape creat_new nobody; }
@test "creat-existing root" { escape creat_existing root; }
@test "creat-existing nobody" { escape creat_existing nobody; }
@test "fopen-w root" { escape fopen_w root; }
@test "fopen-w nobody" { escape fopen_w nobody; }
@test "fopen-a root" { escape fopen_a root; }
@test "fopen-a nobody" { escape fopen_a nobody; }
@test "fopen-r+ root" { escape fopen_rplus root; }
@test "fopen-r+ nobody" { escape fopen_rplus nobody; }
@test "openat-dirfd root" { escape openat_dirfd root; }
@test "openat-dirfd nobody" { escape openat_dirfd nobody; }
@test "openat-opath-dirfd root" { escape openat_opath_dirfd root; }
@test "openat-opath-dirfd nobody" { escape openat_opath_dirfd nobody; }
@test "openat2-plain root" { escape openat2_plain root; }
@test "openat2-plain nobody" { escape openat2_plain nobody; }
@test "openat2-beneath root" { escape openat2_beneath root; }
@test "openat2-beneath nobody" { escape openat2_beneath nobody; }
@test "openat2-in-root root" { escape openat2_in_root root; }
@test "openat2-in-root nobody" { escape openat2_in_root nobody; }
@test "openat2-strict root" { escape openat2_strict root; }
@test "openat2-strict nobody" { escape openat2_strict nobody; }
@test "dotdot root" { escape dotdot root; }
@test "dotdot nobody" { escape dotdot nobody; }
@test "proc-cwd-dotdot root" { escape proc_cwd_dotdot root; }
@test "proc-cwd-dotdot nobody" { escape proc_cwd_dotdot nobody; }
@test "procfd-reopen root" { escape procfd_reopen root; }
@test "procfd-reopen nobody" { escape procfd_reopen nobody; }
@test "truncate root" { escape truncate root; }
@test "truncate nobody" { escape truncate nobody; }
@test "rdonly-trunc root" { escape rdonly_trunc root; }
@test "rdonly-trunc nobody" { escape rdonly_trunc nobody; }
@test "fallocate root" { escape fallocate root; }
@test "fallocate nobody" { escape fallocate nobody; }
@test "copy-file-range root" { escape copy_file_range root; }
@test "copy-file-range nobody" { escape copy_file_range nobody; }
@test "mkdir root" { escape mkdir root; }
@test "mkdir nobody" { escape mkdir nobody; }
@test "rmdir root" { escape rmdir root; }
@test "rmdir nobody" { escape rmdir nobody; }
@test "unlink root" { escape unlink root; }
@test "unlink nobody" { escape unlink nobody; }
@test "rm-rf root" { escape rm_rf root; }
@test "rm-rf nobody" { escape rm_rf nobody; }
@test "mknod-reg root" { escape mknod_reg root; }
@test "mknod-reg nobody" { escape mknod_reg nobody; }
@test "mknod-chr root" { escape mknod_chr root; }
@test "mknod-chr nobody" { escape mknod_chr nobody; }
@test "mkfifo root" { escape mkfifo root; }
@test "mkfifo nobody" { escape mkfifo nobody; }
@test "bind-socket root" { escape bind_socket root; }
@test "bind-socket nobody" { escape bind_socket nobody; }
@test "symlink-create root" { escape symlink_create root; }
@test "symlink-create nobody" { escape symlink_create nobody; }
@test "link-create root" { escape link_create root; }
@test "link-create nobody" { escape link_create nobody; }
@test "rename-outside root" { escape rename_outside root; }
@test "rename-outside nobody" { escape rename_outside nobody; }
@test "rename-out-of-tests root" { escape rename_out_of_tests root; }
@test "rename-out-of-tests nobody" { escape rename_out_of_tests nobody; }
@test "rename-into-tests root" { escape rename_into_tests root; }
@test "rename-into-tests nobody" { escape rename_into_tests nobody; }
@test "renameat2-exchange root" { escape renameat2_exchange root; }
@test "renameat2-exchange nobody" { escape renameat2_exchange nobody; }
@test "renameat2-noreplace-out root" { escape renameat2_noreplace_out root; }
@test "renameat2-noreplace-out nobody" { escape renameat2_noreplace_out nobody; }
@test "link-into-tests root" { escape link_into_tests root; }
@test "link-into-tests nobody" { escape link_into_tests nobody; }
@test "link-out-of-tests root" { escape link_out_of_tests root; }
@test "link-out-of-tests nobody" { escape link_out_of_tests nobody; }
@test "symlink-write-through root" { escape symlink_write_through root; }
@test "symlink-write-through nobody" { escape symlink_write_through nobody; }
@test "symlink-dangling-creat root" { escape symlink_dangling_creat root; }
@test "symlink-dangling-creat nobody" { escape symlink_dangling_creat nobody; }
@test "symlink-dir-up root" { escape symlink_dir_up root; }
@test "symlink-dir-up nobody" { escape symlink_dir_up nobody; }
@test "meta-chmod root" { escape meta_chmod root; }
@test "meta-chmod nobody" { escape meta_chmod nobody; }
@test "meta-fchmod root" { escape meta_fchmod root; }
@test "meta-fchmod nobody" { escape meta_fchmod nobody; }
@test "meta-fchmodat2-opath root" { escape meta_fchmodat2_opath root; }
@test "meta-fchmodat2-opath nobody" { escape meta_fchmodat2_opath nobody; }
@test "meta-chmod-procfd root" { escape meta_chmod_procfd root; }
@test "meta-chmod-procfd nobody" { escape meta_chmod_procfd nobody; }
@test "meta-chown root" { escape meta_chown root; }
@test "meta-chown nobody" { escape meta_chown nobody; }
@test "meta-fchown root" { escape meta_fchown root; }
@test "meta-fchown nobody" { escape meta_fchown nobody; }
@test "meta-lchown root" { escape meta_lchown root; }
@test "meta-lchown nobody" { escape meta_lchown nobody; }
@test "meta-utimensat root" { escape meta_utimensat root; }
@test "meta-utimensat nobody" { escape meta_utimensat nobody; }
@test "meta-futimens root" { escape meta_futimens root; }
@test "meta-futimens nobody" { escape meta_futimens nobody; }
@test "meta-touch root" { escape meta_touch root; }
@test "meta-touch nobody" { escape meta_touch nobody; }
@test "meta-setxattr root" { escape meta_setxattr root; }
@test "meta-setxattr nobody" { escape meta_setxattr nobody; }
@test "meta-lsetxattr root" { escape meta_lsetxattr root; }
@test "meta-lsetxattr nobody" { escape meta_lsetxattr nobody; }
@test "meta-fsetxattr root" { escape meta_fsetxattr root; }
@test "meta-fsetxattr nobody" { escape meta_fsetxattr nobody; }
@test "meta-setxattrat root" { escape meta_setxattrat root; }
@test "meta-setxattrat nobody" { escape meta_setxattrat nobody; }
@test "meta-removexattr root" { escape meta_removexattr root; }
@test "meta-removexattr nobody" { escape meta_removexattr nobody; }
@test "meta-removexattrat root" { escape meta_removexattrat root; }
@test "meta-removexattrat nobody" { escape meta_removexattrat nobody; }
@test "meta-setflags root" { escape meta_setflags root; }
@test "meta-setflags nobody" { escape meta_setflags nobody; }
@test "meta-stdin-fchmod root" { escape meta_stdin_fchmod root; }
@test "meta-stdin-fchmod nobody" { escape meta_stdin_fchmod nobody; }
@test "meta-stdin-fsetxattr root" { escape meta_stdin_fsetxattr root; }
@test "meta-stdin-fsetxattr nobody" { escape meta_stdin_fsetxattr nobody; }
@test "meta-race root" { escape meta_race root; }
@test "meta-race nobody" { escape meta_race nobody; }
@test "mknod-blk root" { escape mknod_blk root; }
@test "abstract-service root" { escape abstract_service root; }
@test "abstract-service nobody" { escape abstract_service nobody; }
@test "mount-setattr root" { escape mount_setattr root; }
@test "mqueue-unlink root" { escape mqueue_unlink root; }
@test "mqueue-unlink nobody" { escape mqueue_unlink nobody; }
@test "remove-libc root" { escape remove_libc root; }
@test "remove-libc nobody" { escape remove_libc nobody; }
@test "spawn-addopen root" { escape spawn_addopen root; }
@test "spawn-addopen nobody" { escape spawn_addopen nobody; }
@test "opath-stdin-dir root" { escape opath_stdin_dir root; }
@test "opath-stdin-dir nobody" { escape opath_stdin_dir nobody; }
@test "opath-stdin-file root" { escape opath_stdin_file root; }
@test "opath-stdin-file nobody" { escape opath_stdin_file nobody; }
@test "meta-static-chmod root" { escape meta_static_chmod root; }
@test "meta-static-chmod nobody" { escape meta_static_chmod nobody; }
@test "ia32-chmod root" { escape ia32_chmod root; }
@test "ia32-chmod nobody" { escape ia32_chmod nobody; }
@test "ia32-lchown root" { escape ia32_lchown root; }
@test "ia32-lchown nobody" { escape ia32_lchown nobody; }
@test "static-open-w root" { escape static_open_w root; }
@test "static-open-w nobody" { escape static_open_w nobody; }
@test "static-raw-openat root" { escape static_raw_openat root; }
@test "static-raw-openat nobody" { escape static_raw_openat nobody; }
@test "static-raw-truncate root" { escape static_raw_truncate root; }
@test "static-raw-truncate nobody" { escape static_raw_truncate nobody; }
@test "static-raw-unlinkat root" { escape static_raw_unlinkat root; }
@test "static-raw-unlinkat nobody" { escape static_raw_unlinkat nobody; }
@test "raw-openat root" { escape raw_openat root; }
@test "raw-openat nobody" { escape raw_openat nobody; }
@test "raw-open-legacy root" { escape raw_open_legacy root; }
@test "raw-open-legacy nobody" { escape raw_open_legacy nobody; }
@test "raw-truncate root" { escape raw_truncate root; }
@test "raw-truncate nobody" { escape raw_truncate nobody; }
@test "raw-unlinkat root" { escape raw_unlinkat root; }
@test "raw-unlinkat nobody" { escape raw_unlinkat nobody; }
@test "raw-mkdirat root" { escape raw_mkdirat root; }
@test "raw-mkdirat nobody" { escape raw_mkdirat nobody; }
@test "raw-renameat2-in root" { escape raw_renameat2_in root; }
@test "raw-renameat2-in nobody" { escape raw_renameat2_in nobody; }
@test "raw-rename-legacy-out root" { escape raw_rename_legacy_out root; }
@test "raw-rename-legacy-out nobody" { escape raw_rename_legacy_out nobody; }
@test "uring-openat root" { escape uring_openat root; }
@test "uring-openat nobody" { escape uring_openat nobody; }
@test "uring-renameat root" { escape uring_renameat root; }
@test "uring-renameat nobody" { escape uring_renameat nobody; }
@test "uring-unlinkat root" { escape uring_unlinkat root; }
@test "uring-unlinkat nobody" { escape uring_unlinkat nobody; }
@test "uring-mkdirat root" { escape uring_mkdirat root; }
@test "uring-mkdirat nobody" { escape uring_mkdirat nobody; }
@test "uring-linkat root" { escape uring_linkat root; }
@test "uring-linkat nobody" { escape uring_linkat nobody; }
@test "uring-setxattr root" { escape uring_setxattr root; }
@test "uring-setxattr nobody" { escape uring_setxattr nobody; }
@test "uring-fsetxattr root" { escape uring_fsetxattr root; }
@test "uring-fsetxattr nobody" { escape uring_fsetxattr nobody; }
@test "uring-fsetxattr-stdin root" { escape uring_fsetxattr_stdin root; }
@test "uring-fsetxattr-stdin nobody" { escape uring_fsetxattr_stdin nobody; }
@test "uring-setxattr-late root" { escape uring_setxattr_late root; }
@test "uring-setxattr-late nobody" { escape uring_setxattr_late nobody; }
@test "daemon-after-exit root" { escape daemon_after_exit root; }
@test "daemon-after-exit nobody" { escape daemon_after_exit nobody; }
@test "tree-sigkill root" { escape tree_sigkill root; }
@test "tree-sigkill nobody" { escape tree_sigkill nobody; }
@test "child-fork root" { escape child_fork root; }
@test "child-fork nobody" { escape child_fork nobody; }
@test "child-vfork root" { escape child_vfork root; }
@test "child-vfork nobody" { escape child_vfork nobody; }
@test "child-clone3 root" { escape child_clone3 root; }
@test "child-clone3 nobody" { escape child_clone3 nobody; }
@test "child-posix-spawn root" { escape child_posix_spawn root; }
@test "child-posix-spawn nobody" { escape child_posix_spawn nobody; }
@test "child-thread root" { escape child_thread root; }
@test "child-thread nobody" { escape child_thread nobody; }
@test "child-env-i root" { escape child_env_i root; }
@test "child-env-i nobody" { escape child_env_i nobody; }
@test "sed-in-place root" { escape sed_in_place root; }
@test "sed-in-place nobody" { escape sed_in_place nobody; }
@test "git-commit root" { escape git_commit root; }
@test "git-commit nobody" { escape git_commit nobody; }
@test "sqlite-create root" { escape sqlite_create root; }
@test "sqlite-create nobody" { escape sqlite_create nobody; }
@test "sqlite-write root" { escape sqlite_write root; }
@test "sqlite-write nobody" { escape sqlite_write nobody; }
@test "python-rmtree root" { escape python_rmtree root; }
@test "python-rmtree nobody" { escape python_rmtree nobody; }
@test "core-dump root" { escape core_dump root; }
@test "core-dump nobody" { escape core_dump nobody; }

# The one way out the guard cannot see (io_uring's SETXATTR makes no syscall, and
# Landlock does not cover xattrs): the namespace layer's read-only view refuses it, and
# --verify, the ground truth, finds nothing changed. Where namespaces are unavailable
# (corpus-nons) the xattr is set, and --verify must say so.
@test "uring-setxattr: refused, and --verify finds nothing changed" {
    CASE=uring_setxattr_verify RUN_USER=root
    if [ -n "${TESTFENCE_RUN_ID:-}" ]; then
        RESULT="skipped (nested under testfence: the outer run's view decides)"
        skip "nested under testfence: the outer run's view decides"
    fi
    P="$BATS_TEST_TMPDIR/proj"
    mkdir -p "$P/tests" "$P/.git" && printf 'theme = "dark"\n' >"$P/config.toml" && cd "$P"
    if [ -n "$E_WRAP" ]; then
        run "$E_WRAP" "$TF" run --verify -- "$E_URING" setxattr config.toml
        [ "$status" -eq 120 ] # the driver succeeded: the xattr was set
        [[ "$output" == *"VERIFY: config.toml: extended attributes changed"* ]]
        [[ "$output" == *"--verify: 1 path outside the writable set changed"* ]]
        RESULT="xfail (the fallback lets it through; --verify reported it)"
        return
    fi
    run "$TF" run --verify -- "$E_URING" setxattr config.toml
    [ "$status" -eq 1 ] # the driver failed
    [[ "$output" == *EROFS* ]]
    [[ "$output" == *"--verify: nothing outside the writable set changed"* ]]
    [ -z "$(getfattr --absolute-names -d config.toml 2>/dev/null)" ]
    RESULT="blocked (EROFS; --verify: nothing changed)"
}
