#include "pyargs.h"

#include "base/vec.h"
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static const char *env_get(char *const *envp, const char *name)
{
    size_t len = strlen(name);
    for (char *const *e = envp; e && *e; e++)
        if (!strncmp(*e, name, len) && (*e)[len] == '=')
            return *e + len + 1;
    return NULL;
}

/* python, python3, python3.12: an interpreter that may run `-m pytest`. */
static bool is_python(const char *b)
{
    if (strncmp(b, "python", 6) != 0)
        return false;
    return strspn(b + 6, "0123456789.") == strlen(b + 6);
}

static bool is_pytest(const char *b)
{
    return !strcmp(b, "pytest") || !strcmp(b, "py.test") || !strcmp(b, "pytest-3");
}

/* After the interpreter at ARGV[I]: the index of pytest's first argument when the options run
 * `-m pytest` (flags may be clustered, "-Bm pytest"; -W and -X take a value), else 0. */
static size_t python_module(char *const *argv, size_t i)
{
    for (i++; argv[i]; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || !a[1] || !strcmp(a, "--"))
            return 0; /* a script, stdin, or a script after "--" */
        if (a[1] == '-') {
            i += !strcmp(a, "--check-hash-based-pycs");
            continue;
        }
        for (size_t j = 1; a[j]; j++) {
            if (a[j] == 'c')
                return 0;
            if (a[j] == 'm') {
                const char *mod = a[j + 1] ? a + j + 1 : argv[++i];
                bool ok = mod && (!strcmp(mod, "pytest") || !strcmp(mod, "py.test"));
                return ok ? i + 1 : 0;
            }
            if (a[j] == 'W' || a[j] == 'X') {
                i += !a[j + 1]; /* the value is the next argument */
                break;
            }
        }
        if (!argv[i])
            return 0;
    }
    return 0;
}

/* env's options and assignments from ARGV[I] (the word after "env"): the command's index, or
 * 0 for an option not understood here (-C DIR, -S: the check is then left out). */
static size_t skip_env(char *const *argv, size_t i, const char **addopts)
{
    for (; argv[i]; i++) {
        const char *a = argv[i], *eq = strchr(a, '=');
        if (!strcmp(a, "-i") || !strcmp(a, "--ignore-environment") || !strcmp(a, "-"))
            *addopts = NULL;
        else if (!strcmp(a, "-u") || !strcmp(a, "--unset")) {
            if (!argv[++i])
                return 0;
            if (!strcmp(argv[i], "PYTEST_ADDOPTS"))
                *addopts = NULL;
        } else if (!strcmp(a, "-uPYTEST_ADDOPTS") || !strcmp(a, "--unset=PYTEST_ADDOPTS"))
            *addopts = NULL;
        else if (!strncmp(a, "-u", 2) || !strncmp(a, "--unset=", 8))
            continue;
        else if (!strcmp(a, "--"))
            return argv[i + 1] ? i + 1 : 0;
        else if (a[0] == '-')
            return 0;
        else if (eq && eq != a) {
            if (eq - a == 14 && !strncmp(a, "PYTEST_ADDOPTS", 14))
                *addopts = eq + 1;
        } else
            return i;
    }
    return 0;
}

/* `uv run [-FLAGS] CMD`, `poetry run CMD`: CMD's index. An option with a separate value
 * (`--with pytest-cov`) makes the value look like the command: not pytest, no check. */
static size_t skip_runner(char *const *argv, size_t i)
{
    for (i += 2; argv[i] && argv[i][0] == '-'; i++)
        ;
    return argv[i] ? i : 0;
}

size_t pyargs_command(char *const *argv, char *const *envp, const char **addopts)
{
    *addopts = env_get(envp, "PYTEST_ADDOPTS");
    size_t i = 0;
    while (argv && argv[i]) {
        const char *b = base_name(argv[i]);
        if (is_pytest(b))
            return i + 1;
        if (is_python(b))
            return python_module(argv, i);
        if (!strcmp(b, "env"))
            i = skip_env(argv, i + 1, addopts);
        else if ((!strcmp(b, "uv") || !strcmp(b, "poetry")) && argv[i + 1] &&
                 !strcmp(argv[i + 1], "run"))
            i = skip_runner(argv, i);
        else
            return 0;
        if (i == 0)
            return 0;
    }
    return 0;
}

/* One word being built by pyargs_split. */
struct word {
    char *buf;
    size_t len, cap;
};

