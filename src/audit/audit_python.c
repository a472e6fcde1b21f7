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
static bool parse_ignore(const char *text, size_t len, unsigned *rules)
{
    char buf[256];
    size_t n = len < sizeof buf - 1 ? len : sizeof buf - 1;
    memcpy(buf, text, n);
    buf[n] = '\0';
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

static void suppressions(apy *P)
{
    for (size_t i = 0; i < P->t->n_comments; i++) {
        const py_comment *c = &P->t->comments[i];
        tf_supp s;
        int col;
        if (!parse_ignore(P->src + c->start, c->end - c->start, &s.rules))
            continue;
        py_position(P->t, c->start, &s.line, &col);
        s.own_line = c->own_line;
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
