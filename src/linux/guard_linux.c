/* The Linux guard: a seccomp filter that sends the metadata syscalls (x86_64
 * and i386 entry points alike) to the parent (SECCOMP_RET_USER_NOTIF) and
 * denies TIOCSTI/TIOCLINUX outright. open() and every other syscall never
 * leave the kernel. */
#include "guard.h"

#include "linux_compat.h"
#include "core/path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/fs.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

/* How each guarded syscall names its target. */
struct meta_call {
    int nr;        /* x86_64 number, -1: none */
    int nr32;      /* i386 number (int $0x80 from any process), -1: none */
    int dirfd_arg; /* -1: relative to the cwd */
    int path_arg;  /* -1: the target is the fd in fd_arg */
    int fd_arg;    /* -1: none */
    int flags_arg; /* -1: none; else holds AT_SYMLINK_NOFOLLOW / AT_EMPTY_PATH */
    int nofollow;  /* acts on a final symlink itself (lchown, lsetxattr) */
};

/* i386 numbers from asm/unistd_32.h; syscalls from 452 on share one number. */
static const struct meta_call calls[] = {
    {SYS_chmod, 15, -1, 0, -1, -1, 0},
    {SYS_fchmod, 94, -1, -1, 0, -1, 0},
    {SYS_fchmodat, 306, 0, 1, -1, -1, 0},
    {SYS_fchmodat2, 452, 0, 1, -1, 3, 0},
    {SYS_chown, 182, -1, 0, -1, -1, 0},
    {-1, 212 /* chown32 */, -1, 0, -1, -1, 0},
    {SYS_lchown, 16, -1, 0, -1, -1, 1},
    {-1, 198 /* lchown32 */, -1, 0, -1, -1, 1},
    {SYS_fchown, 95, -1, -1, 0, -1, 0},
    {-1, 207 /* fchown32 */, -1, -1, 0, -1, 0},
    {SYS_fchownat, 298, 0, 1, -1, 4, 0},
    {SYS_utime, 30, -1, 0, -1, -1, 0},
    {SYS_utimes, 271, -1, 0, -1, -1, 0},
    {SYS_utimensat, 320, 0, 1, -1, 3, 0},
    {-1, 412 /* utimensat_time64 */, 0, 1, -1, 3, 0},
    {SYS_futimesat, 299, 0, 1, -1, -1, 0},
    {SYS_setxattr, 226, -1, 0, -1, -1, 0},
    {SYS_lsetxattr, 227, -1, 0, -1, -1, 1},
    {SYS_fsetxattr, 228, -1, -1, 0, -1, 0},
    {SYS_removexattr, 235, -1, 0, -1, -1, 0},
    {SYS_lremovexattr, 236, -1, 0, -1, -1, 1},
    {SYS_fremovexattr, 237, -1, -1, 0, -1, 0},
    {SYS_setxattrat, 463, 0, 1, -1, 2, 0},
    {SYS_removexattrat, 466, 0, 1, -1, 2, 0},
    {SYS_file_setattr, 469, 0, 1, -1, 4, 0},
    /* Only the inode-flag requests (chattr) reach the supervisor; see emit_ioctl. */
    {SYS_ioctl, 54, -1, -1, 0, -1, 0},
};
enum { NCALLS = sizeof calls / sizeof calls[0], NR_IOCTL32 = 54 };

#define STMT(code, k) ((struct sock_filter)BPF_STMT(code, k))
#define JUMP(code, k, t, f) ((struct sock_filter)BPF_JUMP(code, k, t, f))

struct bpf {
    struct sock_filter f[256];
    unsigned n;
};

static void emit(struct bpf *b, struct sock_filter s)
{
    if (b->n < sizeof b->f / sizeof b->f[0])
        b->f[b->n++] = s;
}

/* "if A == K return RET": two instructions. */
static void emit_ret_if(struct bpf *b, uint32_t k, uint32_t ret)
{
    emit(b, JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, 1));
    emit(b, STMT(BPF_RET | BPF_K, ret));
}

/* ioctl: typing into the terminal is refused outright; changing inode flags
 * (chattr +i/+a, project ids) is a metadata write the supervisor judges. */
