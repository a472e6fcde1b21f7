/* The Linux fence: Landlock, with best-effort ABI negotiation. */
#include "fence.h"

#include "linux_compat.h"
#include "core/path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

const char fence_never_covered[] =
    "chmod/chown, timestamps (utime/touch) and extended attributes on existing files";

const struct fence_class fence_classes[] = {
    {"write to files", 1, TF_LL_FS_WRITE_FILE},
    {"create regular files", 1, TF_LL_FS_MAKE_REG},
    {"create directories", 1, TF_LL_FS_MAKE_DIR},
    {"create symlinks", 1, TF_LL_FS_MAKE_SYM},
    {"create sockets", 1, TF_LL_FS_MAKE_SOCK},
    {"create fifos", 1, TF_LL_FS_MAKE_FIFO},
    {"create char devices", 1, TF_LL_FS_MAKE_CHAR},
    {"create block devices", 1, TF_LL_FS_MAKE_BLOCK},
    {"remove files", 1, TF_LL_FS_REMOVE_FILE},
    {"remove directories", 1, TF_LL_FS_REMOVE_DIR},
    {"rename/link across directories", 2, TF_LL_FS_REFER},
    {"truncate files", 3, TF_LL_FS_TRUNCATE},
    {NULL, 0, 0},
};

static long ll_create_ruleset(const struct tf_landlock_ruleset_attr *attr, size_t size,
                              uint32_t flags)
{
    return syscall(__NR_landlock_create_ruleset, attr, size, flags);
}

