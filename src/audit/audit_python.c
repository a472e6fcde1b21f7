#include "audit_python.h"

#include "py_stdlib.h"

#include "apy_assign.h"
#include "apy_emit.h"
#include "apy_scope.h"
#include "apy_stmt.h"
#include "audit_rules.h"
#include "py_source.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Module-level names are visible in every function, including those defined above the
 * assignment: imports and constants are bound before the walk. Constants are exported. */
static void prepass(apy *P, uint32_t module)
{
    for (uint32_t s = apy_node(P, module)->kid; s; s = apy_node(P, s)->next) {
        int k = apy_kind(P, s);
        if (k == N_IMPORT || k == N_FROM_IMPORT)
            apy_on_import(P, s, true);
        else if (k == N_ASSIGN)
            apy_on_assignment(P, s);
    }
    for (uint32_t s = apy_node(P, module)->kid; s; s = apy_node(P, s)->next) {
        if (apy_kind(P, s) != N_ASSIGN || apy_kind(P, apy_kid(P, s, 0)) != N_NAME)
            continue;
        tf_pathval v;
        uint32_t t = apy_kid(P, s, 0);
        apy_lookup(P, apy_text(P, t), apy_len(P, t), &v);
        if (v.kind == TF_PATH_UNKNOWN || v.kind == TF_PATH_PARAM || v.kind == TF_PATH_CWD)
            continue;
        tf_export e = {.name = tf_facts_str(P->f, apy_text(P, t), apy_len(P, t)),
                       .value = tf_facts_path(P->f, &v)};
        tf_facts_add_export(P->f, &e);
    }
}

/* "# testfence: ignore" or "# testfence: ignore[TF101, TF104]" anywhere in a comment. */
static bool parse_ignore(const char *buf, unsigned *rules)
{
    const char *p = strstr(buf, "testfence:");
    if (!p)
        return false;
    p += strlen("testfence:");
    p += strspn(p, " \t");
    if (strncmp(p, "ignore", 6))
        return false;
    p += 6;
    if (*p != '[') {
        *rules = ~0u;
        return *p == '\0' || *p == ' ' || *p == '\t' || *p == '#' || *p == '\r';
    }
    *rules = 0;
    for (p++; *p && *p != ']';) {
        p += strspn(p, ", \t");
        size_t k = strcspn(p, ", \t]");
        int id = tf_rule_find(p, k);
        if (id >= 0)
            *rules |= 1u << id;
        p += k;
    }
    return *p == ']';
}

/* The codes after "noqa:" as ruff reads them: words of letters then digits, separated by
 * commas or blanks, up to the first other word. Only testfence's own count; none of them
 * (a "# noqa: E501" for another linter, or a "# noqa:" naming nothing) suppresses nothing. */
static unsigned noqa_codes(const char *p)
{
    unsigned rules = 0;
    for (;;) {
        p += strspn(p, ", \t");
        size_t k = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");
        size_t d = strspn(p + k, "0123456789");
        if (!k || !d)
            return rules;
        int id = tf_rule_find(p, k + d);
        if (id >= 0)
            rules |= 1u << id;
        p += k + d;
    }
}

/* After P: optional blanks, "noqa" in any case, then the end of the word. */
static const char *after_noqa(const char *p)
{
    p += strspn(p, " \t");
    if (strncasecmp(p, "noqa", 4))
        return NULL;
    p += 4;
    return *p == ':' || *p == '\0' || *p == ' ' || *p == '\t' || *p == '#' || *p == '\r' ? p : NULL;
}

/* Each "#" of the comment starts a directive: "# noqa" (every code), "# noqa: CODES", and
 * the file-level "# testfence: noqa[: CODES]" and "# ruff: noqa: CODES". A bare "# ruff:
 * noqa" is ruff's business, not a reason to stop looking for writes. */