static int put_char(struct word *w, char c)
{
    char *b = vec_grow(w->buf, &w->cap, w->len + 1, 1);
    if (!b)
        return errno = ENOMEM, -1;
    w->buf = b;
    b[w->len++] = c;
    b[w->len] = '\0';
    return 0;
}

static int end_word(struct word *w, char ***words, size_t *n, size_t *cap)
{
    char **v = vec_grow(*words, cap, *n + 1, sizeof *v);
    if (!v)
        return errno = ENOMEM, -1;
    *words = v;
    v[(*n)++] = w->buf ? w->buf : strdup("");
    v[*n] = NULL;
    w->buf = NULL;
    w->len = w->cap = 0;
    return v[*n - 1] ? 0 : (errno = ENOMEM, -1);
}

/* The next character of a word at *S, shlex's way: quotes and backslashes taken off (inside
 * "...", a backslash escapes only '"' and '\'). 1 one was added to W, 0 a quote pair (which
 * still makes a word, "" included), -1 malformed (EINVAL) or out of memory. */
static int lex(const char **s, struct word *w)
{
    const char *p = *s;
    if (*p == '\'' || *p == '"') {
        char q = *p++;
        for (; *p && *p != q; p++) {
            if (q == '"' && *p == '\\' && (p[1] == '"' || p[1] == '\\'))
                p++;
            if (put_char(w, *p) < 0)
                return -1;
        }
        if (!*p)
            return errno = EINVAL, -1;
        *s = p + 1;
        return 0;
    }
    if (*p == '\\' && !*++p)
        return errno = EINVAL, -1;
    *s = p + 1;
    return put_char(w, *p) < 0 ? -1 : 1;
}

int pyargs_split(const char *s, char ***words, size_t *n)
{
    size_t cap = 0;
    struct word w = {0};
    *words = NULL;
    *n = 0;
    while (*s) {
        s += strspn(s, " \t\r\n");
        if (!*s)
            break;
        while (*s && !strchr(" \t\r\n", *s))
            if (lex(&s, &w) < 0)
                goto fail;
        if (end_word(&w, words, n, &cap) < 0)
            goto fail;
    }
    if (*words || (*words = calloc(1, sizeof **words)))
        return 0; /* the empty list too: NULL-terminated */
    errno = ENOMEM;
fail:
    free(w.buf);
    pyargs_free_words(*words, *n);
    *words = NULL;
    *n = 0;
    return -1;
}

void pyargs_free_words(char **words, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(words[i]);
    free(words);
}

/* pytest's (and its report plugins') options naming a file they write at the end. */
static const struct {
    const char *name;
    int slot;
} file_options[] = {
    {"--junitxml", PYARGS_JUNIT},
    {"--junit-xml", PYARGS_JUNIT},
    {"--html", PYARGS_HTML},
    {"--report-log", PYARGS_REPORT_LOG},
    {"--resultlog", PYARGS_RESULTLOG},
    {"--result-log", PYARGS_RESULTLOG},
    {"--json-report-file", PYARGS_JSON_REPORT},
};

/* pytest-cov's reports that write files, and where each goes by default (annotate writes
 * beside the sources unless given a directory). */
static const struct {
    const char *kind, *flag, *dflt;
    int slot;
    bool is_dir;
} cov_kinds[] = {
    {"xml", "--cov-report=xml", "coverage.xml", PYARGS_COV_XML, false},
    {"html", "--cov-report=html", "htmlcov/", PYARGS_COV_HTML, true},
    {"json", "--cov-report=json", "coverage.json", PYARGS_COV_JSON, false},
    {"lcov", "--cov-report=lcov", "coverage.lcov", PYARGS_COV_LCOV, false},
    {"markdown", "--cov-report=markdown", "coverage.md", PYARGS_COV_MARKDOWN, false},
    {"markdown-append", "--cov-report=markdown-append", "coverage.md", PYARGS_COV_MARKDOWN_APPEND,
     false},
    {"annotate", "--cov-report=annotate", NULL, PYARGS_COV_ANNOTATE, true},
};

/* What the scan has seen; the last option for a slot wins, as argparse stores it. */
struct scan {
    const char *path[PYARGS_NSLOTS];
    const char *flag[PYARGS_NSLOTS];
    bool set[PYARGS_NSLOTS];
    bool cov, no_cov, json_report;
};

