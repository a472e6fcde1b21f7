/* testfence explain: would a write to PATH be allowed, and by which rule. */
#include "cmds.h"
#include "opts.h"

#include <limits.h>
#include <stdio.h>

#ifndef environ /* macOS: src/macos/posix.h's */
extern char **environ;
#endif

static const struct opts_command command = {
    .name = "explain",
    .cmd = CMD_EXPLAIN,
    .about = "usage: testfence explain [OPTIONS] PATH...\n"
             "\n"
             "Say whether a write to each PATH would be allowed under 'testfence run', and\n"
             "which entry of the writable set allows it. PATH is resolved as the kernel\n"
             "would (relative to the current directory, symlinks followed, including a\n"
             "dangling final one); it need not exist. The answer comes from the same policy\n"
             "code the fence is built from. Declared outputs (the config's outputs, and\n"
             "--output) are writable; harmless tool state (git's index lock, ...) is blocked\n"
             "quietly; each run's private temp dir (TMPDIR) is writable too.\n"
             "\n",
    .after = "exit status: 0 every PATH is writable; 1 some PATH is not; 125 usage error or\n"
             "no usable project.\n",
    .operands = OPERANDS_SOME,
    .missing = "no PATH given; usage: testfence explain PATH...",
};

static int explain_one(const struct plan *pl, const char *path, tf_err *err)
{
    /* Resolved as text, so a path whose directories do not exist yet is still answered by
     * the set it would fall in (the fence's own resolver would say "fails anyway"). */
    struct path_res res = {.kind = PATH_FILE};
    struct policy_decision d;
    if (path_resolve(path, res.path, sizeof res.path, err) < 0)
        return -1;
    const char *resolved = res.path;
    policy_decide(&pl->policy, &res, NULL, 0, &d);
    const struct policy_entry *e = d.entry;
    if (e) {
        printf("%s: allowed: %s %s %s (%s", path, resolved,
               e->is_dir ? "is beneath" : "is the file", e->path, policy_origin_name(e->origin));
        printf(e->origin == POLICY_SYSTEM ? ")\n" : " \"%s\")\n", e->given);
        return 0;
    }
    const struct policy_quiet *q = d.quiet; /* quiet for everyone, or for these commands */
    if (q) {
        printf("%s: blocked quietly: %s is harmless state of %s%s%s (refused, not reported)\n",
               path, resolved, q->tool, q->commands ? " " : "", q->commands ? q->commands : "");
        return 1;
    }
    printf("%s: blocked: %s is outside the writable set of %s\n", path, resolved, pl->root);
    return 1;
}

int cmd_explain(int argc, char **argv)
{
    struct opts o;
    struct plan pl = {0};
    tf_err err = {0};
    int r = opts_parse(argc, argv, &command, &o, &err);
    if (r == 1) {
        opts_free(&o);
        return 0;
    }
    if (r == 0)
        r = plan_policy(&pl, &o.req, environ, &err);
    int status = 0;
    for (int i = 0; r == 0 && i < o.nargs; i++) {
        int one = explain_one(&pl, o.args[i], &err);
        if (one < 0)
            r = -1;
        else if (one)
            status = 1;
    }
    plan_free(&pl);
    opts_free(&o);
    if (r < 0) {
        fprintf(stderr, "testfence: %s\n", err.msg);
        return TF_EXIT_OWN_ERROR;
    }
    return status;
}
