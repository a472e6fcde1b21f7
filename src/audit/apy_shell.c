#include "apy_shell.h"

#include "apy_emit.h"
#include "apy_eval.h"
#include "apy_scope.h"
#include "apy_str.h"

#include <stdio.h>
#include <string.h>

/* Report each output redirection (> x, >> x, &> x) of shell text CMD. */
static void shell_redirections(apy *P, uint32_t at, const char *cmd, const tf_pathval *cwd)
{
    char q = 0;
    for (size_t i = 0; cmd[i]; i++) {
        char c = cmd[i];
        if (q) {
            q = c == q ? 0 : q;
            continue;
        }
        if (c == '\'' || c == '"') {
            q = c;
            continue;
        }
        if (c != '>' || (i > 0 && cmd[i - 1] == '<'))
            continue;
        size_t j = i + 1 + (cmd[i + 1] == '>' || cmd[i + 1] == '|');
        if (cmd[j] == '&')
            continue; /* 2>&1 */
        while (cmd[j] == ' ' || cmd[j] == '\t')
            j++;
        size_t k = j;
        while (cmd[k] && !strchr(" \t;|&<>()\n", cmd[k]))
            k++;
        if (k > j && cmd[j] != '$' && cmd[j] != '*') {
            tf_pathval v;
            tf_pv_literal(&v, cmd + j, k - j, false);
            if (cwd && !tf_path_is_absolute(v.text)) {
                tf_pathval base = *cwd;
                apy_join_value(&base, &v);
                v = base;
            }
            v.wild = strchr(v.text, '*') != NULL;
            apy_write_to(P, at, "a shell redirection", &v, 0);
        }
        i = k ? k - 1 : i;
    }
}

/* The command of a subprocess call as shell text: a string, or ["sh", "-c", "text"]. */
static bool shell_text(apy *P, uint32_t cmd, bool shell, apy_str *s)
{
    if ((apy_kind(P, cmd) == N_STRING || apy_kind(P, cmd) == N_CONCAT) && shell) {
        apy_strings_value(P, cmd, s, 0);
        return !s->truncated;
    }
    if (apy_kind(P, cmd) != N_LIST && apy_kind(P, cmd) != N_TUPLE)
        return false;
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

static bool source_mentions(const apy *P, uint32_t n, const char *needle)
{
    size_t len = apy_len(P, n), k = strlen(needle);
    for (size_t i = 0; i + k <= len; i++)
        if (!memcmp(apy_text(P, n) + i, needle, k))
            return true;
    return false;
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
    apy_str s;
    if (cmd && shell_text(P, cmd, shell, &s)) {
        tf_pathval cwd, *base = NULL;
        if (apy_get_arg(P, args, -1, "cwd", &a) == APY_ARG_FOUND) {
            apy_eval(P, a, 0, &cwd);
            if (cwd.kind == TF_PATH_UNKNOWN)
                return; /* relative redirections land in a directory we cannot place */
            base = &cwd;
        }
        shell_redirections(P, call, s.text, base);
    }
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
    if (!strcmp(t, "HOME") || !strcmp(t, "USERPROFILE"))
        P->f->funcs[P->w.func].flags |= FN_SETS_HOME;
    if (!strcmp(t, "PYTHONDONTWRITEBYTECODE")) /* set again: children write no bytecode */
        P->w.env_stripped = false;
}

void apy_on_env_removal(apy *P, uint32_t call, uint32_t fn, const char *name)
{
    uint32_t a = 0;
    if (apy_get_arg(P, apy_kid(P, call, 1), 0, NULL, &a) != APY_ARG_FOUND ||
        !apy_is_bytecode_var(P, a))
        return;
    if (!strcmp(apy_last_part(name), "delenv"))
        P->w.env_stripped = true;
    else if (apy_kind(P, fn) == N_ATTR && !strcmp(apy_last_part(name), "pop"))
        apy_strip_env(P, apy_kid(P, fn, 0));
}
