#include "apy_shell.h"

#include "apy_emit.h"
#include "apy_eval.h"
#include "apy_scope.h"
#include "apy_str.h"
#include "audit_shell.h"

#include <stdio.h>
#include <string.h>

/* The command of a subprocess call as shell text: a string, or ["sh", "-c", "text"]. */
static bool shell_text(apy *P, uint32_t cmd, bool shell, apy_str *s)
{
    if ((apy_kind(P, cmd) == N_STRING || apy_kind(P, cmd) == N_CONCAT) && shell) {
        apy_strings_value(P, cmd, s, 0);
        return !s->truncated;
    }
    static const char *const shells[] = {"sh", "bash", "dash", "zsh", "ksh", NULL};
    if (apy_kind(P, cmd) != N_LIST && apy_kind(P, cmd) != N_TUPLE)
        return false;
    apy_str first;
    const char *sh = apy_literal_arg(P, apy_node(P, cmd)->kid, &first), *slash;
    if (!sh || !apy_name_in((slash = strrchr(sh, '/')) ? slash + 1 : sh, shells))
        return false; /* git -c x=y, python -c "...": no shell text */
    bool dash_c = false;
    for (uint32_t e = apy_node(P, cmd)->kid; e; e = apy_node(P, e)->next) {
        apy_str t;
        const char *lit = apy_literal_arg(P, e, &t);
        if (dash_c && (apy_kind(P, e) == N_STRING || apy_kind(P, e) == N_CONCAT)) {
            apy_strings_value(P, e, s, 0);
            return !s->truncated;
        }
        dash_c = lit && !strcmp(lit, "-c");
    }
    return false;
}

/* What a subprocess call runs, as the commands of audit_shell see them. */
typedef struct sub_ctx {
    apy *P;
    uint32_t call;
    const tf_pathval *cwd; /* cwd=, NULL when absent */
    bool cwd_unknown;      /* cwd= that is not known: relative paths are not placed */
    unsigned env;          /* TF_SH_ENV_* the env= argument redirects */
} sub_ctx;

/* PATH of a command, relative to the call's directory; false when it cannot be placed. */
static bool sub_path(const sub_ctx *c, const char *path, bool after_cd, tf_pathval *v)
{
    if (!path[0] || path[0] == '*' || path[0] == '$')
        return false;
    tf_pv_literal(v, path, strlen(path), false);
    if (v->kind == TF_PATH_UNKNOWN)
        return false;
    v->wild = strchr(v->text, '*') != NULL;
    if (tf_path_is_absolute(v->text))
        return true;
    if (after_cd || c->cwd_unknown)
        return false; /* relative to a directory we cannot place */
    if (c->cwd) {
        tf_pathval base = *c->cwd;
        apy_join_value(&base, v);
        *v = base;
    }
    return v->kind != TF_PATH_UNKNOWN;
}

static void sub_git(const sub_ctx *c, const tf_sh_cmd *x)
{
    unsigned env = (x->env | c->env) & 0xf;
    int flags = (int)(env << TF_FF_ENV_SHIFT);
    tf_pathval dir, *target = NULL;
    if (x->kind == TF_SH_GIT_FILE) {
        if (sub_path(c, x->path, x->after_cd, &dir))
            apy_write_to(c->P, c->call, "git config --file", &dir, 0);
        return;
    }
    if (x->kind == TF_SH_GIT_REPO) {
        if (!sub_path(c, x->path[0] ? x->path : ".", x->after_cd, &dir))
            return;
        flags |= FF_GIT_REPO;
        target = &dir;
    }
    flags |= x->kind == TF_SH_GIT_SYSTEM ? FF_GIT_SYSTEM : 0;
    apy_fact(c->P, FACT_GIT, flags, c->call, x->shown, target);
}

/* rm -r / find -delete: an operand that starts with a variable that may be empty, or a path. */
static void sub_delete(const sub_ctx *c, const tf_sh_cmd *x)
{
    tf_pathval v;
    if (x->empty_var[0] && x->if_empty[0]) {
        char op[160];
        snprintf(op, sizeof op, "%s|%s", x->empty_var, x->shown);
        tf_pv_literal(&v, x->if_empty, strlen(x->if_empty), false);
        if (v.kind != TF_PATH_UNKNOWN)
            apy_fact(c->P, FACT_SHDEL, 0, c->call, op, &v);
        return;
    }
    if (!strncmp(x->shown, "find", 4) && !tf_path_is_absolute(x->path))
        return; /* find . -name '*.pyc' -delete: a filter, not the tree */
    if (sub_path(c, x->path, x->after_cd, &v))
        apy_write_to(c->P, c->call, x->shown[0] == 'f' ? "find -delete" : "rm -r", &v, FF_DELETE);
}