/* Read a small integer from a /proc/sys file; -1 when absent. */
static long proc_long(const char *path)
{
    FILE *f = fopen(path, "re");
    long v = -1;
    if (f) {
        if (fscanf(f, "%ld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

static bool proc_contains(const char *path, const char *word)
{
    char buf[512] = "";
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return strstr(buf, word) != NULL;
}

/* An integer field of /proc/self/status; 0 when absent. */
static int status_field(const char *name)
{
    char line[256];
    int v = 0;
    FILE *f = fopen("/proc/self/status", "re");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, name, strlen(name)))
            v = atoi(line + strlen(name));
    fclose(f);
    return v;
}

static void probe_system(struct fence_caps *caps)
{
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(caps->kernel, sizeof caps->kernel, "%s %s %s", u.sysname, u.release, u.machine);
    /* Debian's knob, when present, must be 1 as well as the generic limit. */
    long clone_knob = proc_long("/proc/sys/kernel/unprivileged_userns_clone");
    caps->userns = proc_long("/proc/sys/user/max_user_namespaces") > 0 && clone_knob != 0;
    caps->seccomp = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
    caps->seccomp_notify =
        caps->seccomp && proc_contains("/proc/sys/kernel/seccomp/actions_avail", "user_notif");
    caps->seccomp_filters = status_field("Seccomp_filters:");
}

void fence_probe(struct fence_caps *caps)
{
    memset(caps, 0, sizeof *caps);
    probe_system(caps);
    long abi = ll_create_ruleset(NULL, 0, TF_LL_CREATE_RULESET_VERSION);
    if (abi < 0) {
        if (errno == ENOSYS)
            snprintf(caps->why, sizeof caps->why,
                     "the kernel has no Landlock (needs Linux 5.13+ built with "
                     "CONFIG_SECURITY_LANDLOCK)");
        else if (errno == EOPNOTSUPP)
            snprintf(caps->why, sizeof caps->why,
                     "Landlock is built in but disabled at boot (add landlock to the "
                     "lsm= kernel parameter)");
        else
            snprintf(caps->why, sizeof caps->why, "Landlock probe failed: %s", strerror(errno));
        return;
    }
    caps->abi = (int)abi;
    for (const struct fence_class *c = fence_classes; c->name; c++)
        if (caps->abi >= c->abi)
            caps->handled |= c->right;
}

bool fence_enforces(const struct fence_caps *caps, const struct fence_class *cls)
{
    /* ABI 1 cannot handle REFER but always denies cross-directory renames and
     * links: stricter than needed, but nothing escapes. */
    if (cls->right == TF_LL_FS_REFER && caps->abi >= 1)
        return true;
    return (caps->handled & cls->right) != 0;
}

int fence_require_complete(const struct fence_caps *caps, tf_err *err)
{
    if (caps->abi == 0)
        return tf_errf(err, "cannot enforce the fence: %s", caps->why);
    char missing[512] = "";
    size_t len = 0;
    int need = 0;
    for (const struct fence_class *c = fence_classes; c->name; c++) {
        if (fence_enforces(caps, c))
            continue;
        len += (size_t)snprintf(missing + len, sizeof missing - len, "%s%s (needs ABI %d)",
                                len ? ", " : "", c->name, c->abi);
        if (c->abi > need)
            need = c->abi;
        if (len >= sizeof missing)
            break;
    }
    if (!missing[0])
        return 0;
    return tf_errf(err,
                   "cannot enforce the fence completely: this kernel has Landlock ABI %d, "
                   "which cannot block: %s; upgrade to a kernel with ABI %d (Linux 6.2+), or "
                   "run unfenced with --backend none",
                   caps->abi, missing, need);
}

static int add_entry(int rs, const struct policy_entry *e, uint64_t handled, tf_err *err)
{
    /* Never a device node: as root, one made in tests/ for the disk under the project would
     * reach every file on it. */
    uint64_t dir = handled & ~(TF_LL_FS_MAKE_CHAR | TF_LL_FS_MAKE_BLOCK);
    struct tf_landlock_path_beneath_attr pb = {
        .allowed_access = e->is_dir ? dir : (handled & TF_LL_FS_FILE_RIGHTS),
    };
    pb.parent_fd = open(e->path, O_PATH | O_CLOEXEC);
    if (pb.parent_fd < 0)
        return tf_errnof(err, errno, "cannot open writable path %s", e->path);
    long r = syscall(__NR_landlock_add_rule, rs, TF_LL_RULE_PATH_BENEATH, &pb, 0);
    int saved = errno;
    close(pb.parent_fd);
    if (r < 0)
        return tf_errnof(err, saved, "cannot add a Landlock rule for %s", e->path);
    return 0;
}

int fence_prepare(const struct policy *p, const struct fence_caps *caps, tf_err *err)
{
    /* From ABI 6 the command may not connect to an abstract unix socket, nor signal a
     * process, outside its own run: a helper listening there, or testfence itself, would act
     * unfenced on its behalf. Older kernels take the struct's first field only. */
    struct tf_landlock_ruleset_attr attr = {
        .handled_access_fs = caps->handled,
        .scoped = caps->abi >= 6 ? TF_LL_SCOPE_ABSTRACT_UNIX_SOCKET | TF_LL_SCOPE_SIGNAL : 0};
    size_t size = caps->abi >= 6 ? sizeof attr : sizeof attr.handled_access_fs;
    int rs = (int)ll_create_ruleset(&attr, size, 0);
    if (rs < 0)
        return tf_errnof(err, errno, "cannot create a Landlock ruleset");
    if (fcntl(rs, F_SETFD, FD_CLOEXEC) < 0) {
        close(rs);
        return tf_errnof(err, errno, "fcntl");
    }
    for (size_t i = 0; i < p->n; i++) {
        if (add_entry(rs, &p->entries[i], caps->handled, err) < 0) {
            close(rs);
            return -1;
        }
    }
    return rs;
}

#define CAP(c)                                                                                     \
    {                                                                                              \
        c, #c                                                                                      \
    }
const struct fence_cap fence_dropped_caps[] = {
    CAP(CAP_MKNOD),
    CAP(CAP_SYS_ADMIN),
    CAP(CAP_SYS_MODULE),
    CAP(CAP_SYS_RAWIO),
    CAP(CAP_SYS_BOOT),
    CAP(CAP_SYS_TIME),
    CAP(CAP_SYS_PACCT),
    CAP(CAP_LINUX_IMMUTABLE),
    CAP(CAP_DAC_READ_SEARCH),
    CAP(CAP_MAC_ADMIN),
    CAP(CAP_MAC_OVERRIDE),
    CAP(CAP_SYSLOG),
    CAP(CAP_AUDIT_CONTROL),
    CAP(CAP_AUDIT_READ),
    CAP(CAP_SYS_PTRACE),
    CAP(CAP_BPF),
    CAP(CAP_PERFMON),
    CAP(CAP_NET_ADMIN),
    CAP(CAP_SETFCAP),
    CAP(CAP_SYS_TTY_CONFIG),
    CAP(CAP_WAKE_ALARM),
    CAP(CAP_BLOCK_SUSPEND),
    CAP(CAP_CHECKPOINT_RESTORE),
    {-1, NULL},
};
#undef CAP

int fence_drop_caps(const char **step)
{
    /* Ambient capabilities survive an exec by anyone (setpriv --ambient-caps): none. */
    *step = "cannot clear the ambient capabilities";
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
        return errno;
    *step = "cannot drop capabilities from the bounding set";
    if (geteuid() != 0)
        return 0; /* an exec by anyone else starts with none */
    for (const struct fence_cap *c = fence_dropped_caps; c->cap >= 0; c++)
        if (prctl(PR_CAPBSET_DROP, c->cap, 0, 0, 0) < 0 && errno != EINVAL)
            return errno;
    /* Root's exec gives it its inheritable set too (a container may start it with one):
     * the same capabilities out of that set. */
    *step = "cannot drop capabilities from the inheritable set";
    struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
    struct __user_cap_data_struct d[2];
    if (syscall(SYS_capget, &h, d) < 0)
        return errno;
    for (const struct fence_cap *c = fence_dropped_caps; c->cap >= 0; c++)
        d[c->cap / 32].inheritable &= ~(1u << (c->cap % 32));
    return syscall(SYS_capset, &h, d) < 0 ? errno : 0;
}

int fence_enter(int ruleset_fd, const char **step)
{
    *step = "cannot set no_new_privs";
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        return errno;
    *step = "cannot enter the Landlock fence";
    if (syscall(__NR_landlock_restrict_self, ruleset_fd, 0) < 0)
        return errno;
    return 0;
}

/* ---- is this process fenced? ----------------------------------------------------------- */

/* The outermost project directory of P: a writable directory whose parent is not writable. */
static const struct policy_entry *outermost(const struct policy *p)
{
    const struct policy_entry *best = NULL;
    for (size_t i = 0; i < p->n; i++) {
        const struct policy_entry *e = &p->entries[i];
        if (e->is_dir && e->origin == POLICY_PROJECT &&
            (!best || strlen(e->path) < strlen(best->path)))
            best = e;
    }
    return best;
}

/* May this process remove the entry SUB of DIR as far as mode bits go? Then a refusal can
 * only come from a fence. Sticky directories and attributes are left out: they say EPERM. */
static bool dac_allows_rmdir(const char *dir, const char *sub)
{
    struct stat d, s;
    /* EROFS: a read-only mount (the namespace layer's view), not the mode bits: the probe
     * itself then says whether the kernel refuses. */
    if ((access(dir, W_OK | X_OK) < 0 && errno != EROFS) || stat(dir, &d) < 0 || lstat(sub, &s) < 0)
        return false;
    return !(d.st_mode & S_ISVTX) || d.st_uid == geteuid() || s.st_uid == geteuid();
}

int fence_in_force(const struct policy *p, tf_err *err)
{
    const struct policy_entry *e = outermost(p);
    char sub[PATH_MAX], dir[PATH_MAX], probe[PATH_MAX];
    if (!e)
        return tf_errf(err, "no project directory to probe from");
    /* DIR: the nearest ancestor of the entry outside the writable set; SUB: its child. */
    snprintf(sub, sizeof sub, "%s", e->path);
    path_dirname(dir, sizeof dir, sub);
    while (strcmp(dir, sub) && policy_match(p, dir)) {
        snprintf(sub, sizeof sub, "%s", dir);
        path_dirname(dir, sizeof dir, sub);
    }
    if (!strcmp(dir, sub) || !dac_allows_rmdir(dir, sub))
        return tf_errf(err, "%s cannot be probed (the root, or its mode bits would refuse)", dir);
    /* Not empty, whatever else happens to it meanwhile: a directory of ours is inside. A
     * directory, not a file: a pytest collecting the writable set meanwhile (another
     * pytest-xdist worker) lists a file and then asserts it is one, while the plugin keeps
     * it out of any directory of this name (pytest_ignore_collect). */
    if (path_join(probe, sizeof probe, e->path, FENCE_PROBE_PREFIX "XXXXXX", err) < 0)
        return -1;
    if (!mkdtemp(probe))
        return tf_errnof(err, errno, "cannot create a probe directory in %s", e->path);
    /* Raw: an LD_PRELOAD shim must not take this for a blocked write of the test's. */
    long r = syscall(SYS_unlinkat, AT_FDCWD, sub, AT_REMOVEDIR);
    int why = r < 0 ? errno : 0;
    syscall(SYS_unlinkat, AT_FDCWD, probe, AT_REMOVEDIR);
    if (why == EACCES || why == EROFS)
        return 1;
    if (why == ENOTEMPTY || why == EEXIST)
        return 0;
    return tf_errnof(err, why, "probing rmdir %s", sub);
}
