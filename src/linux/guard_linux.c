/* The Linux guard: a seccomp filter that sends the metadata syscalls (x86_64 and i386
 * entry points alike), the mount calls and every ioctl it cannot classify as harmless to the
 * parent (SECCOMP_RET_USER_NOTIF). The parent refuses mount calls and TIOCSTI/TIOCLINUX
 * outright, resolves any other target in the child's view with the one resolver (core/path)
 * and answers; whatever it cannot work out is refused; each refusal is recorded. open() and
 * every other syscall never leave the kernel. */
#include "guard.h"

#include "bpf.h"
#include "ioctls.h"
#include "linux_compat.h"
#include "core/path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/fs.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

/* How each guarded syscall names its target. */
struct meta_call {
    int nr;        /* x86_64 number, -1: none */
    int nr32;      /* i386 number (int $0x80 from any process), -1: none */
    int dirfd_arg; /* -1: relative to the cwd */
    int path_arg;  /* -1: the target is the fd in fd_arg */
    int fd_arg;    /* -1: none */
    int flags_arg; /* -1: none; else holds AT_SYMLINK_NOFOLLOW / AT_EMPTY_PATH */
    int nofollow;  /* acts on a final symlink itself (lchown, lsetxattr) */
    int null_fd;   /* a NULL path names the dirfd itself (utimensat, futimesat) */
};

/* i386 numbers from asm/unistd_32.h; syscalls from 452 on share one number. */
static const struct meta_call calls[] = {
    {SYS_chmod, 15, -1, 0, -1, -1, 0, 0},
    {SYS_fchmod, 94, -1, -1, 0, -1, 0, 0},
    {SYS_fchmodat, 306, 0, 1, -1, -1, 0, 0},
    {SYS_fchmodat2, 452, 0, 1, -1, 3, 0, 0},
    {SYS_chown, 182, -1, 0, -1, -1, 0, 0},
    {-1, 212 /* chown32 */, -1, 0, -1, -1, 0, 0},
    {SYS_lchown, 16, -1, 0, -1, -1, 1, 0},
    {-1, 198 /* lchown32 */, -1, 0, -1, -1, 1, 0},
    {SYS_fchown, 95, -1, -1, 0, -1, 0, 0},
    {-1, 207 /* fchown32 */, -1, -1, 0, -1, 0, 0},
    {SYS_fchownat, 298, 0, 1, -1, 4, 0, 0},
    {SYS_utime, 30, -1, 0, -1, -1, 0, 0},
    {SYS_utimes, 271, -1, 0, -1, -1, 0, 0},
    {SYS_utimensat, 320, 0, 1, -1, 3, 0, 1},
    {-1, 412 /* utimensat_time64 */, 0, 1, -1, 3, 0, 1},
    {SYS_futimesat, 299, 0, 1, -1, -1, 0, 1},
    {SYS_setxattr, 226, -1, 0, -1, -1, 0, 0},
    {SYS_lsetxattr, 227, -1, 0, -1, -1, 1, 0},
    {SYS_fsetxattr, 228, -1, -1, 0, -1, 0, 0},
    {SYS_removexattr, 235, -1, 0, -1, -1, 0, 0},
    {SYS_lremovexattr, 236, -1, 0, -1, -1, 1, 0},
    {SYS_fremovexattr, 237, -1, -1, 0, -1, 0, 0},
    {SYS_setxattrat, 463, 0, 1, -1, 2, 0, 0},
    {SYS_removexattrat, 466, 0, 1, -1, 2, 0, 0},
    {SYS_file_setattr, 469, 0, 1, -1, 4, 0, 0},
    /* Only the requests not known to be harmless reach the supervisor; see emit_ioctl. */
    {SYS_ioctl, 54, -1, -1, 0, -1, 0, 0},
};
enum { NCALLS = sizeof calls / sizeof calls[0], NR_IOCTL32 = 54 };

/* ioctl (both architectures come here): harmless requests run; anything else goes to the
 * supervisor, which refuses typing into the terminal and judges the rest by its file.
 * Linear, one compare each, and shared by both: installing costs about 0.2 µs an instruction
 * (bench/filter.sh), while an ioctl walks these few dozen compares in nanoseconds. */
static void emit_ioctl(struct bpf *b)
{
    bpf_load(b, offsetof(struct seccomp_data, args[1]));
    size_t n;
    const uint32_t *harmless = ioctls_harmless(&n);
    bpf_ret_any(b, harmless, n, SECCOMP_RET_ALLOW, SECCOMP_RET_USER_NOTIF);
}