static void on_command(void *ctx, const tf_sh_cmd *x)
{
    const sub_ctx *c = ctx;
    tf_pathval v;
    switch (x->kind) {
    case TF_SH_REDIRECT:
        if (!((x->env | c->env) & TF_SH_ENV_HOME && x->path[0] == '~') &&
            sub_path(c, x->path, x->after_cd, &v))
            apy_write_to(c->P, c->call, "a shell redirection", &v, 0);
        return;
    case TF_SH_DELETE:
        sub_delete(c, x);
        return;
    case TF_SH_SCRIPT:
        if (sub_path(c, x->path, x->after_cd, &v))
            apy_fact(c->P, FACT_SCRIPT, (int)(((x->env | c->env) & 0xf) << TF_FF_ENV_SHIFT),
                     c->call, x->shown, &v);
        return;
    default:
        sub_git(c, x);
    }
}

/* A command as a list of words: ["git", "config", ...], "git config ...".split(). */
static void argv_command(sub_ctx *c, uint32_t cmd)
{
    apy *P = c->P;
    apy_str s;
    if (apy_kind(P, cmd) == N_CALL) { /* "a b".split(), shlex.split("a b"): shell words */
        uint32_t fn = apy_kid(P, cmd, 0), a = 0;
        char name[APY_NAME_MAX * 2];
        bool split = apy_kind(P, fn) == N_ATTR && apy_text_is(P, apy_kid(P, fn, 1), "split") &&
                     apy_kind(P, apy_kid(P, fn, 0)) == N_STRING;
        if (split)
            a = apy_kid(P, fn, 0);
        else if (apy_canonical(P, fn, name, sizeof name) && !strcmp(name, "shlex.split"))
            apy_get_arg(P, apy_kid(P, cmd, 1), 0, "s", &a);
        if (a && apy_literal_arg(P, a, &s))
            tf_sh_scan(s.text, s.len, on_command, c);
        return;
    }
    if (apy_kind(P, cmd) != N_LIST && apy_kind(P, cmd) != N_TUPLE)
        return;
    const char *argv[48];
    static const char unknown[] = "";
    char words[48][128];
    int argc = 0;
    for (uint32_t e = apy_node(P, cmd)->kid; e && argc < 48; e = apy_node(P, e)->next, argc++) {
        const char *t = apy_literal_arg(P, e, &s);
        snprintf(words[argc], sizeof words[argc], "%s", t ? t : unknown);
        argv[argc] = t ? words[argc] : NULL;
    }
    tf_sh_cmd x;
    if (tf_sh_classify(argv, argc, 0, &x))
        on_command(c, &x);
}

static bool source_mentions(const apy *P, uint32_t n, const char *needle)
{
    size_t len = apy_len(P, n), k = strlen(needle);
    for (size_t i = 0; i + k <= len; i++)
        if (!memcmp(apy_text(P, n) + i, needle, k))
            return true;
    return false;
}

/* ---- environments: which of git's configuration places a child's environment redirects ---- */

static const struct env_key {
    const char *name;
    unsigned bit;
} env_keys[] = {{"HOME", TF_SH_ENV_HOME},
                {"USERPROFILE", TF_SH_ENV_HOME},
                {"XDG_CONFIG_HOME", TF_SH_ENV_XDG},
                {"GIT_CONFIG_GLOBAL", TF_SH_ENV_GITCFG},
                {"GIT_CONFIG_SYSTEM", TF_SH_ENV_GITSYS},
                {"GIT_CONFIG", TF_SH_ENV_GITCFG | TF_SH_ENV_GITSYS}};