static bool parse_noqa(const char *buf, tf_supp *s)
{
    for (const char *h = strchr(buf, '#'); h; h = strchr(h + 1, '#')) {
        const char *p = h + 1 + strspn(h + 1, " \t"), *q;
        bool own = !strncmp(p, "testfence:", 10), ruff = !strncasecmp(p, "ruff:", 5);
        if ((own || ruff) && (q = after_noqa(p + (own ? 10 : 5)))) {
            s->whole = true;
            s->rules = *q == ':' ? noqa_codes(q + 1) : own ? ~0u : 0;
        } else if ((q = after_noqa(p))) {
            s->rules = *q == ':' ? noqa_codes(q + 1) : ~0u;
        } else {
            continue;
        }
        s->noqa = true;
        return s->rules != 0;
    }
    return false;
}

static void suppressions(apy *P)
{
    for (size_t i = 0; i < P->t->n_comments; i++) {
        const py_comment *c = &P->t->comments[i];
        char buf[256];
        size_t n = c->end - c->start < sizeof buf - 1 ? c->end - c->start : sizeof buf - 1;
        memcpy(buf, P->src + c->start, n);
        buf[n] = '\0';
        tf_supp s = {.own_line = c->own_line};
        int col;
        if (!parse_ignore(buf, &s.rules) && !parse_noqa(buf, &s))
            continue;
        py_position(P->t, c->start, &s.line, &col);
        tf_facts_add_supp(P->f, &s);
    }
}

static void syntax_error(apy *P)
{
    if (!P->t->has_error)
        return;
    tf_fact x = {.kind = FACT_SYNTAX, .op = apy_pool(P, P->t->error_msg)};
    py_position(P->t, P->t->error_pos, &x.pos.line, &x.pos.col);
    x.pos.end_line = x.pos.line;
    tf_facts_add_fact(P->f, &x);
}

/* A file Python cannot decode is a syntax error to Python: reported like one. */
static int undecodable(tf_facts *out, const char *why)
{
    tf_fact x = {.kind = FACT_SYNTAX, .pos = {1, 1, 1}, .op = tf_facts_str(out, why, strlen(why))};
    tf_facts_add_fact(out, &x);
    return out->oom ? -1 : 0;
}

static int py_scan(const char *raw, size_t raw_len, const char *artifacts, tf_facts *out)
{
    py_tree t;
    const char *src;
    char why[160], *owned;
    size_t len;
    if (py_source_utf8(raw, raw_len, &src, &len, &owned, why, sizeof why) < 0)
        return undecodable(out, why);
    if (len > UINT32_MAX / 2) {
        free(owned);
        return undecodable(out, "too large to parse");
    }
    int rc = py_parse(&t, src, (uint32_t)len);
    apy P = {.t = &t, .src = src, .f = out, .artifacts = artifacts};
    if (rc == 0 && tf_facts_init(&P.scratch) == 0) {
        apy_push_scope(&P, false);
        prepass(&P, t.root);
        apy_statements(&P, t.root);
        suppressions(&P);
        syntax_error(&P);
        if (P.oom || out->oom || P.scratch.oom)
            rc = -1;
    } else {
        rc = -1;
    }
    tf_facts_free(&P.scratch);
    free(P.b);
    free(P.slots);
    py_tree_free(&t);
    free(owned);
    return rc;
}

static bool py_matches(const char *path)
{
    size_t n = strlen(path);
    return n > 3 && !strcmp(path + n - 3, ".py"); /* stubs (.pyi) never run */
}

/* pytest's default python_files (test_*.py, *_test.py) and conftest.py; unittest's test*.py. */
static bool py_collected(const char *name)
{
    size_t n = strlen(name);
    return py_matches(name) &&
           (!strncmp(name, "test", 4) || (n > 8 && !strcmp(name + n - 8, "_test.py")) ||
            !strcmp(name, "conftest.py"));
}

const tf_audit_lang tf_audit_python = {"python", py_matches, py_collected, py_scan,
                                       py_stdlib_module};