static void emit_ioctl(struct bpf *b, uint32_t nr_ioctl)
{
    emit(b, JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr_ioctl, 1, 0));
    emit(b, STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    emit(b, STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])));
    emit_ret_if(b, TIOCSTI, SECCOMP_RET_ERRNO | EPERM);
    emit_ret_if(b, TIOCLINUX, SECCOMP_RET_ERRNO | EPERM);
    emit_ret_if(b, FS_IOC_SETFLAGS, SECCOMP_RET_USER_NOTIF);
    emit_ret_if(b, FS_IOC32_SETFLAGS, SECCOMP_RET_USER_NOTIF);
    emit_ret_if(b, FS_IOC_FSSETXATTR, SECCOMP_RET_USER_NOTIF);
    emit(b, STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
}

/* The checks for one architecture, ending in a return. */
static void emit_arch(struct bpf *b, bool i386)
{
    emit(b, STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
    /* x32 syscalls would dodge the numbers below; nothing real uses them. */
    if (!i386)
        emit(b, JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1)),
            emit(b, STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS));
    for (unsigned i = 0; i < NCALLS; i++) {
        int nr = i386 ? calls[i].nr32 : calls[i].nr;
        if (nr >= 0 && nr != (i386 ? NR_IOCTL32 : SYS_ioctl))
            emit_ret_if(b, (uint32_t)nr, SECCOMP_RET_USER_NOTIF);
    }
    emit_ioctl(b, i386 ? NR_IOCTL32 : SYS_ioctl);
}

/* Append BLOCK to B, entered only when the architecture is ARCH. */
static void emit_branch(struct bpf *b, uint32_t arch, const struct bpf *block)
{
    emit(b, JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 0, (uint8_t)block->n));
    for (unsigned i = 0; i < block->n; i++)
        emit(b, block->f[i]);
}