/* The calls that change mounts (open_tree 428, move_mount 429, fsopen 430, fsconfig 431,
 * fsmount 432, fspick 433, mount_setattr 442, open_tree_attr 467: shared by both tables), and
 * open_by_handle_at, which as root opens any file of a file system through any mount of it
 * (the writable copy of tests/, say), and chroot: a chrooted process (root, or anyone after
 * unshare(CLONE_NEWUSER)) no longer reaches the records socket by its path, so every later
 * refusal went unrecorded: x86_64 numbers, then i386. */
static const int mount_calls64[] = {
    SYS_mount, SYS_umount2, SYS_pivot_root, 304 /* by handle */, 428, 429, 430, 431, 432, 433,
    442,       467,         SYS_chroot};
static const int mount_calls32[] = {21 /* mount */,
                                    52 /* umount2 */,
                                    22 /* umount */,
                                    217 /* pivot_root */,
                                    342 /* by handle */,
                                    428,
                                    429,
                                    430,
                                    431,
                                    432,
                                    433,
                                    442,
                                    467,
                                    61 /* chroot */};

/* io_uring's own calls: refused only where an inherited fd opened for writing reaches a file
 * outside the writable set (its ops make no syscall the guard could check). */
static const int uring_calls[] = {425, 426, 427};

/* What one filter checks: the calls it refuses outright, and whether it also hands the
 * metadata calls to the supervisor (a guard with a listener) or lets them run. */
struct filter_spec {
    bool uring; /* refuse io_uring too */
    bool notify;
};

static void add_each(struct bpf_case *cases, size_t *n, const int *nrs, size_t len, uint32_t ret)
{
    for (size_t i = 0; i < len; i++)
        bpf_case_add(cases, n, (uint32_t)nrs[i], ret);
}

enum { MAX_CASES = 64 };
_Static_assert(sizeof mount_calls32 / sizeof mount_calls32[0] +
                       sizeof uring_calls / sizeof uring_calls[0] + NCALLS <=
                   MAX_CASES,
               "one architecture's cases must fit MAX_CASES");

/* The checks for one architecture, ending in a return: the refusals first (a number in both
 * lists is refused), then the calls the supervisor judges, then everything else runs. With
 * NOTIFY, an ioctl jumps to the shared block: the index of that jump is put in *TO_IOCTL. */
static void emit_arch(struct bpf *b, bool i386, const struct filter_spec *spec, unsigned *to_ioctl)
{
    uint32_t nr_ioctl = i386 ? NR_IOCTL32 : SYS_ioctl;
    bpf_load(b, offsetof(struct seccomp_data, nr));
    /* x32 syscalls would dodge the numbers below; nothing real uses them. */
    if (!i386) {
        bpf_emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1));
        bpf_ret(b, SECCOMP_RET_ERRNO | ENOSYS);
    }
    if (spec->notify)
        *to_ioctl = bpf_jump_if(b, nr_ioctl);
    struct bpf_case cases[MAX_CASES];
    size_t n = 0;
    /* With a supervisor, it refuses them and records each; alone, the kernel refuses. */
    uint32_t mounts = spec->notify ? SECCOMP_RET_USER_NOTIF : SECCOMP_RET_ERRNO | EPERM;
    if (i386)
        add_each(cases, &n, mount_calls32, sizeof mount_calls32 / sizeof mount_calls32[0], mounts);
    else
        add_each(cases, &n, mount_calls64, sizeof mount_calls64 / sizeof mount_calls64[0], mounts);
    if (spec->uring) /* as if absent */
        add_each(cases, &n, uring_calls, sizeof uring_calls / sizeof uring_calls[0],
                 SECCOMP_RET_ERRNO | ENOSYS);
    for (unsigned i = 0; spec->notify && i < NCALLS; i++) {
        int nr = i386 ? calls[i].nr32 : calls[i].nr;
        if (nr >= 0 && (uint32_t)nr != nr_ioctl)
            bpf_case_add(cases, &n, (uint32_t)nr, SECCOMP_RET_USER_NOTIF);
    }
    bpf_ret_cases(b, cases, n, SECCOMP_RET_ALLOW);
}

/* Build SPEC's filter for x86_64 and i386 and install it. The listener fd with NOTIFY, else
 * 0; or -errno. A static buffer: BPF_MAXINSNS instructions do not belong on a stack; the
 * child is single-threaded here, between fork and exec. */
static int install(const struct filter_spec *spec)
{
    static struct bpf b;
    unsigned ioctl64 = 0, ioctl32 = 0;
    b.n = 0;
    b.overflow = false;
    bpf_load(&b, offsetof(struct seccomp_data, arch));
    unsigned to64 = bpf_jump_if(&b, AUDIT_ARCH_X86_64);
    unsigned to32 = bpf_jump_if(&b, AUDIT_ARCH_I386);
    bpf_ret(&b, SECCOMP_RET_ALLOW);
    bpf_land(&b, to64);
    emit_arch(&b, false, spec, &ioctl64);
    bpf_land(&b, to32);
    emit_arch(&b, true, spec, &ioctl32);
    if (spec->notify) {
        bpf_land(&b, ioctl64);
        bpf_land(&b, ioctl32);
        emit_ioctl(&b);
    }
    if (b.overflow)
        return -E2BIG; /* the table outgrew the buffer: a bug, refuse rather than truncate */
    struct sock_fprog prog = {.len = (unsigned short)b.n, .filter = b.f};
    long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                      spec->notify ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0, &prog);
    return fd < 0 ? -errno : (int)fd;
}

