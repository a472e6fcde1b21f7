#include "opts.h"

#include "audit/audit_rules.h"
#include "base/vec.h"
#include "core/platform.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One option: its long name, its short letter (0: none), the name of its value in the help
 * (NULL: a switch), the commands that take it, how it is applied and its help, in lines of
 * at most 62 columns (printed from column 18). */
struct opt {
    const char *name;
    char letter;
    const char *value;
    unsigned cmds;
    int (*apply)(struct opts *o, const char *value, tf_err *err);
    const char *help;
};

#define CMD_ALL                                                                                    \
    (CMD_RUN | CMD_DOCTOR | CMD_EXPLAIN | CMD_INIT | CMD_CLEAN | CMD_AUDIT | CMD_SUGGEST)
#define CMD_POLICY (CMD_RUN | CMD_DOCTOR | CMD_EXPLAIN) /* a writable set to widen */

/* ---- applying a value ------------------------------------------------------ */

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

/* A whole number from LO to HI, all of S (no sign, no trailing text, no overflow). */
static bool whole_number(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || s[0] == '+' || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* An environment variable name the shim can look up: [A-Za-z_][A-Za-z0-9_]*, short. */
static bool valid_env_name(const char *v)
{
    static const char ok[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_";
    size_t n = strlen(v);
    return n > 0 && n < 100 && strspn(v, ok) == n && !(v[0] >= '0' && v[0] <= '9');
}

static int set_root(struct opts *o, const char *v, tf_err *err)
{
    (void)err;
    o->req.root = v;
    return 0;
}

static int set_config(struct opts *o, const char *v, tf_err *err)
{
    (void)err;
    o->req.config = v;
    return 0;
}

static int add_allow(struct opts *o, const char *v, tf_err *err)
{
    return push_str(&o->req.allow, &o->req.nallow, &o->allow_cap, v, err);
}

static int add_output(struct opts *o, const char *v, tf_err *err)
{
    return push_str(&o->req.outputs, &o->req.noutputs, &o->outputs_cap, v, err);
}

static int set_backend(struct opts *o, const char *v, tf_err *err)
{
    if (session_backend_of(v) < 0)
        return tf_errf(err, "unknown backend \"%s\" (choose landlock, preload or none)", v);
    o->backend = v;
    return 0;
}

static int set_allow_violations(struct opts *o, const char *v, tf_err *err)
{
    (void)v, (void)err;
    o->allow_violations = true;
    return 0;
}

static int set_require(struct opts *o, const char *v, tf_err *err)
{
    if (strcmp(v, "namespace"))
        return tf_errf(
            err, "--require: unknown layer \"%s\" (the one that can be required: namespace)", v);
    o->require_namespace = true;
    return 0;
}

static int set_update_snapshots(struct opts *o, const char *v, tf_err *err)
{
    (void)v, (void)err;
    o->update_snapshots = true;
    return 0;
}

static int set_test_env(struct opts *o, const char *v, tf_err *err)
{
    if (!valid_env_name(v))
        return tf_errf(err, "--test-env needs a variable name (letters, digits, _), not \"%s\"", v);
    o->test_env = v;
    return 0;
}

static int set_report(struct opts *o, const char *v, tf_err *err)
{
    (void)err;
    o->report = v;
    return 0;
}

static int set_junit(struct opts *o, const char *v, tf_err *err)
{
    (void)err;
    o->junit = v;
    return 0;
}

static int set_sarif(struct opts *o, const char *v, tf_err *err)
{
    (void)err;
    o->sarif = v;
    return 0;
}

static int set_run_format(struct opts *o, const char *v, tf_err *err)
{
    if (strcmp(v, "text") && strcmp(v, "github"))
        return tf_errf(err, "unknown format \"%s\" (choose text or github)", v);
    o->github = !strcmp(v, "github");
    return 0;
}

static int set_retain(struct opts *o, const char *v, tf_err *err)
{
    long n;
    if (!whole_number(v, 1, 10000, &n))
        return tf_errf(err, "--retain needs a whole number from 1 to 10000, not \"%s\"", v);
    o->retain = (unsigned)n;
    return 0;
}

static int set_verify(struct opts *o, const char *v, tf_err *err)
{
    (void)v, (void)err;
    o->verify = true;
    return 0;
}

static int set_allow_hazards(struct opts *o, const char *v, tf_err *err)
{
    (void)v, (void)err;
    o->allow_hazards = true;
    return 0;
}

static int set_keep_tmp(struct opts *o, const char *v, tf_err *err)
{
    (void)v, (void)err;
    o->keep_tmp = KEEP_TMP_ALWAYS;
    return 0;
}

static int set_no_keep_tmp(struct opts *o, const char *v, tf_err *err)
{
    (void)v, (void)err;
    o->keep_tmp = KEEP_TMP_NEVER;
    return 0;
}

static int add_keep_fd(struct opts *o, const char *v, tf_err *err)
{
    long n;
    if (!whole_number(v, 3, 1 << 20, &n))
        return tf_errf(err, "--keep-fd needs a descriptor number from 3 up, not \"%s\"", v);
    int *nv = vec_grow(o->keep_fds, &o->keep_fds_cap, o->nkeep_fds, sizeof *nv);
    if (!nv)
        return tf_errf(err, "out of memory");
    o->keep_fds = nv;
    nv[o->nkeep_fds++] = (int)n;
    return 0;
}

static int set_dry_run(struct opts *o, const char *v, tf_err *err)
{
    (void)v, (void)err;
    o->dry_run = true;
    return 0;
}

static int set_all(struct opts *o, const char *v, tf_err *err)
{
    (void)v, (void)err;
    o->all = true;
    return 0;
}

/* ---- suggest's ------------------------------------------------------------ */

static int set_suggest_run(struct opts *o, const char *v, tf_err *err)
{
    (void)err;
    o->suggest_run = v;
    return 0;
}

static int set_apply(struct opts *o, const char *v, tf_err *err)
{
    (void)v, (void)err;
    o->apply = true;
    return 0;
}

/* ---- audit's -------------------------------------------------------------- */

static int set_strict(struct opts *o, const char *v, tf_err *err)
{
    (void)v, (void)err;
    o->audit.strict = true;
    return 0;
}

static int set_exit_zero(struct opts *o, const char *v, tf_err *err)
{
    (void)v, (void)err;
    o->audit.exit_zero = true;
    return 0;
}

static int set_statistics(struct opts *o, const char *v, tf_err *err)
{
    (void)v, (void)err;
    o->audit.statistics = true;
    return 0;
}

static int set_output_file(struct opts *o, const char *v, tf_err *err)
{
    if (!v[0])
        return tf_errf(err, "--output-file takes a file name");
    o->audit.output_file = v;
    return 0;
}

static int set_audit_format(struct opts *o, const char *v, tf_err *err)
{
    if (!tf_audit_format_parse(v, &o->audit.format))
        return tf_errf(
            err, "--format must be text, json, sarif, github, gitlab or junit, not \"%s\"", v);
    return 0;
}

static int parse_codes(const char *opt, const char *list, unsigned *mask, tf_err *err)
{
    char bad[64];
    if (tf_rule_parse_list(list, mask, bad, sizeof bad) && *mask)
        return 0;
    return tf_errf(err, "%s: unknown rule code '%s' (see --help)", opt, *mask ? bad : list);
}

static int set_select(struct opts *o, const char *v, tf_err *err)
{
    o->audit.select_given = true;
    return parse_codes("--select", v, &o->audit.select, err);
}

static int set_ignore(struct opts *o, const char *v, tf_err *err)
{
    return parse_codes("--ignore", v, &o->audit.ignore, err);
}

static int set_cwd(struct opts *o, const char *v, tf_err *err)
{
    if (strcmp(v, "root") && strcmp(v, "temporary"))
        return tf_errf(err, "--cwd must be root or temporary, not \"%s\"", v);
    o->audit.cwd = v[0] == 'r' ? TF_CWD_ROOT : TF_CWD_TEMPORARY;
    o->audit.cwd_given = true;
    return 0;
}

static int set_no_cache(struct opts *o, const char *v, tf_err *err)
{
    (void)v, (void)err;
    o->audit.no_cache = true;
    return 0;
}

static int set_cache_dir(struct opts *o, const char *v, tf_err *err)
{
    if (!platform_is_absolute(v))
        return tf_errf(err, "--cache-dir takes an absolute path, not \"%s\"", v);
    o->audit.cache_dir = v;
    return 0;
}

static int add_protect(struct opts *o, const char *v, tf_err *err)
{
    if (!v[0] || strchr(v, '/'))
        return tf_errf(err, "--protect takes a file name at the root, not \"%s\"", v);
    return opts_protect_add(o, v) < 0 ? tf_errf(err, "out of memory") : 0;
}

static int set_explain(struct opts *o, const char *v, tf_err *err)
{
    (void)err;
    o->audit.explain = v;
    return 0;
}

static int set_jobs(struct opts *o, const char *v, tf_err *err)
{
    long n; /* the range is checked before the cast: 2^32+1 must not become 1 */
    if (!whole_number(v, 1, 64, &n))
        return tf_errf(err, "--jobs takes a number from 1 to 64, not \"%s\"", v);
    o->audit.jobs = (int)n;
    return 0;
}

/* --help and --version are answered where they are met (opts_parse). */
static int answered(struct opts *o, const char *v, tf_err *err)
{
    (void)o, (void)v, (void)err;
    return 1;
}

/* ---- the table ------------------------------------------------------------ */

static const struct opt table[] = {
    {"--root", 0, "DIR", CMD_ALL, set_root,
     "project root (default: the nearest directory upward holding\n"
     "testfence.toml, pyproject.toml or .git)"},
    {"--config", 0, "FILE", CMD_ALL & ~CMD_INIT, set_config,
     "read the configuration from FILE (default: testfence.toml,\n"
     "else [tool.testfence] in pyproject.toml; never an env var)"},
    {"--allow", 0, "PATH", CMD_POLICY, add_allow,
     "also allow writes beneath PATH; repeatable; PATH must exist\n"
     "and may be outside the root"},
    {"--output", 0, "PATH", CMD_RUN | CMD_EXPLAIN, add_output,
     "a file outside the writable set the run may write (created if\n"
     "missing), or with a trailing '/' a directory; repeatable; like\n"
     "the config's outputs (a CI report: --output report.xml)"},
    {"--backend", 0, "landlock|preload|none", CMD_RUN, set_backend,
     "how to fence: landlock (default); preload, for kernels without\n"
     "Landlock: the LD_PRELOAD shim refuses the writes itself\n"
     "(WEAKER: static binaries, raw syscalls and cleared environments\n"
     "escape it); none: run unfenced, with a warning"},
    {"--allow-violations", 0, NULL, CMD_RUN, set_allow_violations,
     "exit with the command's status even when writes were\n"
     "blocked (default: 120 if the command exited 0)"},
    {"--require", 0, "namespace", CMD_RUN, set_require,
     "refuse to run (125) rather than fall back to the seccomp guard\n"
     "where the namespace layer cannot be had (as the config's\n"
     "require = [\"namespace\"])"},
    {"--update-snapshots", 0, NULL, CMD_RUN, set_update_snapshots,
     "this run may rewrite your test files on purpose (syrupy\n"
     "--snapshot-update, Jest -u): protect = \"none\" for this run"},
    {"--test-env", 0, "NAME", CMD_RUN, set_test_env,
     "the variable naming the running test in the violation report\n"
     "(default: the config's [report] test_env, PYTEST_CURRENT_TEST)"},
    {"--report", 0, "FILE", CMD_RUN, set_report,
     "also write the JSON report to FILE (its directory must exist);\n"
     "testfence writes it after the command, never through a\n"
     "symlink inside the writable set"},
    {"--junit", 0, "FILE", CMD_RUN, set_junit,
     "write a JUnit XML report to FILE: one failing testcase per\n"
     "test whose writes were blocked, its classname and name as\n"
     "pytest's junitxml makes them, with its file and line"},
    {"--sarif", 0, "FILE", CMD_RUN, set_sarif,
     "write the blocked writes as SARIF 2.1.0 to FILE, at the lines\n"
     "that made them, under the audit's rule codes, for code\n"
     "scanning (its directory must exist)"},
    {"--format", 0, "text|github", CMD_RUN, set_run_format,
     "the summary as text (default), or also one ::error annotation\n"
     "per blocked write for GitHub Actions, at its file and line"},
    {"--retain", 0, "N", CMD_RUN, set_retain,
     "run workspaces to keep, counting this one (default: the\n"
     "config's retain, 3)"},
    {"--verify", 0, NULL, CMD_RUN, set_verify,
     "fingerprint every file under the root outside the writable\n"
     "set before and after, and report any change (the ground truth\n"
     "for what the kernel cannot see); a change counts as a violation"},
    {"--allow-hazards", 0, NULL, CMD_RUN, set_allow_hazards,
     "run even when the writable set holds a hard link to a file\n"
     "outside it, or a symlink leading out (refused by default)"},
    {"--keep-tmp", 0, NULL, CMD_RUN, set_keep_tmp,
     "keep the run's private temp dir (TMPDIR; pytest's tmp_path\n"
     "too) instead of removing it at the end (by default it is\n"
     "kept only when the run failed: the newest 3 such)"},
    {"--no-keep-tmp", 0, NULL, CMD_RUN, set_no_keep_tmp,
     "remove the run's temp dir at the end, even when it failed"},
    {"--keep-fd", 0, "N", CMD_RUN, add_keep_fd,
     "let the command inherit descriptor N (besides 0, 1, 2 and\n"
     "make's jobserver, which MAKEFLAGS names and is kept anyway)"},
    {"--dry-run", 0, NULL, CMD_RUN, set_dry_run,
     "print the plan (root, writable set, workspace, environment)\n"
     "and exit without running or creating anything"},
    {"--dry-run", 0, NULL, CMD_INIT, set_dry_run,
     "print what would be written instead of writing it"},
    {"--retain", 0, "N", CMD_CLEAN, set_retain,
     "keep the newest N run workspaces (default: the config's)"},
    {"--all", 0, NULL, CMD_CLEAN, set_all, "remove every run workspace"},
    {"--run", 0, "ID", CMD_SUGGEST, set_suggest_run,
     "read run ID's report.json (in the artifacts dir) instead of\n"
     "the newest run's"},
    {"--apply", 0, NULL, CMD_SUGGEST, set_apply,
     "make the config change (declared outputs, [env]) in the\n"
     "config file; the rest of it kept byte for byte"},
    {"--exit-zero", 0, NULL, CMD_AUDIT, set_exit_zero,
     "exit 0 even when there are findings (default: 1, as ruff)"},
    {"--strict", 0, NULL, CMD_AUDIT, set_strict,
     "accepted for compatibility: exiting 1 on findings is the\n"
     "default now"},
    {"--format", 0, "text|json|sarif|github|gitlab|junit", CMD_AUDIT, set_audit_format,
     "text (default), json, sarif (2.1.0), github (annotations),\n"
     "gitlab (Code Quality) or junit (XML)"},
    {"--output-file", 'o', "FILE", CMD_AUDIT, set_output_file,
     "write the findings to FILE instead of stdout, whole or not at\n"
     "all (refused: a .py file, a protected name at the root)"},
    {"--statistics", 0, NULL, CMD_AUDIT, set_statistics,
     "print the number of findings of each rule instead of the\n"
     "findings (text or json)"},
    {"--select", 0, "CODES", CMD_AUDIT, set_select,
     "only these rules (comma list; prefixes like TF1 allowed); the\n"
     "style rules TF105 and TF201 run only when selected"},
    {"--ignore", 0, "CODES", CMD_AUDIT, set_ignore, "never these rules"},
    {"--cwd", 0, "root|temporary", CMD_AUDIT, set_cwd,
     "the working directory the test runner gives tests: root (the\n"
     "default: pytest, unittest) or temporary (CPython's regrtest);\n"
     "[audit] cwd in the config says the same"},
    {"--no-cache", 0, NULL, CMD_AUDIT, set_no_cache,
     "scan every file (default: reuse facts cached by content hash\n"
     "in $XDG_CACHE_HOME/testfence/audit or ~/.cache/testfence/audit)"},
    {"--cache-dir", 0, "DIR", CMD_AUDIT, set_cache_dir,
     "keep the cache in DIR (never inside the project)"},
    {"--protect", 0, "NAME", CMD_AUDIT, add_protect, "also protect root file NAME (repeatable)"},
    {"--explain", 0, "CODE", CMD_AUDIT, set_explain,
     "describe a rule (or all), with an example and the fix"},
    {"--jobs", 'j', "N", CMD_AUDIT, set_jobs,
     "files scanned in parallel (default: CPUs, at most 8)"},
    {"--help", 'h', NULL, CMD_ALL, answered, "print this help"},
    {"--version", 'V', NULL, CMD_ALL, answered, "print the version"},
};

#define NOPTS (sizeof table / sizeof table[0])

/* ---- help ----------------------------------------------------------------- */

/* "  -j, --jobs N" then the help, from column 18 (on the next line when the forms are
 * longer), each further line indented to it. */
static void print_opt(FILE *f, const struct opt *t)
{
    int n = t->letter ? fprintf(f, "  -%c, ", t->letter) : fprintf(f, "  ");
    n += fprintf(f, "%s%s%s", t->name, t->value ? " " : "", t->value ? t->value : "");
    if (n > 16)
        fputs("\n", f);
    fprintf(f, "%*s", n > 16 ? 18 : 18 - n, "");
    for (const char *h = t->help; *h; h++) {
        fputc(*h, f);
        if (*h == '\n')
            fprintf(f, "%18s", "");
    }
    fputc('\n', f);
}

void opts_print_help(FILE *f, const struct opts_command *command)
{
    fputs(command->about, f);
    fputs("options:\n", f);
    for (size_t i = 0; i < NOPTS; i++)
        if (table[i].cmds & command->cmd)
            print_opt(f, &table[i]);
    fputs("\n", f);
    fputs(command->after, f);
}

/* ---- parsing -------------------------------------------------------------- */

/* The row for ARG ("--name", "--name=V", "-x", "-xV") that COMMAND takes; *VALUE is what
 * followed "=" or the letter (NULL: nothing). NULL: no such option for COMMAND; *KNOWN says
 * whether another command takes it. */
static const struct opt *find(const char *arg, unsigned cmd, const char **value, bool *known)
{
    *value = NULL;
    *known = false;
    for (size_t i = 0; i < NOPTS; i++) {
        const struct opt *t = &table[i];
        size_t n = strlen(t->name);
        const char *rest = NULL;
        if (!strncmp(arg, t->name, n) && (arg[n] == '\0' || arg[n] == '='))
            rest = arg[n] == '=' ? arg + n + 1 : NULL;
        else if (t->letter && arg[0] == '-' && arg[1] == t->letter && (t->value || !arg[2]))
            rest = arg[2] ? arg + 2 : NULL; /* -j4 or -j 4; a switch's letter stands alone */
        else
            continue;
        *known = true;
        if (t->cmds & cmd) {
            *value = rest;
            return t;
        }
    }
    return NULL;
}

/* Apply the option at ARGV[*I]. Returns 0, 1 (--help/--version answered) or -1. */
static int parse_one(int argc, char **argv, int *i, struct opts *o, tf_err *err)
{
    const char *a = argv[*i], *v, *name = o->command->name;
    bool known;
    const struct opt *t = find(a, o->command->cmd, &v, &known);
    if (!t && known)
        return tf_errf(err, "%s is not an option of '%s'; see 'testfence %s --help'", a, name,
                       name);
    if (!t)
        return tf_errf(err, "unknown option %s; see 'testfence %s --help'", a, name);
    if (!t->value && v)
        return tf_errf(err, "%s takes no value", t->name);
    if (t->value && !v) {
        if (*i + 1 >= argc)
            return tf_errf(err, "%s needs a value (%s)", t->name, t->value);
        v = argv[++*i];
    }
    if (t->apply == answered) {
        if (!strcmp(t->name, "--help"))
            opts_print_help(stdout, o->command);
        else
            printf("testfence %s\n", TESTFENCE_VERSION);
        return 1;
    }
    return t->apply(o, v ? v : "", err) < 0 ? -1 : 0;
}

static int keep_operand(struct opts *o, char *arg, tf_err *err)
{
    char **nv = vec_grow(o->own_args, &o->own_cap, (size_t)o->nargs + 1, sizeof *nv);
    if (!nv)
        return tf_errf(err, "out of memory");
    o->own_args = nv;
    nv[o->nargs++] = arg;
    nv[o->nargs] = NULL;
    return 0;
}

/* The operands from ARGV[I] on, when the options ended there. */
static int rest_operands(int argc, char **argv, int i, struct opts *o, tf_err *err)
{
    if (!o->command->permute) {
        o->args = argv + i;
        o->nargs = argc - i;
        return 0;
    }
    for (; i < argc; i++)
        if (keep_operand(o, argv[i], err) < 0)
            return -1;
    return 0;
}

static int check_operands(const struct opts *o, tf_err *err)
{
    const struct opts_command *c = o->command;
    if (c->operands == OPERANDS_NONE && o->nargs > 0)
        return tf_errf(err, "unexpected argument \"%s\"; see 'testfence %s --help'", o->args[0],
                       c->name);
    if (c->operands == OPERANDS_SOME && o->nargs == 0)
        return tf_errf(err, "%s", c->missing);
    return 0;
}

static void defaults(struct opts *o, const struct opts_command *command)
{
    memset(o, 0, sizeof *o);
    o->command = command;
    o->backend = "landlock";
    o->audit.format = TF_AUDIT_TEXT;
    o->audit.select = tf_rule_default_mask();
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o->audit.jobs = cpus < 1 ? 1 : cpus > 8 ? 8 : (int)cpus;
}

int opts_parse(int argc, char **argv, const struct opts_command *command, struct opts *o,
               tf_err *err)
{
    defaults(o, command);
    int i = 1, rc = 0;
    for (; i < argc && rc == 0; i++) {
        char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (a[0] == '-' && a[1])
            rc = parse_one(argc, argv, &i, o, err);
        else if (command->permute)
            rc = keep_operand(o, a, err);
        else
            break;
    }
    if (rc != 0)
        return rc;
    if (rest_operands(argc, argv, i, o, err) < 0)
        return -1;
    if (o->own_args)
        o->args = o->own_args;
    return check_operands(o, err);
}

int opts_protect_add(struct opts *o, const char *name)
{
    struct opts_audit *a = &o->audit;
    char **nv = vec_grow(a->protect, &a->cap_protect, a->n_protect, sizeof *nv);
    if (!nv)
        return -1;
    a->protect = nv;
    if (!(a->protect[a->n_protect] = strdup(name)))
        return -1;
    a->n_protect++;
    return 0;
}

/* The retention count: --retain when given, else the config's. */
unsigned opts_retain(const struct opts *o, const struct config *cfg)
{
    return o->retain ? o->retain : cfg->retain;
}

void opts_free(struct opts *o)
{
    free(o->req.allow);
    free(o->req.outputs);
    free(o->keep_fds);
    for (size_t i = 0; i < o->audit.n_protect; i++)
        free(o->audit.protect[i]);
    free(o->audit.protect);
    free(o->own_args);
    memset(o, 0, sizeof *o);
}