/* --cov-report=KIND[:DEST]: DEST, or the kind's default when DEST is empty or missing. */
static void cov_report(struct scan *sc, const char *v)
{
    const char *colon = strchr(v, ':');
    size_t klen = colon ? (size_t)(colon - v) : strlen(v);
    for (size_t k = 0; k < sizeof cov_kinds / sizeof cov_kinds[0]; k++) {
        if (strlen(cov_kinds[k].kind) != klen || strncmp(v, cov_kinds[k].kind, klen) != 0)
            continue;
        int slot = cov_kinds[k].slot;
        sc->set[slot] = true;
        sc->flag[slot] = cov_kinds[k].flag;
        sc->path[slot] = colon && colon[1] ? colon + 1 : cov_kinds[k].dflt;
    }
}

/* The option at ARGS[*I]; *I moves past a value given as the next argument. */
static void scan_one(struct scan *sc, char *const *args, size_t *i)
{
    const char *a = args[*i], *eq = strchr(a, '=');
    size_t len = eq ? (size_t)(eq - a) : strlen(a);
    const char *value = eq ? eq + 1 : NULL;
    if (!strcmp(a, "--cov") || !strncmp(a, "--cov=", 6))
        sc->cov = true; /* its value, if separate, is a positional to this scan */
    else if (!strcmp(a, "--cov-reset"))
        sc->cov = false;
    else if (!strcmp(a, "--no-cov"))
        sc->no_cov = true;
    else if (!strcmp(a, "--json-report"))
        sc->json_report = true;
    else if (len == 12 && !strncmp(a, "--cov-report", 12)) {
        if (!value && args[*i + 1])
            value = args[++*i];
        if (value)
            cov_report(sc, value);
    }
    for (size_t k = 0; k < sizeof file_options / sizeof file_options[0]; k++) {
        if (strlen(file_options[k].name) != len || strncmp(a, file_options[k].name, len) != 0)
            continue;
        if (!value && args[*i + 1])
            value = args[++*i];
        int slot = file_options[k].slot;
        sc->set[slot] = value != NULL;
        sc->flag[slot] = file_options[k].name;
        sc->path[slot] = value;
    }
}

static void scan_args(struct scan *sc, char *const *args, bool *ended)
{
    for (size_t i = 0; args && args[i] && !*ended; i++) {
        if (!strcmp(args[i], "--"))
            *ended = true; /* the rest are positional */
        else if (!strncmp(args[i], "--", 2))
            scan_one(sc, args, &i);
    }
}

/* Keep the slots that name a file to write, given what switches them on. */
static void collect(const struct scan *sc, struct pyargs *a)
{
    bool cov = sc->cov && !sc->no_cov;
    for (int s = 0; s < PYARGS_NSLOTS; s++) {
        const char *p = sc->path[s];
        if (!sc->set[s] || !p || !*p || (s >= PYARGS_COV_XML && !cov))
            continue;
        if (s == PYARGS_JSON_REPORT && (!sc->json_report || !strcmp(p, "none")))
            continue;
        bool dir = s == PYARGS_COV_HTML || s == PYARGS_COV_ANNOTATE;
        a->out[a->n++] = (struct pyargs_output){.flag = sc->flag[s], .path = p, .is_dir = dir};
    }
    if (sc->json_report && !sc->set[PYARGS_JSON_REPORT]) /* pytest-json-report's default */
        a->out[a->n++] = (struct pyargs_output){.flag = "--json-report", .path = ".report.json"};
}

int pyargs_parse(char *const *argv, char *const *envp, struct pyargs *a, tf_err *err)
{
    const char *addopts;
    memset(a, 0, sizeof *a);
    size_t start = pyargs_command(argv, envp, &addopts);
    if (!start)
        return 0;
    /* pytest fails at its start on a PYTEST_ADDOPTS shlex cannot split: nothing to write. */
    if (addopts && pyargs_split(addopts, &a->words, &a->nwords) < 0 && errno == ENOMEM)
        return tf_errf(err, "out of memory");
    struct scan sc = {0};
    bool ended = false;
    scan_args(&sc, a->words, &ended); /* PYTEST_ADDOPTS comes before the command line */
    ended = false;
    scan_args(&sc, argv + start, &ended);
    collect(&sc, a);
    return 0;
}

void pyargs_free(struct pyargs *a)
{
    pyargs_free_words(a->words, a->nwords);
    a->words = NULL;
    a->n = a->nwords = 0;
}

/* O's path as pytest opens it: "~" expanded from HOME (pytest's expanduser), the trailing
 * slash of a directory dropped. 0, or -1 when it cannot be told here ($VAR: pytest's
 * expandvars; no HOME; too long): the kernel decides at the end, as without this check. */