int guard_install(bool uring)
{
    struct filter_spec spec = {.uring = uring, .notify = true};
    return install(&spec);
}

int guard_deny_mounts(bool uring)
{
    struct filter_spec spec = {.uring = uring, .notify = false};
    return install(&spec);
}

static bool is_mount_call(uint32_t arch, int nr)
{
    const int *t = arch == AUDIT_ARCH_I386 ? mount_calls32 : mount_calls64;
    size_t n = arch == AUDIT_ARCH_I386 ? sizeof mount_calls32 / sizeof mount_calls32[0]
                                       : sizeof mount_calls64 / sizeof mount_calls64[0];
    for (size_t i = 0; i < n; i++)
        if (t[i] == nr)
            return true;
    return false;
}

static const struct meta_call *find_call(uint32_t arch, int nr)
{
    for (unsigned i = 0; i < NCALLS; i++)
        if ((arch == AUDIT_ARCH_I386 ? calls[i].nr32 : calls[i].nr) == nr)
            return &calls[i];
    return NULL;
}

/* read_string's answer for a path the kernel itself refuses: a pointer the child cannot read
 * (EFAULT), or no NUL within PATH_MAX bytes (ENAMETOOLONG). */
enum { KERNEL_REFUSES = 1 };

/* Copy the NUL-terminated string at ADDR out of the child's memory, once, a page at a time
 * (the string may end just before an unmapped page). 0, KERNEL_REFUSES, or -1 when the
 * child cannot be read at all (it made itself non-dumpable, it is gone). */
static int read_string(pid_t pid, unsigned long addr, char *out, size_t len)
{
    size_t got = 0;
    while (got < len) {
        size_t room = 4096 - ((addr + got) & 4095);
        if (room > len - got)
            room = len - got;
        struct iovec local = {out + got, room}, remote = {(void *)(addr + got), room};
        ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
        if (n < 0)
            return errno == EFAULT ? KERNEL_REFUSES : -1;
        if (n == 0)
            return -1;
        if (memchr(out + got, '\0', (size_t)n))
            return 0;
        got += (size_t)n;
        if ((size_t)n < room)
            return KERNEL_REFUSES;
    }
    return KERNEL_REFUSES;
}

/* What a guarded call aims at, read from its arguments. */
struct target {
    int dirfd;           /* PATH is relative to it (AT_FDCWD: the cwd) */
    unsigned flags;      /* PATH_NOFOLLOW, PATH_EMPTY */
    char path[PATH_MAX]; /* as the child wrote it; "" with PATH_EMPTY: the dirfd itself */
};

/* Read the call's arguments into T: 0, KERNEL_REFUSES, or -1 when they cannot be read. */
static int read_target(const struct seccomp_notif *req, const struct meta_call *c, struct target *t)
{
    const unsigned long long *a = req->data.args;
    int flags = c->flags_arg >= 0 ? (int)a[c->flags_arg] : 0;
    t->path[0] = '\0';
    t->flags = (c->nofollow || (flags & AT_SYMLINK_NOFOLLOW) ? PATH_NOFOLLOW : 0) |
               (flags & AT_EMPTY_PATH ? PATH_EMPTY : 0);
    if (c->path_arg < 0) { /* fchmod, fsetxattr, ioctl: the open file itself */
        t->dirfd = (int)a[c->fd_arg];
        t->flags |= PATH_EMPTY;
        return 0;
    }
    t->dirfd = c->dirfd_arg >= 0 ? (int)a[c->dirfd_arg] : AT_FDCWD;
    if (a[c->path_arg])
        return read_string((pid_t)req->pid, (unsigned long)a[c->path_arg], t->path, sizeof t->path);
    /* utimensat(fd, NULL, ...), futimesat(fd, NULL, ...): the dirfd itself. */
    if (!c->null_fd || t->dirfd == AT_FDCWD)
        return KERNEL_REFUSES; /* EFAULT */
    t->flags |= PATH_EMPTY;
    return 0;
}

/* The answer to one notification: 0 to let the call run, else the errno to fail it with.
 * Whatever cannot be worked out is refused; only what the kernel refuses itself (a bad
 * pointer, a closed fd, a missing directory) or what names no file runs. */
