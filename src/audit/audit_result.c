#include "audit_result.h"

#include "base/vec.h"

#include <stdlib.h>
#include <string.h>

static bool grow(void **v, size_t *cap, size_t n, size_t size)
{
    void *nv = vec_grow(*v, cap, n, size);
    if (nv)
        *v = nv;
    return nv != NULL;
}

char *tf_audit_keep(tf_audit_result *res, const char *s)
{
    if (!grow((void **)&res->strings, &res->cap_strings, res->n_strings, sizeof(char *)))
        return NULL;
    char *copy = strdup(s);
    if (copy)
        res->strings[res->n_strings++] = copy;
    return copy;
}

static void add_line(char ***v, size_t *n, size_t *cap, const char *msg)
{
    if (!grow((void **)v, cap, *n, sizeof(char *)))
        return;
    char *copy = strdup(msg);
    if (copy)
        (*v)[(*n)++] = copy;
}

void tf_audit_error(tf_audit_result *res, const char *msg)
{
    add_line(&res->errors, &res->n_errors, &res->cap_errors, msg);
}

void tf_audit_note(tf_audit_result *res, const char *msg)
{
    add_line(&res->notes, &res->n_notes, &res->cap_notes, msg);
}

tf_finding *tf_audit_add(tf_audit_result *res, const tf_audit_cfg *cfg, tf_rule_id rule)
{
    if (!(cfg->rules & (1u << rule)))
        return NULL;
    if (!grow((void **)&res->findings, &res->cap_findings, res->n_findings, sizeof(tf_finding)))
        return NULL;
    tf_finding *f = &res->findings[res->n_findings++];
    memset(f, 0, sizeof *f);
    f->rule = rule;
    return f;
}

static int cmp_finding(const void *pa, const void *pb)
{
    const tf_finding *a = pa, *b = pb;
    int c = strcmp(a->path, b->path);
    if (c)
        return c;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    if (a->rule != b->rule)
        return (int)a->rule - (int)b->rule;
    /* one call may have several (the commands of a script it runs); the same twice is one */
    return strcmp(a->message, b->message);
}

void tf_audit_sort(tf_audit_result *res)
{
    if (res->n_findings)
        qsort(res->findings, res->n_findings, sizeof *res->findings, cmp_finding);
    size_t out = 0;
    for (size_t i = 0; i < res->n_findings; i++)
        if (out == 0 || cmp_finding(&res->findings[out - 1], &res->findings[i]) != 0)
            res->findings[out++] = res->findings[i];
    res->n_findings = out;
    res->n_suppressed = 0;
    for (size_t i = 0; i < out; i++)
        res->n_suppressed += res->findings[i].suppressed;
}

void tf_audit_result_free(tf_audit_result *res)
{
    for (size_t i = 0; i < res->n_strings; i++)
        free(res->strings[i]);
    for (size_t i = 0; i < res->n_errors; i++)
        free(res->errors[i]);
    for (size_t i = 0; i < res->n_notes; i++)
        free(res->notes[i]);
    free(res->strings);
    free(res->errors);
    free(res->notes);
    free(res->findings);
    memset(res, 0, sizeof *res);
}