static int as_opened(const struct pyargs_output *o, char *const *envp, char *out, size_t len)
{
    const char *p = o->path, *home = env_get(envp, "HOME");
    if (strchr(p, '$'))
        return -1;
    bool tilde = p[0] == '~' && (!p[1] || p[1] == '/');
    if (tilde && (!home || !*home))
        return -1;
    int k = snprintf(out, len, "%s%s", tilde ? home : "", p + tilde);
    if (k < 0 || (size_t)k >= len)
        return -1;
    while (k > 1 && out[k - 1] == '/')
        out[--k] = '\0';
    return 0;
}

/* Would the kernel refuse O? RES gets where it leads. A directory missing on the way does
 * not save it: pytest and coverage make the report's parents first. */
static bool refused(const struct pyargs_output *o, char *const *envp, const struct policy *p,
                    struct path_res *res)
{
    char path[PATH_MAX];
    tf_err ignored;
    if (as_opened(o, envp, path, sizeof path) < 0 ||
        path_resolve_at(NULL, AT_FDCWD, path, 0, res, &ignored) < 0)
        return false;
    if (res->kind != PATH_FILE || (res->errnum && res->errnum != ENOENT))
        return false; /* no file (/dev/stdout's pipe), or a call that fails anyway */
    return policy_match_res(p, res) == NULL;
}

/* The message's three parts: one line per report, the config's outputs (those inside the
 * root; the config's are relative to it) and --output's (relative to the cwd). */
struct says {
    FILE *lines, *cfg, *cli;
    int ncfg;
};

/* S as a shell word: as it is when nothing in it is special, else in single quotes. */
static void put_shell(FILE *f, const char *s, const char *tail)
{
    if (strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+,:@%=-") ==
        strlen(s)) {
        fprintf(f, "%s%s", s, tail);
        return;
    }
    fputc('\'', f);
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    fprintf(f, "%s'", tail);
}

/* S as a TOML basic string's contents: '"' and '\' escaped. */
static void put_toml(FILE *f, const char *s)
{
    for (; *s; s++)
        fprintf(f, "%s%c", *s == '"' || *s == '\\' ? "\\" : "", *s);
}

static void say(struct says *w, const struct pyargs_output *o, const struct path_res *res,
                const char *root)
{
    const char *slash = o->is_dir && o->path[strlen(o->path) - 1] != '/' ? "/" : "";
    fprintf(w->lines, "  %s %s -> %s\n", o->flag, o->path, res->path);
    fputs(" --output ", w->cli);
    put_shell(w->cli, o->path, slash);
    size_t rlen = strlen(root);
    if (path_is_within(res->path, root) && res->path[rlen] == '/') {
        fprintf(w->cfg, "%s\"", w->ncfg++ ? ", " : "");
        put_toml(w->cfg, res->path + rlen + 1);
        fprintf(w->cfg, "%s\"", o->is_dir ? "/" : "");
    }
}

static int refuse(struct says *w, char *lines, char *cfg, char *cli, tf_err *err)
{
    tf_errf(err,
            "refusing to run: pytest is asked to write outside the writable set, which the "
            "kernel would refuse after the tests ran; declare each as an output:\n%s"
            "%s%s%s%son the command line: testfence run%s -- ...",
            lines, w->ncfg ? "in the config: outputs = [" : "", cfg,
            w->ncfg ? "] (testfence.toml, or [tool.testfence] in pyproject.toml), " : "",
            w->ncfg ? "or " : "", cli);
    return -1;
}

int pyargs_check(char *const *argv, char *const *envp, const struct policy *policy,
                 const char *root, tf_err *err)
{
    struct pyargs a;
    if (pyargs_parse(argv, envp, &a, err) < 0)
        return -1;
    char *text[3] = {NULL, NULL, NULL};
    size_t len[3];
    struct says w = {open_memstream(&text[0], &len[0]), open_memstream(&text[1], &len[1]),
                     open_memstream(&text[2], &len[2]), 0};
    int bad = 0;
    for (size_t i = 0; w.lines && w.cfg && w.cli && i < a.n; i++) {
        struct path_res res;
        if (refused(&a.out[i], envp, policy, &res) && ++bad)
            say(&w, &a.out[i], &res, root);
    }
    bool ok = w.lines && w.cfg && w.cli;
    FILE *f[3] = {w.lines, w.cfg, w.cli};
    for (int k = 0; k < 3; k++)
        if (f[k] && fclose(f[k]) != 0)
            ok = false;
    int rc = !ok   ? tf_errf(err, "out of memory")
             : bad ? refuse(&w, text[0], text[1], text[2], err)
                   : 0;
    for (int k = 0; k < 3; k++)
        free(text[k]);
    pyargs_free(&a);
    return rc;
}
