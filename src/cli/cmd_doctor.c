/* testfence doctor: what this machine can enforce, and which root and writable set apply. */
#include "cmds.h"
#include "linux/mountns.h"
#include "opts.h"
#include "core/path.h"
#include "core/shimconf.h"
#include "linux/fence.h"
#include "linux/session.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static const struct opts_command command = {
    .name = "doctor",
    .cmd = CMD_DOCTOR,
    .about = "usage: testfence doctor [OPTIONS]\n"
             "\n"
             "Print the kernel, its Landlock ABI and which classes of filesystem write the\n"
             "fence enforces on it, whether user namespaces and seccomp are available and the\n"
             "namespace layer can be had (tried in a throwaway child), the\n"
             "project root and writable set 'testfence run' would use from here, and whether\n"
             "it could create its run workspace there.\n"
             "\n",
    .after =
        "exit status: 0 'testfence run' would work here; 1 it would refuse (the kernel\n"
        "cannot enforce the fence, no project root or tests/ directory, a hazard in the\n"
        "writable set, the workspace cannot be created, as on a read-only root, or the config\n"
        "requires the namespace layer and it cannot be had); 125\n"
        "usage error.\n",
    .operands = OPERANDS_NONE,
    .missing = NULL,
};

static void print_caps(const struct fence_caps *c)
{
    printf("kernel:    %s\n", c->kernel);
    if (c->abi)
        printf("landlock:  ABI %d\n", c->abi);
    else
        printf("landlock:  unavailable: %s\n", c->why);
    printf("enforced write classes:\n");
    for (const struct fence_class *k = fence_classes; k->name; k++)
        printf("  %-32s %s (ABI %d+)\n", k->name, fence_enforces(c, k) ? "yes" : "NO ", k->abi);
    printf("never covered by Landlock: %s\n", fence_never_covered);
    printf("metadata guard: %s\n",
           c->seccomp_notify ? "yes: testfence's seccomp supervisor refuses those outside the "
                               "writable set"
                             : "NO: seccomp user notification is unavailable");
    if (c->seccomp_filters > 0)
        printf("           note: this process already runs under %d seccomp filter(s); if one\n"
               "           has a listener (an outer testfence run), the kernel allows no second\n"
               "           one, and the outer run's guard (and writable set) applies instead\n",
               c->seccomp_filters);
    printf("user namespaces: %s\n", c->userns ? "available" : "unavailable");
    printf("seccomp:   %s%s\n", c->seccomp ? "available" : "unavailable",
           c->seccomp_notify ? " (with user notification)" : "");
}

/* As root: the capabilities the command starts without, a few to a line. */
static void print_dropped_caps(void)
{
    int col = 0;
    printf("root:      the command runs without");
    for (const struct fence_cap *c = fence_dropped_caps; c->cap >= 0; c++) {
        if (col == 4) {
            printf("\n          ");
            col = 0;
        }
        printf(" %s%s", c->name, c[1].cap >= 0 ? "," : "");
        col++;
    }
    printf("\n           (each a way around the fence or into the machine's state)\n");
}

/* The namespace layer, tried for real in a throwaway child; run falls back to the guard
 * without it (or refuses, where the config requires it). */
static bool print_namespace_layer(void)
{
    char why[600];
    bool ok = mountns_probe(why, sizeof why) == 0;
    if (ok)
        printf("namespace layer: yes: the command runs in its own mount and PID namespaces,\n"
               "           every mount read-only but the writable set (metadata, io_uring and\n"
               "           inode ioctls outside get EROFS from the kernel); nothing it starts\n"
               "           outlives it\n");
    else
        printf("namespace layer: NO: %s;\n           %s; run falls back to the seccomp guard "
               "alone (weaker: docs/security.md)\n",
               why, mountns_advice);
    if (geteuid() == 0)
        print_dropped_caps();
    return ok;
}

/* The diagnostics shim, and the weaker backend it makes possible. */
static void print_shim(void)
{
    char path[PATH_MAX];
    tf_err err;
    if (shimconf_locate(path, sizeof path, &err) < 0) {
        printf("diagnostics: unavailable: %s\n", err.msg);
        printf("preload backend: unavailable (needs the shim)\n");
        return;
    }
    printf("diagnostics: %s (LD_PRELOAD; reports each blocked write and its test)\n", path);
    printf("preload backend: available with --backend preload only; WEAKER than landlock: the\n"
           "           shim refuses writes itself, so static binaries, raw syscalls and\n"
           "           processes with a cleared environment are NOT fenced\n");
}

/* Could run create its workspace? The nearest existing directory on the way to the
 * artifacts dir must be writable: not on a read-only mount, not someone else's. */
static int check_workspace(const struct plan *pl, tf_err *err)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", pl->ws.artifacts);
    while (access(dir, F_OK) < 0 && strcmp(dir, "/")) {
        char up[PATH_MAX];
        path_dirname(up, sizeof up, dir);
        snprintf(dir, sizeof dir, "%s", up);
    }
    if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) < 0)
        return tf_errnof(err, errno, "the run workspace cannot be created under %s", dir);
    printf("workspace: %s (can be created)\n", pl->ws.artifacts);
    return 0;
}

/* Whether run would work in this project: a root, the writable set, a workspace it can
 * create, no hazard in the writable set. Planned and scanned by the session run uses (what
 * it warns, as run would, goes to stdout); prints what it finds; 0 when run would work. */
static int check_project(const struct opts *o, bool ns_ok, tf_err *err)
{
    struct session s;
    struct session_request req = {.plan = o->req, .backend = SESSION_LANDLOCK, .warn = stdout};
    int rc = session_plan(&s, &req, err);
    if (rc < 0) {
        printf("project:   none usable from here: %s\n", err->msg);
    } else {
        plan_print_policy(stdout, &s.pl);
        rc = check_workspace(&s.pl, err);
        if (rc == 0 && session_requires_ns(&s) && !ns_ok)
            rc = tf_errf(err,
                         "%s requires the namespace layer (require = [\"namespace\"]), which "
                         "this machine refuses",
                         s.pl.cfg.source);
        if (rc < 0)
            printf("workspace: %s\n", err->msg);
    }
    if (rc == 0) {
        int n = session_hazards(&s, stdout, stdout, err);
        if (n != 0)
            rc = n < 0 ? -1
                       : tf_errf(err, "the writable set holds %d hazard%s (listed above)", n,
                                 n == 1 ? "" : "s");
        printf("hazards:   %s\n", n == 0 ? "none" : err->msg);
    }
    session_free(&s);
    return rc;
}

int cmd_doctor(int argc, char **argv)
{
    struct opts o;
    tf_err err = {0}, perr = {0};
    int r = opts_parse(argc, argv, &command, &o, &err);
    if (r == 1) {
        opts_free(&o);
        return 0;
    }
    if (r < 0) {
        fprintf(stderr, "testfence: %s\n", err.msg);
        opts_free(&o);
        return TF_EXIT_OWN_ERROR;
    }
    struct fence_caps caps;
    fence_probe(&caps);
    print_caps(&caps);
    bool ns_ok = print_namespace_layer();
    int project = check_project(&o, ns_ok, &perr);
    print_shim();
    int complete = fence_require_complete(&caps, &err) == 0;
    if (complete && project == 0)
        printf("verdict:   testfence run enforces the fence on this machine and can run here\n");
    else
        printf("verdict:   testfence run would refuse here: %s\n", complete ? perr.msg : err.msg);
    opts_free(&o);
    return complete && project == 0 ? 0 : 1;
}