static int decide(const struct seccomp_notif *req, const struct policy *p, struct path_res *res)
{
    const struct meta_call *c = find_call(req->data.arch, (int)req->data.nr);
    struct target t;
    res->path[0] = '\0';
    if (is_mount_call(req->data.arch, (int)req->data.nr))
        return EPERM; /* a mount changed would reach outside the view, whatever its target */
    bool is_ioctl = req->data.nr == (req->data.arch == AUDIT_ARCH_I386 ? NR_IOCTL32 : SYS_ioctl);
    if (is_ioctl && ioctl_classify(req->data.args[1]) == IOCTL_REFUSED)
        return EPERM; /* typing into the terminal: refused on any file */
    if (!c)
        return EACCES; /* not a call the filter sends: never expected, so refused */
    int r = read_target(req, c, &t);
    if (r != 0)
        return r == KERNEL_REFUSES ? 0 : EACCES;
    struct path_ctx ctx = {(pid_t)req->pid};
    if (path_resolve_at(&ctx, t.dirfd, t.path, t.flags, res, NULL) < 0) {
        res->path[0] = '\0';
        return EACCES;
    }
    struct policy_decision d; /* quiet or not, a metadata change outside is refused */
    enum policy_verdict v = policy_decide(p, res, NULL, 0, &d);
    return v == POLICY_ALLOWED || v == POLICY_NO_TARGET ? 0 : EACCES;
}

/* The name of the guarded call NR, for a record, and whether the shim interposes libc's
 * function of that name (then a dynamic program's call is recorded by the shim). */
static const char *call_name(uint32_t arch, int nr, bool *libc)
{
    static const struct {
        int nr;
        const char *name;
        bool libc;
    } names[] = {
        {SYS_chmod, "chmod", true},
        {SYS_fchmod, "fchmod", true},
        {SYS_fchmodat, "fchmodat", true},
        {SYS_fchmodat2, "fchmodat2", false},
        {SYS_chown, "chown", true},
        {SYS_lchown, "lchown", true},
        {SYS_fchown, "fchown", true},
        {SYS_fchownat, "fchownat", true},
        {SYS_utime, "utime", true},
        {SYS_utimes, "utimes", true},
        {SYS_utimensat, "utimensat", true},
        {SYS_futimesat, "futimesat", true},
        {SYS_setxattr, "setxattr", true},
        {SYS_lsetxattr, "lsetxattr", true},
        {SYS_fsetxattr, "fsetxattr", true},
        {SYS_removexattr, "removexattr", true},
        {SYS_lremovexattr, "lremovexattr", true},
        {SYS_fremovexattr, "fremovexattr", true},
        {SYS_setxattrat, "setxattrat", false},
        {SYS_removexattrat, "removexattrat", false},
        {SYS_file_setattr, "file_setattr", false},
        {SYS_ioctl, "ioctl", false},
        {SYS_mount, "mount", false},
        {SYS_umount2, "umount2", false},
        {SYS_pivot_root, "pivot_root", false},
        {304, "open_by_handle_at", false},
        {428, "open_tree", false},
        {429, "move_mount", false},
        {430, "fsopen", false},
        {431, "fsconfig", false},
        {432, "fsmount", false},
        {433, "fspick", false},
        {442, "mount_setattr", false},
        {467, "open_tree_attr", false},
        {SYS_chroot, "chroot", false},
    };
    *libc = false;
    if (arch != AUDIT_ARCH_X86_64)
        return "int80"; /* the i386 entry point: never through libc's wrappers here */
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].nr == nr) {
            *libc = names[i].libc;
            return names[i].name;
        }
    return "syscall";
}

static int respond(int listener, const struct seccomp_notif *req, int error)
{
    struct seccomp_notif_resp resp = {.id = req->id};
    if (error)
        resp.error = -error;
    else
        resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0 && errno != ENOENT)
        return -1;
    return 0;
}

int guard_answer(int listener, const struct policy *p,
                 void (*refused)(void *ctx, const struct guard_refusal *r), void *ctx)
{
    static struct path_res res; /* PATH_MAX: not on the stack; one supervisor */
    struct seccomp_notif req;
    memset(&req, 0, sizeof req);
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
        return (errno == EINTR || errno == ENOENT) ? 0 : -1;
    int error = decide(&req, p, &res);
    /* The child may have died and its pid been reused while we looked: then nobody waits. */
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req.id) < 0)
        return 0;
    if (error && refused) {
        /* Before the answer, while the caller waits in the call: it is still there to be
         * described (its program, whether the shim is in it), not gone or reused. */
        struct guard_refusal r = {.pid = (long)req.pid, .path = res.path, .err = error};
        r.call = call_name(req.data.arch, (int)req.data.nr, &r.libc);
        refused(ctx, &r);
    }
    return respond(listener, &req, error);
}