static bool name_char(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* The variables node N's source names as whole words ("HOME", HOME=, 'XDG_CONFIG_HOME'). */
static unsigned env_keys_in(const apy *P, uint32_t n)
{
    const char *t = apy_text(P, n);
    size_t len = apy_len(P, n);
    unsigned bits = 0;
    for (size_t k = 0; k < sizeof env_keys / sizeof *env_keys; k++) {
        size_t kl = strlen(env_keys[k].name);
        for (size_t i = 0; i + kl <= len; i++)
            if (!memcmp(t + i, env_keys[k].name, kl) && (i == 0 || !name_char(t[i - 1])) &&
                (i + kl == len || !name_char(t[i + kl])))
                bits |= env_keys[k].bit;
    }
    return bits;
}

static int env_slot(apy *P, uint32_t name_node)
{
    char raw[sizeof P->w.envs[0]];
    if (!apy_dotted_raw(P, name_node, raw, sizeof raw, 0))
        return -1;
    for (int i = P->w.n_envs; i-- > 0;)
        if (!strcmp(P->w.envs[i], raw))
            return i;
    return -1;
}

unsigned apy_env_bits(apy *P, uint32_t args)
{
    uint32_t e = 0;
    char name[APY_NAME_MAX * 2];
    if (apy_get_arg(P, args, -1, "env", &e) != APY_ARG_FOUND)
        return 0; /* the process environment: the function's own redirections decide */
    if (apy_kind(P, e) == N_NAME || apy_kind(P, e) == N_ATTR) {
        int i = env_slot(P, e);
        if (i >= 0)
            return P->w.env_bits[i];
        if (apy_canonical(P, e, name, sizeof name) && !strcmp(name, "os.environ"))
            return 0;
        return 0xf; /* a fixture's or a helper's environment: not ours to judge */
    }
    /* dict(os.environ, HOME=...), {**os.environ, "HOME": ...}; a fresh dict has no HOME */
    return source_mentions(P, e, "environ") ? env_keys_in(P, e) : 0xf;
}

/* NAME = <an environment> (a dict built from os.environ, or a fresh dict): remember it. */
void apy_on_env_value(apy *P, uint32_t target, uint32_t value)
{
    int k = apy_kind(P, value);
    uint32_t fn = k == N_CALL ? apy_kid(P, value, 0) : 0;
    /* cheap tests first: this runs for every assignment */
    if (apy_kind(P, target) != N_NAME ||
        !(k == N_DICT || k == N_ATTR ||
          (fn && (apy_text_is(P, fn, "dict") ||
                  (apy_kind(P, fn) == N_ATTR && apy_text_is(P, apy_kid(P, fn, 1), "copy"))))))
        return;
    bool mentions = source_mentions(P, value, "environ");
    if (k == N_ATTR && !mentions)
        return;
    int i = env_slot(P, target);
    size_t n = apy_len(P, target);
    if (i < 0 && (P->w.n_envs == 4 || n >= sizeof P->w.envs[0]))
        return; /* four are plenty; a name this long is not an environment's */
    if (i < 0) {
        i = P->w.n_envs++;
        memcpy(P->w.envs[i], apy_text(P, target), n);
        P->w.envs[i][n] = '\0';
    }
    P->w.env_bits[i] = (unsigned char)(mentions ? env_keys_in(P, value) : 0xf);
}

/* The function's own environment points VAR elsewhere. */
static void function_sets(apy *P, unsigned bits)
{
    uint16_t f = (bits & TF_SH_ENV_HOME ? FN_SETS_HOME : 0) |
                 (bits & TF_SH_ENV_XDG ? FN_SETS_XDG : 0) |
                 (bits & TF_SH_ENV_GITCFG ? FN_SETS_GITCFG : 0) |
                 (bits & TF_SH_ENV_GITSYS ? FN_SETS_GITSYS : 0);
    P->f->funcs[P->w.func].flags |= f;
}

/* env["HOME"] = ..., os.environ["HOME"] = ...: the variable is redirected. */
void apy_on_env_store(apy *P, uint32_t target)
{
    char name[APY_NAME_MAX * 2];
    uint32_t value = apy_kid(P, target, 0), key = apy_kid(P, target, 1);
    if (apy_kind(P, target) != N_SUBSCRIPT || apy_kind(P, key) != N_STRING)
        return;
    unsigned bits = env_keys_in(P, key);
    int i = env_slot(P, value);
    if (i >= 0)
        P->w.env_bits[i] |= (unsigned char)bits;
    else if (apy_canonical(P, value, name, sizeof name) && !strcmp(name, "os.environ"))
        function_sets(P, bits);
}

/* env.update(HOME=...), os.environ.update({...}). */
static void on_env_update(apy *P, uint32_t call, uint32_t fn, const char *name)
{
    if (apy_kind(P, fn) != N_ATTR || strcmp(apy_last_part(name), "update"))
        return;
    unsigned bits = env_keys_in(P, apy_kid(P, call, 1));
    int i = env_slot(P, apy_kid(P, fn, 0));
    if (i >= 0)
        P->w.env_bits[i] |= (unsigned char)bits;
    else if (!strcmp(name, "os.environ.update"))
        function_sets(P, bits);
}

/* Does the env= argument (or the process environment) lack the bytecode settings? */
static bool env_stripped(apy *P, uint32_t args)
{
    uint32_t e = 0;
    if (apy_get_arg(P, args, -1, "env", &e) != APY_ARG_FOUND)
        return P->w.env_stripped;
    char raw[APY_NAME_MAX];
    if (!apy_dotted_raw(P, e, raw, sizeof raw, 0))
        return false;
    for (int i = 0; i < P->w.n_stripped; i++)
        if (!strcmp(P->w.stripped[i], raw))
            return true;
    return false;
}

/* pytester's ways of starting a Python subprocess. */
static bool runs_python(const char *name)
{
    static const char *const tails[] = {"runpytest_subprocess", "spawn_pytest", "runpython",
                                        "runpython_c", NULL};
    return apy_name_in(apy_last_part(name), tails);
}

void apy_on_subprocess(apy *P, uint32_t call, const char *name)
{
    static const char *const runners[] = {"subprocess.run",
                                          "subprocess.call",
                                          "subprocess.check_call",
                                          "subprocess.check_output",
                                          "subprocess.Popen",
                                          "subprocess.getoutput",
                                          "subprocess.getstatusoutput",
                                          "os.system",
                                          "os.popen",
                                          "asyncio.create_subprocess_shell",
                                          "asyncio.create_subprocess_exec",
                                          NULL};
    uint32_t args = apy_kid(P, call, 1), cmd = 0, a = 0;
    if (runs_python(name)) {
        if (env_stripped(P, args))
            apy_fact(P, FACT_PYCACHE, 0, call, name, NULL);
        return;
    }
    if (!apy_name_in(name, runners))
        return;
    apy_get_arg(P, args, 0, "args", &cmd);
    bool shell = !strncmp(name, "os.", 3) || strstr(name, "getoutput") || strstr(name, "shell") ||
                 (apy_get_arg(P, args, -1, "shell", &a) == APY_ARG_FOUND &&
                  apy_kind(P, a) == N_CONST && apy_node(P, a)->op == KW_TRUE);
    sub_ctx c = {.P = P, .call = call, .env = apy_env_bits(P, args)};
    tf_pathval cwd;
    if (apy_get_arg(P, args, -1, "cwd", &a) == APY_ARG_FOUND) {
        apy_eval(P, a, 0, &cwd);
        c.cwd = &cwd;
        c.cwd_unknown = cwd.kind == TF_PATH_UNKNOWN;
    }
    apy_str s;
    if (cmd && shell_text(P, cmd, shell, &s))
        tf_sh_scan(s.text, s.len, on_command, &c);
    else if (cmd)
        argv_command(&c, cmd);
    if (env_stripped(P, args) &&
        (source_mentions(P, args, "executable") || source_mentions(P, args, "python")) &&
        !source_mentions(P, args, "'-B'") && !source_mentions(P, args, "\"-B\""))
        apy_fact(P, FACT_PYCACHE, 0, call, name, NULL);
}

/* env.pop("PYTHONDONTWRITEBYTECODE"), del env[...], monkeypatch.delenv(...): remember it. */
bool apy_is_bytecode_var(apy *P, uint32_t a)
{
    apy_str s;
    const char *t = apy_literal_arg(P, a, &s);
    return t && (!strcmp(t, "PYTHONDONTWRITEBYTECODE") || !strcmp(t, "PYTHONPYCACHEPREFIX"));
}

void apy_strip_env(apy *P, uint32_t dict)
{
    char raw[APY_NAME_MAX], name[APY_NAME_MAX * 2];
    if (apy_canonical(P, dict, name, sizeof name) && !strcmp(name, "os.environ")) {
        P->w.env_stripped = true;
        return;
    }
    if (!apy_dotted_raw(P, dict, raw, sizeof raw, 0) || P->w.n_stripped == 8)
        return;
    snprintf(P->w.stripped[P->w.n_stripped++], APY_NAME_MAX, "%s", raw);
}

/* monkeypatch.setenv("HOME", ...): this function's HOME is elsewhere; setting
 * PYTHONDONTWRITEBYTECODE again undoes its removal. */
void apy_on_setenv(apy *P, uint32_t call, const char *name)
{
    uint32_t a = 0;
    apy_str s;
    const char *t;
    if (strcmp(apy_last_part(name), "setenv") ||
        apy_get_arg(P, apy_kid(P, call, 1), 0, "name", &a) != APY_ARG_FOUND ||
        !(t = apy_literal_arg(P, a, &s)))
        return;
    for (size_t k = 0; k < sizeof env_keys / sizeof *env_keys; k++)
        if (!strcmp(t, env_keys[k].name))
            function_sets(P, env_keys[k].bit);
    if (!strcmp(t, "PYTHONDONTWRITEBYTECODE")) /* set again: children write no bytecode */
        P->w.env_stripped = false;
}

void apy_on_env_removal(apy *P, uint32_t call, uint32_t fn, const char *name)
{
    on_env_update(P, call, fn, name);
    uint32_t a = 0;
    if (apy_get_arg(P, apy_kid(P, call, 1), 0, NULL, &a) != APY_ARG_FOUND ||
        !apy_is_bytecode_var(P, a))
        return;
    if (!strcmp(apy_last_part(name), "delenv"))
        P->w.env_stripped = true;
    else if (apy_kind(P, fn) == N_ATTR && !strcmp(apy_last_part(name), "pop"))
        apy_strip_env(P, apy_kid(P, fn, 0));
}
