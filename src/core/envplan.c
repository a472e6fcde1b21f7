#include "envplan.h"

#include "base/vec.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int envplan_add(struct envplan *plan, const char *name, const char *value, enum envplan_op op,
                const char *why, tf_err *err)
{
    struct envplan_item *v = vec_grow(plan->items, &plan->cap, plan->n, sizeof *v);
    if (!v)
        return tf_errf(err, "out of memory");
    plan->items = v;
    struct envplan_item *it = &v[plan->n];
    it->name = strdup(name);
    it->value = strdup(value);
    it->op = op;
    it->why = why;
    if (!it->name || !it->value) {
        free(it->name);
        free(it->value);
        return tf_errf(err, "out of memory");
    }
    plan->n++;
    return 0;
}

const char *envplan_getenv(char *const *envp, const char *name)
{
    size_t n = strlen(name);
    for (; envp && *envp; envp++)
        if (!strncmp(*envp, name, n) && (*envp)[n] == '=')
            return *envp + n + 1;
    return NULL;
}

int envplan_value(const struct envplan *plan, char *const *envp, const char *name, char **out)
{
    const char *user = envplan_getenv(envp, name);
    char *val = user ? strdup(user) : NULL;
    *out = NULL;
    if (user && !val)
        return -1;
    for (size_t i = 0; i < plan->n; i++) {
        const struct envplan_item *it = &plan->items[i];
        if (strcmp(it->name, name))
            continue;
        char *next = NULL;
        if (it->op == ENV_APPEND && val && val[0]) {
            if (asprintf(&next, "%s %s", val, it->value) < 0)
                next = NULL;
        } else {
            next = strdup(it->value);
        }
        free(val);
        if (!next)
            return -1;
        val = next;
    }
    *out = val;
    return 0;
}

static int planned(const struct envplan *plan, const char *entry)
{
    for (size_t i = 0; i < plan->n; i++) {
        size_t n = strlen(plan->items[i].name);
        if (!strncmp(entry, plan->items[i].name, n) && entry[n] == '=')
            return 1;
    }
    return 0;
}

char **envplan_apply(const struct envplan *plan, char *const *envp, tf_err *err)
{
    size_t count = 0;
    for (char *const *e = envp; e && *e; e++)
        count++;
    char **out = calloc(count + plan->n + 1, sizeof *out);
    if (!out)
        return tf_errf(err, "out of memory"), NULL;
    size_t k = 0;
    for (char *const *e = envp; e && *e; e++)
        if (!planned(plan, *e) && !(out[k++] = strdup(*e)))
            goto oom;
    for (size_t i = 0; i < plan->n; i++) {
        const char *name = plan->items[i].name;
        int dup = 0;
        for (size_t j = 0; j < i; j++)
            dup |= !strcmp(plan->items[j].name, name);
        if (dup)
            continue;
        char *val;
        if (envplan_value(plan, envp, name, &val) < 0)
            goto oom;
        int r = asprintf(&out[k], "%s=%s", name, val ? val : "");
        free(val);
        if (r < 0) {
            out[k] = NULL;
            goto oom;
        }
        k++;
    }
    return out;
oom:
    envplan_free_env(out);
    tf_errf(err, "out of memory");
    return NULL;
}

void envplan_free_env(char **env)
{
    for (char **e = env; e && *e; e++)
        free(*e);
    free(env);
}

void envplan_free(struct envplan *plan)
{
    for (size_t i = 0; i < plan->n; i++) {
        free(plan->items[i].name);
        free(plan->items[i].value);
    }
    free(plan->items);
    /* All three: a cap left behind would make vec_grow think the freed array has room. */
    plan->items = NULL;
    plan->n = plan->cap = 0;
}

int envplan_shell_quote(char *out, size_t len, const char *s)
{
    /* shlex's whitespace is space, \t, \r and \n: any of them must be quoted. */
    if (s[0] && strcspn(s, " \t\r\n'\"\\$`*?[]#~!&;|<>(){}") == strlen(s))
        return snprintf(out, len, "%s", s) < (int)len ? 0 : -1;
    /* K bytes written so far; each step checks that the closing quote and NUL still fit. */
    size_t k = 0;
    if (len < 3) /* '' and the NUL */
        return -1;
    out[k++] = '\'';
    for (; *s; s++) {
        const char *piece = *s == '\'' ? "'\\''" : NULL;
        size_t pl = piece ? strlen(piece) : 1;
        if (k + pl + 2 > len)
            return -1;
        if (piece)
            memcpy(out + k, piece, pl);
        else
            out[k] = *s;
        k += pl;
    }
    out[k++] = '\'';
    out[k] = '\0';
    return 0;
}
