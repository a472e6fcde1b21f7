#include "audit_select.h"

#include <string.h>

/* One character class at P ("[...]") against C; *END is set past it. A '[' that is not
 * closed is a literal '['. */
static bool class_match(const char *p, char c, const char **end)
{
    const char *q = p + 1;
    bool neg = *q == '!' || *q == '^', hit = false;
    q += neg;
    for (const char *first = q; *q && (*q != ']' || q == first); q++) {
        if (q[1] == '-' && q[2] && q[2] != ']') {
            hit |=
                (unsigned char)c >= (unsigned char)q[0] && (unsigned char)c <= (unsigned char)q[2];
            q += 2;
        } else {
            hit |= *q == c;
        }
    }
    if (*q != ']') {
        *end = p + 1;
        return c == '[';
    }
    *end = q + 1;
    return hit != neg;
}

/* Does the one-character pattern at PAT ('?', a class, a literal) match C? *NEXT: past it. */
static bool one_match(const char *pat, char c, const char **next)
{
    if (*pat == '[')
        return class_match(pat, c, next);
    *next = pat + 1;
    return *pat == '?' || *pat == c;
}

bool tf_glob_match(const char *pat, const char *s)
{
    const char *star = NULL, *resume = NULL; /* after the last '*', and where its run ends */
    while (*s) {
        const char *next;
        if (*pat == '*') {
            while (*pat == '*')
                pat++;
            star = pat;
            resume = s;
        } else if (*pat && one_match(pat, *s, &next)) {
            pat = next;
            s++;
        } else if (star) {
            pat = star; /* the '*' takes one more character */
            s = ++resume;
        } else {
            return false;
        }
    }
    while (*pat == '*')
        pat++;
    return !*pat;
}

/* The rules the per-file ignores turn off for finding F's file. */
static unsigned ignored_for(const tf_audit_cfg *cfg, const tf_finding *f)
{
    const char *path = f->rel ? f->rel : f->path, *name = strrchr(path, '/');
    name = name ? name + 1 : path;
    unsigned off = 0;
    for (size_t i = 0; i < cfg->n_per_file; i++) {
        const tf_audit_file_ignore *e = &cfg->per_file[i];
        bool neg = e->glob[0] == '!';
        const char *g = e->glob + neg;
        if (tf_glob_match(g, strchr(g, '/') ? path : name) != neg)
            off |= e->rules;
    }
    return off;
}

void tf_audit_per_file(const tf_audit_cfg *cfg, tf_audit_result *res)
{
    if (!cfg->n_per_file)
        return;
    size_t kept = 0;
    for (size_t i = 0; i < res->n_findings; i++)
        if (!(ignored_for(cfg, &res->findings[i]) & (1u << res->findings[i].rule)))
            res->findings[kept++] = res->findings[i];
    res->n_findings = kept;
}