int guard_install(void)
{
    struct bpf b = {.n = 0}, b64 = {.n = 0}, b32 = {.n = 0};
    emit_arch(&b64, false);
    emit_arch(&b32, true);
    emit(&b, STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    emit_branch(&b, AUDIT_ARCH_X86_64, &b64);
    emit(&b, STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    emit_branch(&b, AUDIT_ARCH_I386, &b32);
    emit(&b, STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    if (b.n == sizeof b.f / sizeof b.f[0])
        return -E2BIG; /* the table outgrew the buffer: a bug, refuse rather than truncate */
    struct sock_fprog prog = {.len = (unsigned short)b.n, .filter = b.f};
    long fd =
        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
    return fd < 0 ? -errno : (int)fd;
}

static const struct meta_call *find_call(uint32_t arch, int nr)
{
    for (unsigned i = 0; i < NCALLS; i++)
        if ((arch == AUDIT_ARCH_I386 ? calls[i].nr32 : calls[i].nr) == nr)
            return &calls[i];
    return NULL;
}

/* Copy a NUL-terminated string out of the child's memory. */
static int read_string(pid_t pid, unsigned long addr, char *out, size_t len)
{
    struct iovec local = {out, len - 1}, remote = {(void *)addr, len - 1};
    ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (n <= 0) {
        /* The string may end before an unmapped page: read up to the page end. */
        size_t room = 4096 - (addr & 4095);
        local.iov_len = remote.iov_len = room < len - 1 ? room : len - 1;
        n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    }
    if (n <= 0)
        return -1;
    out[n] = '\0';
    return strlen(out) < (size_t)n ? 0 : -1;
}

/* The path a /proc/PID/{cwd,fd/N} link names, as the child sees it. */
static int proc_link(pid_t pid, const char *what, char *out, size_t len)
{
    char link[64];
    snprintf(link, sizeof link, "/proc/%d/%s", (int)pid, what);
    ssize_t n = readlink(link, out, len - 1);
    if (n < 0)
        return -1;
    out[n] = '\0';
    return 0;
}

/* What a guarded call aims at, read from its arguments. */
struct target {
    int fd;              /* >= 0: the open file itself */
    int dirfd;           /* else PATH is relative to this (AT_FDCWD: the cwd) */
    char path[PATH_MAX]; /* as the child wrote it */
    bool nofollow;       /* the call acts on a final symlink itself */
};

/* Read the call's arguments into T. -1 when the kernel will fail the call
 * anyway (a pointer the child cannot read, a NULL path with no dirfd). */
static int read_target(const struct seccomp_notif *req, const struct meta_call *c, struct target *t)
{
    const unsigned long long *a = req->data.args;
    int flags = c->flags_arg >= 0 ? (int)a[c->flags_arg] : 0;
    t->fd = c->fd_arg >= 0 ? (int)a[c->fd_arg] : -1;
    t->dirfd = c->dirfd_arg >= 0 ? (int)a[c->dirfd_arg] : AT_FDCWD;
    t->nofollow = c->nofollow || (flags & AT_SYMLINK_NOFOLLOW);
    t->path[0] = '\0';
    if (c->path_arg < 0)
        return 0;
    if (a[c->path_arg] && read_string((pid_t)req->pid, a[c->path_arg], t->path, sizeof t->path) < 0)
        return -1;
    if (t->path[0])
        return 0;
    /* utimensat(fd, NULL, ...) or AT_EMPTY_PATH: the dirfd itself is the target. */
    if (t->dirfd == AT_FDCWD)
        return -1;
    t->fd = t->dirfd;
    return 0;
}

/* The absolute path of T as the child sees it, from /proc/PID/{fd/N,cwd}.
 * 1 when it is no filesystem object (a pipe, a socket), -1 on failure. */
static int locate(pid_t pid, const struct target *t, char *full, size_t len)
{
    char what[32], base[PATH_MAX];
    if (t->fd < 0 && t->path[0] == '/')
        return snprintf(full, len, "%s", t->path) < (int)len ? 0 : -1;
    int fd = t->fd >= 0 ? t->fd : t->dirfd;
    if (fd == AT_FDCWD)
        snprintf(what, sizeof what, "cwd");
    else
        snprintf(what, sizeof what, "fd/%d", fd);
    if (proc_link(pid, what, base, sizeof base) < 0)
        return -1;
    if (base[0] != '/')
        return 1;
    int n =
        t->fd >= 0 ? snprintf(full, len, "%s", base) : snprintf(full, len, "%s/%s", base, t->path);
    return n >= 0 && (size_t)n < len ? 0 : -1;
}

/* A nofollow call acts on its last component, so only the directory is
 * resolved; "", "." and ".." are never symlinks and resolve in full (else
 * "tests/.." would pass for a name inside tests/). */
static int resolve_target(const char *full, bool nofollow, char *resolved, size_t len)
{
    const char *last = strrchr(full, '/');
    last = last ? last + 1 : full;
    if (!nofollow || !*last || !strcmp(last, ".") || !strcmp(last, ".."))
        return path_resolve(full, resolved, len, NULL);
    char dir[PATH_MAX], rdir[PATH_MAX];
    path_dirname(dir, sizeof dir, full);
    if (path_resolve(dir, rdir, sizeof rdir, NULL) < 0)
        return -1;
    return path_join(resolved, len, rdir, last, NULL);
}

/* Resolve the target of the call into RESOLVED: 0 resolved, 1 not a filesystem
 * object, -1 when the kernel will fail the call anyway. */
static int target_of(const struct seccomp_notif *req, const struct meta_call *c, char *resolved,
                     size_t len)
{
    struct target t;
    char full[PATH_MAX * 2 + 2];
    if (read_target(req, c, &t) < 0)
        return -1;
    int r = locate((pid_t)req->pid, &t, full, sizeof full);
    if (r != 0)
        return r;
    return resolve_target(full, t.nofollow && t.fd < 0, resolved, len);
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

int guard_answer(int listener, const struct policy *p)
{
    struct seccomp_notif req;
    memset(&req, 0, sizeof req);
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
        return (errno == EINTR || errno == ENOENT) ? 0 : -1;
    const struct meta_call *c = find_call(req.data.arch, req.data.nr);
    char resolved[PATH_MAX];
    int t = c ? target_of(&req, c, resolved, sizeof resolved) : -1;
    /* The child may have died and its pid been reused while we looked. */
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req.id) < 0)
        return 0;
    /* An fd that is not open or a path the child cannot itself read (bad
     * pointer) makes the kernel fail the call anyway: let it say EBADF/EFAULT
     * as it would without us (CPython's own tests check exactly that). */
    int deny = t == 0 && !policy_match(p, resolved);
    return respond(listener, &req, deny ? EACCES : 0);
}
