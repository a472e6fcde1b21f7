#include "opts.h"

#include "base/vec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The retention count: --retain when given, else the config's. */
unsigned opts_retain(const struct opts *o, const struct config *cfg)
{
    return o->retain ? o->retain : cfg->retain;
}

/* An option that takes a value: "--name VALUE" or "--name=VALUE". */
static const char *value_of(int argc, char **argv, int *i, const char *name, tf_err *err)
{
    size_t n = strlen(name);
    const char *a = argv[*i];
    if (a[n] == '=')
        return a + n + 1;
    if (*i + 1 >= argc) {
        tf_errf(err, "%s needs a value", name);
        return NULL;
    }
    return argv[++*i];
}

static bool is_opt(const char *arg, const char *name)
{
    size_t n = strlen(name);
    return !strncmp(arg, name, n) && (arg[n] == '\0' || arg[n] == '=');
}

static int parse_retain(const char *s, unsigned *out, tf_err *err)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > 10000 || s[0] == '-')
        return tf_errf(err, "--retain needs a whole number from 1 to 10000, not \"%s\"", s);
    *out = (unsigned)v;
    return 0;
}

/* An environment variable name the shim can look up: [A-Za-z_][A-Za-z0-9_]*, short. */
static bool valid_env_name(const char *v)
{
    static const char ok[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_";
    size_t n = strlen(v);
    return n > 0 && n < 100 && strspn(v, ok) == n && !(v[0] >= '0' && v[0] <= '9');
}

/* Append V to the growable list *LIST of N entries (CAP allocated). */
static int push_str(const char ***list, size_t *n, size_t *cap, const char *v, tf_err *err)
{
    const char **nv = vec_grow(*list, cap, *n, sizeof *nv);
    if (!nv)
        return tf_errf(err, "out of memory");
    *list = nv;
    nv[(*n)++] = v;
    return 0;
}

static int parse_keep_fd(const char *s, struct opts *o, tf_err *err)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 3 || v > 1 << 20)
        return tf_errf(err, "--keep-fd needs a descriptor number from 3 up, not \"%s\"", s);
    int *nv = vec_grow(o->keep_fds, &o->keep_fds_cap, o->nkeep_fds, sizeof *nv);
    if (!nv)
        return tf_errf(err, "out of memory");
    o->keep_fds = nv;
    nv[o->nkeep_fds++] = (int)v;
    return 0;
}

static int parse_one(int argc, char **argv, int *i, unsigned accepted, struct opts *o, tf_err *err)
{
    const char *a = argv[*i], *v;
    if (is_opt(a, "--config")) {
        if (!(v = value_of(argc, argv, i, "--config", err)))
            return -1;
        o->req.config = v;
    } else if (is_opt(a, "--root")) {
        if (!(v = value_of(argc, argv, i, "--root", err)))
            return -1;
        o->req.root = v;
    } else if (is_opt(a, "--allow")) {
        if (!(v = value_of(argc, argv, i, "--allow", err)))
            return -1;
        return push_str(&o->req.allow, &o->req.nallow, &o->allow_cap, v, err);
    } else if ((accepted & (OPT_RUN | OPT_EXPLAIN)) && is_opt(a, "--output")) {
        if (!(v = value_of(argc, argv, i, "--output", err)))
            return -1;
        return push_str(&o->req.outputs, &o->req.noutputs, &o->outputs_cap, v, err);
    } else if ((accepted & OPT_RUN) && !strcmp(a, "--keep-tmp")) {
        o->keep_tmp = true;
    } else if ((accepted & OPT_RUN) && is_opt(a, "--keep-fd")) {
        if (!(v = value_of(argc, argv, i, "--keep-fd", err)))
            return -1;
        return parse_keep_fd(v, o, err);
    } else if ((accepted & OPT_RUN) && is_opt(a, "--backend")) {
        if (!(v = value_of(argc, argv, i, "--backend", err)))
            return -1;
        if (strcmp(v, "landlock") && strcmp(v, "preload") && strcmp(v, "none"))
            return tf_errf(err, "unknown backend \"%s\" (choose landlock, preload or none)", v);
        o->backend = v;
    } else if ((accepted & OPT_RUN) && is_opt(a, "--require")) {
        if (!(v = value_of(argc, argv, i, "--require", err)))
            return -1;
        if (strcmp(v, "namespace"))
            return tf_errf(err,
                           "--require: unknown layer \"%s\" (the one that can be required: "
                           "namespace)",
                           v);
        o->require_namespace = true;
    } else if ((accepted & OPT_RUN) && !strcmp(a, "--allow-violations")) {
        o->allow_violations = true;
    } else if ((accepted & OPT_RUN) && is_opt(a, "--test-env")) {
        if (!(v = value_of(argc, argv, i, "--test-env", err)))
            return -1;
        if (!valid_env_name(v))
            return tf_errf(err, "--test-env needs a variable name (letters, digits, _), not \"%s\"",
                           v);
        o->test_env = v;
    } else if ((accepted & OPT_RUN) && is_opt(a, "--report")) {
        if (!(v = value_of(argc, argv, i, "--report", err)))
            return -1;
        o->report = v;
    } else if ((accepted & OPT_RUN) && is_opt(a, "--junit")) {
        if (!(v = value_of(argc, argv, i, "--junit", err)))
            return -1;
        o->junit = v;
    } else if ((accepted & OPT_RUN) && is_opt(a, "--format")) {
        if (!(v = value_of(argc, argv, i, "--format", err)))
            return -1;
        if (strcmp(v, "text") && strcmp(v, "github"))
            return tf_errf(err, "unknown format \"%s\" (choose text or github)", v);
        o->github = !strcmp(v, "github");
    } else if ((accepted & OPT_RUN) && !strcmp(a, "--verify")) {
        o->verify = true;
    } else if ((accepted & OPT_RUN) && !strcmp(a, "--allow-hazards")) {
        o->allow_hazards = true;
    } else if ((accepted & OPT_RUN) && !strcmp(a, "--dry-run")) {
        o->dry_run = true;
    } else if ((accepted & (OPT_RUN | OPT_CLEAN)) && is_opt(a, "--retain")) {
        if (!(v = value_of(argc, argv, i, "--retain", err)) || parse_retain(v, &o->retain, err))
            return -1;
    } else if ((accepted & OPT_CLEAN) && !strcmp(a, "--all")) {
        o->all = true;
    } else if ((accepted & OPT_INIT) && !strcmp(a, "--dry-run")) {
        o->dry_run = true;
    } else {
        return tf_errf(err, "unknown option %s; see 'testfence %s --help'", a, argv[0]);
    }
    return 0;
}

int opts_parse(int argc, char **argv, unsigned accepted, const char *help, struct opts *o,
               tf_err *err)
{
    memset(o, 0, sizeof *o);
    o->backend = "landlock";
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (a[0] != '-' || !a[1])
            break;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(help, stdout);
            return 1;
        }
        if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
            printf("testfence %s\n", TESTFENCE_VERSION);
            return 1;
        }
        if (parse_one(argc, argv, &i, accepted, o, err) < 0)
            return -1;
    }
    o->argi = i;
    return 0;
}

void opts_free(struct opts *o)
{
    free(o->req.allow);
    free(o->req.outputs);
    free(o->keep_fds);
    o->req.allow = NULL;
    o->req.outputs = NULL;
    o->keep_fds = NULL;
}
