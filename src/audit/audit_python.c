#include "audit_python.h"

#include "base/text.h"
#include "base/vec.h"
#include "py_parse.h"
#include "py_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Expressions nest; the evaluator gives up (unknown) beyond this depth. */
#define PY_MAX_EVAL_DEPTH 48
#define PY_MAX_SCOPES 64
#define PY_NAME_MAX 96
#define ALIAS_SCOPE 0xFFFFFFFFu

/* A name bound in a scope: its value when known. Names and values live in the scratch pool. */
typedef struct binding {
    uint32_t scope, name;
    tf_fpath val;
} binding;

typedef struct py_scope {
    uint32_t id;
    bool is_class;
} py_scope;

/* What a function's walk tracks: where it is, and what its statements did so far. */
typedef struct fn_walk {
    uint32_t func;  /* index in facts.funcs */
    uint32_t state; /* the working directory state now */
    bool dead;      /* after return/raise: the rest of the block is not reached */
    bool has_exit;
    uint32_t exit; /* the join of the states at its returns */
    bool env_stripped;
    char stripped[8][PY_NAME_MAX]; /* env dicts that lost the bytecode settings */
    int n_stripped;
} fn_walk;

typedef struct py {
    const py_tree *t;
    const char *src;
    tf_facts *f;
    tf_facts scratch; /* the pool of binding names and values */
    binding *b;
    size_t n_b, cap_b;
    uint32_t *slots; /* open addressing over b: index + 1, 0 = empty */
    size_t cap_slots;
    py_scope scopes[PY_MAX_SCOPES];
    int n_scopes;
    uint32_t next_scope;
    fn_walk w;
    uint32_t cls; /* facts pool: the class being defined, 0 outside classes */
    bool quiet;   /* inside a call whose strings are messages, not paths */
    bool in_main; /* under if __name__ == "__main__": never run by a test runner */
    const char *artifacts;
    bool oom;
} py;

/* ---- text of nodes ---- */

static const py_node *NODE(const py *P, uint32_t n)
{
    return &P->t->nodes[n];
}

static int kind(const py *P, uint32_t n)
{
    return n ? NODE(P, n)->kind : N_EMPTY;
}

static uint32_t kid(const py *P, uint32_t n, unsigned i)
{
    return py_kid(P->t, n, i);
}

static size_t len_of(const py *P, uint32_t n)
{
    return NODE(P, n)->end - NODE(P, n)->start;
}

static const char *text_of(const py *P, uint32_t n)
{
    return P->src + NODE(P, n)->start;
}

static bool text_is(const py *P, uint32_t n, const char *s)
{
    return n && strlen(s) == len_of(P, n) && !memcmp(text_of(P, n), s, len_of(P, n));
}

static tf_pos pos_of(const py *P, uint32_t n)
{
    tf_pos p;
    int end_col;
    py_position(P->t, NODE(P, n)->start, &p.line, &p.col);
    py_position(P->t, NODE(P, n)->end > NODE(P, n)->start ? NODE(P, n)->end - 1 : NODE(P, n)->end,
                &p.end_line, &end_col);
    return p;
}

/* Is NAME one of LIST? (Called for every call in a file: the first letter is checked inline.) */
static bool name_in(const char *name, const char *const *list)
{
    for (; *list; list++)
        if ((*list)[0] == name[0] && !strcmp(name, *list))
            return true;
    return false;
}

static const char *last_part(const char *dotted)
{
    const char *dot = strrchr(dotted, '.');
    return dot ? dot + 1 : dotted;
}

/* ---- bindings: one hash table for every scope, keyed by (scope id, name) ---- */

static uint64_t hash_name(uint32_t scope, const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull ^ scope;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static binding *find(py *P, uint32_t scope, const char *name, size_t n)
{
    if (!P->cap_slots)
        return NULL;
    for (size_t i = hash_name(scope, name, n) & (P->cap_slots - 1);;
         i = (i + 1) & (P->cap_slots - 1)) {
        uint32_t s = P->slots[i];
        if (!s)
            return NULL;
        binding *b = &P->b[s - 1];
        const char *bn = tf_facts_get(&P->scratch, b->name);
        if (b->scope == scope && !strncmp(bn, name, n) && bn[n] == '\0')
            return b;
    }
}

static bool rehash(py *P)
{
    size_t cap = P->cap_slots ? P->cap_slots * 2 : 256;
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return false;
    for (size_t k = 0; k < P->n_b; k++) {
        const char *bn = tf_facts_get(&P->scratch, P->b[k].name);
        size_t i = hash_name(P->b[k].scope, bn, strlen(bn)) & (cap - 1);
        while (slots[i])
            i = (i + 1) & (cap - 1);
        slots[i] = (uint32_t)k + 1;
    }
    free(P->slots);
    P->slots = slots;
    P->cap_slots = cap;
    return true;
}

/* Bind NAME in SCOPE to VAL (or to "unknown", which still shadows outer scopes). */
static void bind_in(py *P, uint32_t scope, const char *name, size_t n, const tf_pathval *val)
{
    if (n == 0 || n >= PY_NAME_MAX)
        return;
    binding *b = find(P, scope, name, n);
    if (!b) {
        if ((P->n_b + 1) * 2 > P->cap_slots && !rehash(P))
            return (void)(P->oom = true);
        binding *nv = vec_grow(P->b, &P->cap_b, P->n_b, sizeof *nv);
        if (!nv)
            return (void)(P->oom = true);
        P->b = nv;
        b = &P->b[P->n_b++];
        b->scope = scope;
        b->name = tf_facts_str(&P->scratch, name, n);
        size_t i = hash_name(scope, name, n) & (P->cap_slots - 1);
        while (P->slots[i])
            i = (i + 1) & (P->cap_slots - 1);
        P->slots[i] = (uint32_t)P->n_b;
    }
    b->val = tf_facts_path(&P->scratch, val);
}

static void bind(py *P, const char *name, size_t n, const tf_pathval *val)
{
    if (P->n_scopes)
        bind_in(P, P->scopes[P->n_scopes - 1].id, name, n, val);
}

static void bind_unknown(py *P, const char *name, size_t n)
{
    tf_pathval u;
    tf_pv_unknown(&u);
    bind(P, name, n, &u);
}

/* The innermost binding of NAME. Class scopes are seen only from their own body, as in
 * Python; "self.x" also finds the class's x and what any method bound to self.x. */
static bool lookup(py *P, const char *name, size_t n, tf_pathval *out)
{
    for (int s = P->n_scopes - 1; s >= 0; s--) {
        if (P->scopes[s].is_class && s != P->n_scopes - 1)
            continue;
        binding *b = find(P, P->scopes[s].id, name, n);
        if (b) {
            tf_facts_pathval(&P->scratch, &b->val, out);
            return true;
        }
    }
    bool self = (n > 5 && !memcmp(name, "self.", 5)) || (n > 4 && !memcmp(name, "cls.", 4));
    for (int s = P->n_scopes - 1; self && s >= 0; s--) {
        if (!P->scopes[s].is_class)
            continue;
        size_t skip = name[0] == 's' ? 5 : 4;
        binding *b = find(P, P->scopes[s].id, name, n);
        if (!b)
            b = find(P, P->scopes[s].id, name + skip, n - skip);
        if (b) {
            tf_facts_pathval(&P->scratch, &b->val, out);
            return true;
        }
        break;
    }
    tf_pv_unknown(out);
    return false;
}

static void push_scope(py *P, bool is_class)
{
    if (P->n_scopes == PY_MAX_SCOPES)
        return; /* deeper nesting shares the innermost scope */
    P->scopes[P->n_scopes++] = (py_scope){++P->next_scope, is_class};
}

static void add_alias(py *P, const char *name, size_t n, const char *target, size_t tn)
{
    tf_pathval v;
    tf_pv_unknown(&v);
    if (tn >= sizeof v.text)
        return;
    memcpy(v.text, target, tn);
    v.text[tn] = '\0';
    bind_in(P, ALIAS_SCOPE, name, n, &v);
}

/* What an imported or bare name stands for: "tf" -> "tempfile", "Path" -> "pathlib.Path". */
static bool resolve_name(py *P, const char *name, size_t n, char *out, size_t outlen)
{
    static const char *const pathlib_names[] = {
        "Path", "PurePath", "PosixPath", "PurePosixPath", "WindowsPath", "PureWindowsPath", NULL};
    binding *b = find(P, ALIAS_SCOPE, name, n);
    if (b) {
        snprintf(out, outlen, "%s", tf_facts_get(&P->scratch, b->val.text));
        return true;
    }
    for (size_t i = 0; pathlib_names[i]; i++)
        if (strlen(pathlib_names[i]) == n && !memcmp(pathlib_names[i], name, n)) {
            snprintf(out, outlen, "pathlib.%s", pathlib_names[i]); /* often used unimported */
            return true;
        }
    return false;
}

/* The dotted source text of a name/attribute chain ("self.cfg"). */
static bool dotted_raw(const py *P, uint32_t n, char *out, size_t len, int depth)
{
    if (kind(P, n) == N_NAME) {
        if (len_of(P, n) >= len)
            return false;
        memcpy(out, text_of(P, n), len_of(P, n));
        out[len_of(P, n)] = '\0';
        return true;
    }
    if (kind(P, n) != N_ATTR || depth > 16 || !dotted_raw(P, kid(P, n, 0), out, len, depth + 1))
        return false;
    uint32_t attr = kid(P, n, 1);
    size_t have = strlen(out), l = len_of(P, attr);
    if (have + 1 + l >= len)
        return false;
    out[have] = '.';
    memcpy(out + have + 1, text_of(P, attr), l);
    out[have + 1 + l] = '\0';
    return true;
}

/* The canonical dotted name of a callee: its first component resolved through imports. */
static bool canonical(py *P, uint32_t n, char *out, size_t len)
{
    char raw[PY_NAME_MAX * 2], target[PY_NAME_MAX * 2];
    if (!dotted_raw(P, n, raw, sizeof raw, 0))
        return false;
    size_t first = strcspn(raw, ".");
    int w = resolve_name(P, raw, first, target, sizeof target)
                ? snprintf(out, len, "%s%s", target, raw + first)
                : snprintf(out, len, "%s", raw);
    return w >= 0 && (size_t)w < len;
}

/* ---- strings ---- */

typedef struct py_str {
    char text[512];
    size_t len;
    bool wild; /* parts not known (f-string fields) are '*' */
    bool truncated;
} py_str;

static void str_put(py_str *s, const char *p, size_t n)
{
    if (s->len + n >= sizeof s->text) {
        s->truncated = true;
        n = sizeof s->text - 1 - s->len;
    }
    memcpy(s->text + s->len, p, n);
    s->len += n;
    s->text[s->len] = '\0';
}

/* CP as UTF-8 (surrogates too, as Python keeps them); nothing beyond U+10FFFF. */
static void str_utf8(py_str *s, unsigned long cp)
{
    char b[4];
    str_put(s, b, tf_utf8_put(b, cp));
}

/* \xHH, \uXXXX, \UXXXXXXXX at P: the digits consumed, 0 when malformed. */
static size_t str_hex_escape(py_str *s, const char *p, size_t n, size_t digits)
{
    unsigned long cp;
    if (tf_hex_read(p, n, digits, &cp) < 0)
        return 0;
    str_utf8(s, cp);
    return digits;
}

/* Literal text, decoding the escapes that matter for paths. FMT: "{{" and "}}" are braces. */
static void str_content(py_str *s, const char *p, size_t n, bool raw, bool fmt)
{
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (fmt && (c == '{' || c == '}') && i + 1 < n && p[i + 1] == c)
            i++;
        else if (!raw && c == '\\' && i + 1 < n) {
            char e = p[++i];
            size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
            size_t used = digits ? str_hex_escape(s, p + i + 1, n - i - 1, digits) : 0;
            if (used) {
                i += used;
                continue;
            }
            if (e == '\n' || e == '\r') /* a continued line */
                continue;
            c = e == 'n' ? '\n' : e == 't' ? '\t' : e;
            if (!strchr("\\'\"nt", e)) /* keep unknown escapes as written */
                str_put(s, "\\", 1);
        }
        str_put(s, &c, 1);
    }
}

static void eval(py *P, uint32_t n, int depth, tf_pathval *out);

/* One string literal; f-string fields become their value when known, else '*'. */
static void string_value(py *P, uint32_t n, py_str *s, int depth)
{
    py_token tok = {.kind = PT_STRING,
                    .str = NODE(P, n)->op,
                    .start = NODE(P, n)->start,
                    .end = NODE(P, n)->end};
    uint32_t body, body_end;
    py_string_body(P->src, &tok, &body, &body_end);
    bool raw = tok.str & PS_RAW, fmt = tok.str & (PS_FMT | PS_TEMPLATE);
    if (!fmt) {
        str_content(s, P->src + body, body_end - body, raw, false);
        return;
    }
    /* Literal runs between fields; each field's braces span from its '{' to its '}'. */
    uint32_t at = body;
    for (uint32_t f = NODE(P, n)->kid; f; f = NODE(P, f)->next) {
        uint32_t open = NODE(P, f)->start;
        while (open > at && P->src[open - 1] != '{')
            open--;
        if (open > at)
            str_content(s, P->src + at, open - 1 - at, raw, true);
        tf_pathval v;
        eval(P, NODE(P, f)->kid, depth + 1, &v);
        if (v.kind == TF_PATH_LITERAL && !tf_path_is_absolute(v.text)) {
            str_put(s, v.text, strlen(v.text));
            s->wild |= v.wild;
        } else {
            str_put(s, "*", 1);
            s->wild = true;
        }
        /* skip to after this field's closing brace: fields do not nest at this level */
        uint32_t close = NODE(P, f)->end;
        int d = 0;
        while (close < body_end && !(P->src[close] == '}' && d == 0)) {
            d += P->src[close] == '{';
            d -= P->src[close] == '}';
            close++;
        }
        at = close < body_end ? close + 1 : body_end;
    }
    if (at < body_end)
        str_content(s, P->src + at, body_end - at, raw, true);
    if (!NODE(P, n)->kid && strchr(s->text, '{')) /* fields the parser could not read */
        s->wild = true;
}

/* A string or an implicit concatenation ("a" "b"). */
static void strings_value(py *P, uint32_t n, py_str *s, int depth)
{
    memset(s, 0, sizeof *s);
    if (kind(P, n) == N_STRING) {
        string_value(P, n, s, depth);
        return;
    }
    for (uint32_t k = NODE(P, n)->kid; k; k = NODE(P, k)->next)
        string_value(P, k, s, depth);
}

/* ---- arguments ---- */

typedef enum { ARG_ABSENT, ARG_FOUND, ARG_MAYBE } arg_state;

/* Positional argument POS or keyword KW (either may be -1/NULL). A *args before POS or a
 * **kwargs makes the answer "maybe". */
static arg_state get_arg(const py *P, uint32_t args, int pos, const char *kw, uint32_t *out)
{
    if (kind(P, args) != N_ARGS)
        return ARG_ABSENT;
    arg_state none = ARG_ABSENT;
    int at = 0;
    for (uint32_t a = NODE(P, args)->kid; a; a = NODE(P, a)->next) {
        int k = kind(P, a);
        if (k == N_KWARG) {
            if (kw && text_is(P, kid(P, a, 0), kw)) {
                *out = kid(P, a, 1);
                return ARG_FOUND;
            }
        } else if (k == N_DSTAR) {
            none = ARG_MAYBE;
        } else if (k == N_STARRED) {
            if (at <= pos)
                none = ARG_MAYBE;
            pos = -1; /* positions after *args are unknown */
        } else if (at++ == pos) {
            *out = a;
            return ARG_FOUND;
        }
    }
    return none;
}

static int positional_count(const py *P, uint32_t args)
{
    int n = 0;
    for (uint32_t a = kind(P, args) == N_ARGS ? NODE(P, args)->kid : 0; a; a = NODE(P, a)->next) {
        int k = kind(P, a);
        if (k == N_STARRED)
            return -1;
        n += k != N_KWARG && k != N_DSTAR;
    }
    return n;
}

/* ---- the evaluator: expression -> abstract path ---- */

/* A string value: a literal (with '*' where fields are unknown), unknown when it starts
 * with an unknown part (it could be absolute). */
static void from_str(const py_str *s, tf_pathval *out)
{
    tf_pv_unknown(out);
    if (s->truncated || (s->wild && s->text[0] == '*'))
        return;
    tf_pv_literal(out, s->text, s->len, false);
    out->wild = s->wild;
}

/* Join a known value V onto OUT (os.path.join, Path / "x", joinpath). */
static void join_value(tf_pathval *out, const tf_pathval *v)
{
    bool object = out->object;
    if (v->kind == TF_PATH_LITERAL) {
        bool wild = out->wild || v->wild;
        tf_pv_join(out, v->text, strlen(v->text));
        out->wild = wild && out->kind != TF_PATH_UNKNOWN;
    } else if (v->kind != TF_PATH_UNKNOWN && v->kind != TF_PATH_PARAM &&
               out->kind == TF_PATH_LITERAL && !strcmp(out->text, ".")) {
        *out = *v; /* Path(".") / base */
    } else {
        tf_pv_unknown(out);
    }
    if (out->kind != TF_PATH_UNKNOWN)
        out->object = object;
}

/* Evaluate every positional argument from FIRST on and join them onto OUT. */
static void join_args(py *P, uint32_t args, int first, int depth, tf_pathval *out)
{
    int n = positional_count(P, args);
    if (n < 0)
        tf_pv_unknown(out);
    for (int i = first; i < n && out->kind != TF_PATH_UNKNOWN; i++) {
        uint32_t a = 0;
        tf_pathval v;
        get_arg(P, args, i, NULL, &a);
        eval(P, a, depth + 1, &v);
        if (v.kind == TF_PATH_UNKNOWN && i > first - (first > 0) && out->kind == TF_PATH_LITERAL)
            tf_pv_literal(&v, "*", 1, false), v.wild = true; /* join(base, name): name unknown */
        join_value(out, &v);
    }
}

static bool is_home_env(py *P, uint32_t call_or_sub, bool call)
{
    uint32_t a = 0;
    if (call) {
        if (get_arg(P, kid(P, call_or_sub, 1), 0, NULL, &a) != ARG_FOUND)
            return false;
    } else {
        a = kid(P, call_or_sub, 1);
    }
    py_str s;
    if (kind(P, a) != N_STRING)
        return false;
    strings_value(P, a, &s, 0);
    return !strcmp(s.text, "HOME") || !strcmp(s.text, "USERPROFILE");
}

/* Functions of a dotted name that build or transform a path. */
static bool eval_function(py *P, const char *name, uint32_t call, int depth, tf_pathval *out)
{
    static const char *const ctors[] = {"pathlib.Path",        "pathlib.PurePath",
                                        "pathlib.PosixPath",   "pathlib.PurePosixPath",
                                        "pathlib.WindowsPath", "pathlib.PureWindowsPath",
                                        "py.path.local",       NULL};
    static const char *const same[] = {
        "os.path.abspath", "os.path.realpath", "os.path.normpath", "os.fspath", "str",
        "os.fsencode",     "os.fsdecode",      "os.path.normcase", NULL};
    static const char *const unique[] = {"tempfile.mkdtemp", "tempfile.mktemp", NULL};
    uint32_t args = kid(P, call, 1), a = 0;
    bool has0 = get_arg(P, args, 0, NULL, &a) == ARG_FOUND;
    if (name_in(name, ctors)) {
        tf_pv_literal(out, ".", 1, true);
        if (has0) {
            eval(P, a, depth + 1, out);
            out->object = out->kind != TF_PATH_UNKNOWN;
            join_args(P, args, 1, depth, out);
        }
    } else if ((!strcmp(name, "os.path.join") || !strcmp(name, "posixpath.join")) && has0) {
        eval(P, a, depth + 1, out);
        join_args(P, args, 1, depth, out);
        out->object = false;
    } else if (!strcmp(name, "os.path.dirname") && has0) {
        eval(P, a, depth + 1, out);
        tf_pv_parent(out);
        out->object = false;
    } else if (!strcmp(name, "os.path.expanduser") && has0) {
        eval(P, a, depth + 1, out);
        out->object = false;
    } else if (name_in(name, same) && has0) {
        eval(P, a, depth + 1, out);
        out->object = false;
    } else if (!strcmp(name, "os.getcwd") || !strcmp(name, "os.getcwdb")) {
        out->state = P->w.state;
        tf_pv_based(out, TF_PATH_CWD, false);
    } else if (!strcmp(name, "pathlib.Path.cwd")) {
        out->state = P->w.state;
        tf_pv_based(out, TF_PATH_CWD, true);
    } else if (!strcmp(name, "pathlib.Path.home")) {
        tf_pv_literal(out, "~", 1, true);
    } else if (!strcmp(name, "tempfile.gettempdir") || !strcmp(name, "tempfile.gettempdirb")) {
        tf_pv_based(out, TF_PATH_TEMP, false);
    } else if (name_in(name, unique)) {
        tf_pv_based(out, TF_PATH_TEMP, false);
        tf_pv_join(out, "*", 1);
        out->wild = true;
    } else if ((!strcmp(name, "os.getenv") || !strcmp(name, "os.environ.get")) &&
               is_home_env(P, call, true)) {
        tf_pv_literal(out, "~", 1, false);
    } else {
        return false;
    }
    return true;
}

/* "{}.txt".format(x) and "%s.txt" % x: the template with '*' for each value. */
static void format_template(const tf_pathval *tmpl, bool percent, tf_pathval *out)
{
    py_str s = {.len = 0};
    const char *p = tmpl->text;
    for (size_t i = 0; p[i]; i++) {
        if (!percent && p[i] == '{' && p[i + 1] == '{') {
            str_put(&s, "{", 1), i++;
        } else if (!percent && p[i] == '}' && p[i + 1] == '}') {
            str_put(&s, "}", 1), i++;
        } else if (!percent && p[i] == '{') {
            while (p[i] && p[i] != '}')
                i++;
            str_put(&s, "*", 1), s.wild = true;
            if (!p[i])
                break;
        } else if (percent && p[i] == '%' && p[i + 1] == '%') {
            str_put(&s, "%", 1), i++;
        } else if (percent && p[i] == '%') {
            i++;
            while (
                p[i] &&
                strchr("#0- +.*0123456789()abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_",
                       p[i]) &&
                !strchr("sdrifgxXeEocaub", p[i]))
                i++;
            str_put(&s, "*", 1), s.wild = true;
            if (!p[i])
                break;
        } else {
            str_put(&s, p + i, 1);
        }
    }
    from_str(&s, out);
}

/* Path methods that return another path: joinpath, with_name, resolve, ... */
static void eval_method(py *P, uint32_t call, uint32_t fn, int depth, tf_pathval *out)
{
    uint32_t attr = kid(P, fn, 1), args = kid(P, call, 1), a = 0;
    eval(P, kid(P, fn, 0), depth + 1, out);
    if (text_is(P, attr, "format") && out->kind == TF_PATH_LITERAL && !out->object) {
        tf_pathval t = *out;
        format_template(&t, false, out);
        return;
    }
    if (!out->object || out->kind == TF_PATH_UNKNOWN) {
        tf_pv_unknown(out);
        return;
    }
    tf_pathval v;
    bool has0 = get_arg(P, args, 0, NULL, &a) == ARG_FOUND;
    if (has0)
        eval(P, a, depth + 1, &v);
    if (text_is(P, attr, "joinpath") || text_is(P, attr, "join")) {
        join_args(P, args, 0, depth, out);
    } else if ((text_is(P, attr, "with_name") || text_is(P, attr, "with_suffix")) && has0 &&
               v.kind == TF_PATH_LITERAL) {
        if (text_is(P, attr, "with_name"))
            tf_pv_set_name(out, v.text, strlen(v.text));
        else
            tf_pv_set_suffix(out, v.text, strlen(v.text));
    } else if (!text_is(P, attr, "resolve") && !text_is(P, attr, "absolute") &&
               !text_is(P, attr, "expanduser")) {
        tf_pv_unknown(out);
    }
}

static void eval_call(py *P, uint32_t n, int depth, tf_pathval *out)
{
    uint32_t fn = kid(P, n, 0);
    char name[PY_NAME_MAX * 2];
    tf_pv_unknown(out);
    if (canonical(P, fn, name, sizeof name) && eval_function(P, name, n, depth, out))
        return;
    if (kind(P, fn) == N_ATTR)
        eval_method(P, n, fn, depth, out);
}

/* A name bound elsewhere: an imported module constant (os_helper.TESTFN) is EXTERN. */
static bool eval_extern(py *P, uint32_t n, tf_pathval *out)
{
    char name[PY_NAME_MAX * 2];
    if (!canonical(P, n, name, sizeof name) || !strchr(name, '.') ||
        strlen(name) >= sizeof out->ext)
        return false;
    char raw[PY_NAME_MAX * 2];
    if (!dotted_raw(P, n, raw, sizeof raw, 0) || !strcmp(raw, name))
        return false; /* nothing was imported: a local attribute */
    tf_pv_unknown(out);
    memcpy(out->ext, name, strlen(name) + 1); /* it fits: checked above */
    tf_pv_based(out, TF_PATH_EXTERN, false);
    return true;
}

/* x.parent, self.attr bound earlier, an imported constant. */
static void eval_attribute(py *P, uint32_t n, int depth, tf_pathval *out)
{
    char raw[PY_NAME_MAX];
    if (dotted_raw(P, n, raw, sizeof raw, 0) && lookup(P, raw, strlen(raw), out))
        return;
    if (!text_is(P, kid(P, n, 1), "parent")) {
        if (!eval_extern(P, n, out))
            tf_pv_unknown(out);
        return;
    }
    eval(P, kid(P, n, 0), depth + 1, out);
    if (out->object)
        tf_pv_parent(out);
    else
        tf_pv_unknown(out);
}

/* x.parents[N] is N + 1 levels up; os.environ["HOME"] is HOME. */
static void eval_subscript(py *P, uint32_t n, int depth, tf_pathval *out)
{
    uint32_t value = kid(P, n, 0), sub = kid(P, n, 1);
    char name[PY_NAME_MAX * 2];
    tf_pv_unknown(out);
    if (canonical(P, value, name, sizeof name) && !strcmp(name, "os.environ") &&
        is_home_env(P, n, false)) {
        tf_pv_literal(out, "~", 1, false);
        return;
    }
    if (kind(P, value) != N_ATTR || !text_is(P, kid(P, value, 1), "parents") ||
        kind(P, sub) != N_NUMBER || len_of(P, sub) > 2)
        return;
    int levels = atoi(text_of(P, sub)) + 1;
    eval(P, kid(P, value, 0), depth + 1, out);
    if (!out->object) {
        tf_pv_unknown(out);
        return;
    }
    while (levels-- > 0)
        tf_pv_parent(out);
}

/* a / b on paths; a + b and a % b on strings. */
static void eval_binop(py *P, uint32_t n, int depth, tf_pathval *out)
{
    int op = NODE(P, n)->op;
    tf_pathval r;
    eval(P, kid(P, n, 0), depth + 1, out);
    if (op == OP_PERCENT && out->kind == TF_PATH_LITERAL && !out->object) {
        tf_pathval t = *out;
        format_template(&t, true, out);
        return;
    }
    eval(P, kid(P, n, 1), depth + 1, &r);
    if (op == OP_SLASH && out->object) {
        if (r.kind == TF_PATH_UNKNOWN && out->kind != TF_PATH_UNKNOWN)
            tf_pv_literal(&r, "*", 1, false), r.wild = true;
        join_value(out, &r);
    } else if (op == OP_PLUS && !out->object && out->kind == TF_PATH_LITERAL) {
        const char *add = r.kind == TF_PATH_LITERAL ? r.text : "*";
        size_t have = strlen(out->text), more = strlen(add);
        if (have + more < sizeof out->text)
            memcpy(out->text + have, add, more + 1),
                out->wild |= r.kind != TF_PATH_LITERAL || r.wild;
        else
            tf_pv_unknown(out);
    } else if (op == OP_PLUS && out->kind == TF_PATH_FILE && r.kind == TF_PATH_LITERAL &&
               (r.text[0] == '/' || r.text[0] == '\\')) {
        tf_pv_join(out, r.text + 1, strlen(r.text + 1));
    } else {
        tf_pv_unknown(out);
    }
}

static void eval(py *P, uint32_t n, int depth, tf_pathval *out)
{
    tf_pv_unknown(out);
    if (!n || depth > PY_MAX_EVAL_DEPTH)
        return;
    switch (kind(P, n)) {
    case N_STRING:
    case N_CONCAT: {
        py_str s;
        strings_value(P, n, &s, depth);
        from_str(&s, out);
        break;
    }
    case N_NAME:
        if (text_is(P, n, "__file__"))
            tf_pv_file(out, false);
        else if (!lookup(P, text_of(P, n), len_of(P, n), out))
            eval_extern(P, n, out);
        break;
    case N_ATTR:
        eval_attribute(P, n, depth, out);
        break;
    case N_SUBSCRIPT:
        eval_subscript(P, n, depth, out);
        break;
    case N_BINOP:
        eval_binop(P, n, depth, out);
        break;
    case N_CALL:
        eval_call(P, n, depth, out);
        break;
    case N_NAMED:
        eval(P, kid(P, n, 1), depth + 1, out);
        break;
    default:
        break;
    }
}

/* ---- facts ---- */

static uint32_t pool(py *P, const char *s)
{
    return tf_facts_str(P->f, s, strlen(s));
}

static uint32_t new_state(py *P, tf_state st)
{
    st.func = P->w.func;
    uint32_t i = tf_facts_add_state(P->f, &st);
    return i ? i : P->w.state;
}

static uint32_t join_states(py *P, uint32_t a, uint32_t b)
{
    if (a == b)
        return a;
    return new_state(P, (tf_state){.kind = ST_JOIN, .a = a < b ? a : b, .b = a < b ? b : a});
}

static void fact(py *P, int k, int flags, uint32_t at, const char *op, const tf_pathval *target)
{
    if (P->in_main)
        return;
    tf_fact x = {.kind = (uint8_t)k,
                 .flags = (uint8_t)flags,
                 .pos = pos_of(P, at),
                 .op = op ? pool(P, op) : 0,
                 .state = P->w.state};
    if (target)
        x.target = tf_facts_path(P->f, target);
    tf_facts_add_fact(P->f, &x);
}

/* A write of OP to the value of expression A (reported at node AT). */
static void write_to(py *P, uint32_t at, const char *op, const tf_pathval *v, int flags)
{
    if (v->kind == TF_PATH_UNKNOWN || v->kind == TF_PATH_PARAM)
        return;
    fact(P, FACT_WRITE, flags, at, op, v);
}

static void write_arg(py *P, uint32_t call, int pos, const char *kw, const char *op, bool at_call)
{
    uint32_t a = 0;
    tf_pathval v;
    if ((pos < 0 && !kw) || get_arg(P, kid(P, call, 1), pos, kw, &a) != ARG_FOUND)
        return;
    eval(P, a, 0, &v);
    write_to(P, at_call ? call : a, op, &v, 0);
}

/* ---- calls that write ---- */

enum py_mode { MODE_ALWAYS, MODE_OPEN, MODE_OSOPEN, MODE_ARCHIVE, MODE_DBM, MODE_DBM_C };

/* A function whose arguments are written to. Targets: positional index or keyword; the mode
 * argument (when the mode decides) is at mode_pos or keyword mode_kw. */
typedef struct py_writer {
    const char *name;
    enum py_mode mode;
    signed char pos[2];
    const char *kw[2];
    signed char mode_pos;
    const char *mode_kw;
} py_writer;

static const py_writer writers[] = {
    {"open", MODE_OPEN, {0, -1}, {"file", NULL}, 1, "mode"},
    {"io.open", MODE_OPEN, {0, -1}, {"file", NULL}, 1, "mode"},
    {"builtins.open", MODE_OPEN, {0, -1}, {"file", NULL}, 1, "mode"},
    {"codecs.open", MODE_OPEN, {0, -1}, {"filename", NULL}, 1, "mode"},
    {"gzip.open", MODE_OPEN, {0, -1}, {"filename", NULL}, 1, "mode"},
    {"bz2.open", MODE_OPEN, {0, -1}, {"filename", NULL}, 1, "mode"},
    {"lzma.open", MODE_OPEN, {0, -1}, {"filename", NULL}, 1, "mode"},
    {"gzip.GzipFile", MODE_OPEN, {0, -1}, {"filename", NULL}, 1, "mode"},
    {"bz2.BZ2File", MODE_OPEN, {0, -1}, {"filename", NULL}, 1, "mode"},
    {"lzma.LZMAFile", MODE_OPEN, {0, -1}, {"filename", NULL}, 1, "mode"},
    {"os.open", MODE_OSOPEN, {0, -1}, {"path", NULL}, 1, "flags"},
    {"os.remove", MODE_ALWAYS, {0, -1}, {"path", NULL}, -1, NULL},
    {"os.unlink", MODE_ALWAYS, {0, -1}, {"path", NULL}, -1, NULL},
    {"os.rmdir", MODE_ALWAYS, {0, -1}, {"path", NULL}, -1, NULL},
    {"os.removedirs", MODE_ALWAYS, {0, -1}, {"name", NULL}, -1, NULL},
    {"os.mkdir", MODE_ALWAYS, {0, -1}, {"path", NULL}, -1, NULL},
    {"os.makedirs", MODE_ALWAYS, {0, -1}, {"name", NULL}, -1, NULL},
    {"os.truncate", MODE_ALWAYS, {0, -1}, {"path", NULL}, -1, NULL},
    {"os.mkfifo", MODE_ALWAYS, {0, -1}, {"path", NULL}, -1, NULL},
    {"os.rename", MODE_ALWAYS, {0, 1}, {"src", "dst"}, -1, NULL},
    {"os.renames", MODE_ALWAYS, {0, 1}, {"old", "new"}, -1, NULL},
    {"os.replace", MODE_ALWAYS, {0, 1}, {"src", "dst"}, -1, NULL},
    {"os.symlink", MODE_ALWAYS, {1, -1}, {"dst", NULL}, -1, NULL},
    {"os.link", MODE_ALWAYS, {1, -1}, {"dst", NULL}, -1, NULL},
    {"shutil.copy", MODE_ALWAYS, {1, -1}, {"dst", NULL}, -1, NULL},
    {"shutil.copy2", MODE_ALWAYS, {1, -1}, {"dst", NULL}, -1, NULL},
    {"shutil.copyfile", MODE_ALWAYS, {1, -1}, {"dst", NULL}, -1, NULL},
    {"shutil.copytree", MODE_ALWAYS, {1, -1}, {"dst", NULL}, -1, NULL},
    {"shutil.copymode", MODE_ALWAYS, {1, -1}, {"dst", NULL}, -1, NULL},
    {"shutil.copystat", MODE_ALWAYS, {1, -1}, {"dst", NULL}, -1, NULL},
    {"shutil.move", MODE_ALWAYS, {0, 1}, {"src", "dst"}, -1, NULL},
    {"shutil.rmtree", MODE_ALWAYS, {0, -1}, {"path", NULL}, -1, NULL},
    {"shutil.make_archive", MODE_ALWAYS, {0, -1}, {"base_name", NULL}, -1, NULL},
    /* logging: a file handler appends to its file (at the first record when delay=True) */
    {"logging.basicConfig", MODE_ALWAYS, {-1, -1}, {"filename", NULL}, -1, NULL},
    {"logging.FileHandler", MODE_ALWAYS, {0, -1}, {"filename", NULL}, -1, NULL},
    {"logging.handlers.RotatingFileHandler", MODE_ALWAYS, {0, -1}, {"filename", NULL}, -1, NULL},
    {"logging.handlers.TimedRotatingFileHandler",
     MODE_ALWAYS,
     {0, -1},
     {"filename", NULL},
     -1,
     NULL},
    {"logging.handlers.WatchedFileHandler", MODE_ALWAYS, {0, -1}, {"filename", NULL}, -1, NULL},
    /* archives and databases: by their mode or flag */
    {"zipfile.ZipFile", MODE_ARCHIVE, {0, -1}, {"file", NULL}, 1, "mode"},
    {"zipfile.PyZipFile", MODE_ARCHIVE, {0, -1}, {"file", NULL}, 1, "mode"},
    {"tarfile.open", MODE_ARCHIVE, {0, -1}, {"name", NULL}, 1, "mode"},
    {"tarfile.TarFile", MODE_ARCHIVE, {0, -1}, {"name", NULL}, 1, "mode"},
    {"shelve.open", MODE_DBM_C, {0, -1}, {"filename", NULL}, 1, "flag"},
    {"dbm.open", MODE_DBM, {0, -1}, {"file", NULL}, 1, "flag"},
    {"dbm.gnu.open", MODE_DBM, {0, -1}, {"filename", NULL}, 1, "flag"},
    {"dbm.ndbm.open", MODE_DBM, {0, -1}, {"filename", NULL}, 1, "flag"},
    {"dbm.dumb.open", MODE_DBM_C, {0, -1}, {"file", NULL}, 1, "flag"},
    {"sqlite3.connect", MODE_ALWAYS, {0, -1}, {"database", NULL}, -1, NULL},
};

/* Methods of a path object that write to it (and, for rename/replace, to an argument). */
static const py_writer path_methods[] = {
    {"write_text", MODE_ALWAYS, {-1, -1}, {NULL, NULL}, -1, NULL},
    {"write_bytes", MODE_ALWAYS, {-1, -1}, {NULL, NULL}, -1, NULL},
    {"touch", MODE_ALWAYS, {-1, -1}, {NULL, NULL}, -1, NULL},
    {"mkdir", MODE_ALWAYS, {-1, -1}, {NULL, NULL}, -1, NULL},
    {"unlink", MODE_ALWAYS, {-1, -1}, {NULL, NULL}, -1, NULL},
    {"rmdir", MODE_ALWAYS, {-1, -1}, {NULL, NULL}, -1, NULL},
    {"symlink_to", MODE_ALWAYS, {-1, -1}, {NULL, NULL}, -1, NULL},
    {"hardlink_to", MODE_ALWAYS, {-1, -1}, {NULL, NULL}, -1, NULL},
    {"rename", MODE_ALWAYS, {0, -1}, {"target", NULL}, -1, NULL},
    {"replace", MODE_ALWAYS, {0, -1}, {"target", NULL}, -1, NULL},
    {"open", MODE_OPEN, {-1, -1}, {NULL, NULL}, 0, "mode"},
    {"write", MODE_ALWAYS, {-1, -1}, {NULL, NULL}, -1, NULL},  /* py.path.local.write */
    {"ensure", MODE_ALWAYS, {-1, -1}, {NULL, NULL}, -1, NULL}, /* py.path.local.ensure */
    {"remove", MODE_ALWAYS, {-1, -1}, {NULL, NULL}, -1, NULL}, /* py.path.local.remove */
};

/* tempfile functions; dir_pos is dir='s positional index. */
static const struct py_temp {
    const char *name;
    int dir_pos;
} temps[] = {
    {"tempfile.mkdtemp", 2},
    {"tempfile.mkstemp", 2},
    {"tempfile.mktemp", 2},
    {"tempfile.NamedTemporaryFile", 6},
    {"tempfile.TemporaryDirectory", 2},
    {"tempfile.TemporaryFile", 6},
    {"tempfile.SpooledTemporaryFile", 7},
};

/* The literal text of a string argument, or NULL. */
static const char *literal_arg(py *P, uint32_t a, py_str *s)
{
    if (kind(P, a) != N_STRING && kind(P, a) != N_CONCAT)
        return NULL;
    strings_value(P, a, s, 0);
    return s->wild ? NULL : s->text;
}

/* Is this call a write, judging by its mode argument? An unknown mode is not. */
static bool mode_writes(py *P, uint32_t args, const py_writer *w, int shift)
{
    uint32_t a = 0;
    py_str s;
    if (w->mode == MODE_ALWAYS)
        return true;
    arg_state st = get_arg(P, args, w->mode_pos < 0 ? -1 : w->mode_pos - shift, w->mode_kw, &a);
    if (st != ARG_FOUND) /* absent: the default mode */
        return st == ARG_ABSENT && w->mode == MODE_DBM_C;
    if (w->mode == MODE_OSOPEN) {
        static const char *const flags[] = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"};
        char text[256];
        size_t n = len_of(P, a) < sizeof text ? len_of(P, a) : sizeof text - 1;
        memcpy(text, text_of(P, a), n);
        text[n] = '\0';
        for (size_t i = 0; i < sizeof flags / sizeof *flags; i++)
            if (strstr(text, flags[i]))
                return true;
        return false;
    }
    const char *m = literal_arg(P, a, &s);
    if (!m)
        return false;
    switch (w->mode) {
    case MODE_OPEN:
        return strpbrk(m, "wax+") != NULL;
    case MODE_ARCHIVE:
        return m[0] == 'w' || m[0] == 'a' || m[0] == 'x';
    case MODE_DBM:
        return m[0] == 'c' || m[0] == 'n' || m[0] == 'w';
    default: /* MODE_DBM_C: every flag but 'r' creates or writes */
        return m[0] != 'r';
    }
}

/* os.* calls with dir_fd= resolve relative paths against a directory fd. */
static bool relative_to_fd(const py *P, uint32_t args)
{
    static const char *const kws[] = {"dir_fd", "src_dir_fd", "dst_dir_fd"};
    uint32_t a;
    for (size_t i = 0; i < sizeof kws / sizeof *kws; i++)
        if (get_arg(P, args, -1, kws[i], &a) != ARG_ABSENT)
            return true;
    return false;
}

/* sqlite3.connect(":memory:") and read-only URIs create nothing. */
static bool sqlite_in_memory(py *P, uint32_t call)
{
    uint32_t a = 0;
    py_str s;
    if (get_arg(P, kid(P, call, 1), 0, "database", &a) != ARG_FOUND)
        return true;
    const char *t = literal_arg(P, a, &s);
    return t &&
           (!t[0] || !strcmp(t, ":memory:") || strstr(t, "mode=ro") || strstr(t, "mode=memory"));
}

static bool on_writer(py *P, uint32_t call, const char *name)
{
    uint32_t args = kid(P, call, 1);
    for (size_t i = 0; i < sizeof writers / sizeof *writers; i++) {
        const py_writer *w = &writers[i];
        if (w->name[0] != name[0] || strcmp(name, w->name))
            continue;
        if (relative_to_fd(P, args) ||
            (!strcmp(name, "sqlite3.connect") && sqlite_in_memory(P, call)))
            return true;
        if (mode_writes(P, args, w, 0))
            for (int t = 0; t < 2; t++)
                write_arg(P, call, w->pos[t], w->kw[t], w->name, t == 0);
        return true;
    }
    return false;
}

/* A unique temp file or dir without dir= under the tests: a style finding (tmp_path). */
static bool on_temp(py *P, uint32_t call, const char *name)
{
    for (size_t i = 0; i < sizeof temps / sizeof *temps; i++) {
        if (temps[i].name[0] != name[0] || strcmp(name, temps[i].name))
            continue;
        uint32_t a = 0;
        arg_state s = get_arg(P, kid(P, call, 1), temps[i].dir_pos, "dir", &a);
        if (s == ARG_FOUND && kind(P, a) == N_CONST && NODE(P, a)->op == KW_NONE_)
            s = ARG_ABSENT; /* dir=None is the system temp dir */
        if (s == ARG_ABSENT)
            fact(P, FACT_TEMP, 0, call, name, NULL);
        return true;
    }
    return false;
}

/* receiver.method(...) where the receiver is a known path object. */
static void on_path_method(py *P, uint32_t call, uint32_t fn)
{
    uint32_t attr = kid(P, fn, 1), args = kid(P, call, 1);
    for (size_t i = 0; i < sizeof path_methods / sizeof *path_methods; i++) {
        const py_writer *w = &path_methods[i];
        if (!text_is(P, attr, w->name))
            continue;
        tf_pathval recv;
        eval(P, kid(P, fn, 0), 0, &recv);
        if (!recv.object || recv.kind == TF_PATH_UNKNOWN || !mode_writes(P, args, w, 0))
            return;
        write_to(P, call, w->name, &recv, 0);
        write_arg(P, call, w->pos[0], w->kw[0], w->name, false);
        return;
    }
}

/* ---- shell commands ---- */

/* Report each output redirection (> x, >> x, &> x) of shell text CMD. */
static void shell_redirections(py *P, uint32_t at, const char *cmd, const tf_pathval *cwd)
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
                join_value(&base, &v);
                v = base;
            }
            v.wild = strchr(v.text, '*') != NULL;
            write_to(P, at, "a shell redirection", &v, 0);
        }
        i = k ? k - 1 : i;
    }
}

/* The command of a subprocess call as shell text: a string, or ["sh", "-c", "text"]. */
static bool shell_text(py *P, uint32_t cmd, bool shell, py_str *s)
{
    if ((kind(P, cmd) == N_STRING || kind(P, cmd) == N_CONCAT) && shell) {
        strings_value(P, cmd, s, 0);
        return !s->truncated;
    }
    if (kind(P, cmd) != N_LIST && kind(P, cmd) != N_TUPLE)
        return false;
    bool dash_c = false;
    for (uint32_t e = NODE(P, cmd)->kid; e; e = NODE(P, e)->next) {
        py_str t;
        const char *lit = literal_arg(P, e, &t);
        if (dash_c && (kind(P, e) == N_STRING || kind(P, e) == N_CONCAT)) {
            strings_value(P, e, s, 0);
            return !s->truncated;
        }
        dash_c = lit && !strcmp(lit, "-c");
    }
    return false;
}

static bool source_mentions(const py *P, uint32_t n, const char *needle)
{
    size_t len = len_of(P, n), k = strlen(needle);
    for (size_t i = 0; i + k <= len; i++)
        if (!memcmp(text_of(P, n) + i, needle, k))
            return true;
    return false;
}

/* Does the env= argument (or the process environment) lack the bytecode settings? */
static bool env_stripped(py *P, uint32_t args)
{
    uint32_t e = 0;
    if (get_arg(P, args, -1, "env", &e) != ARG_FOUND)
        return P->w.env_stripped;
    char raw[PY_NAME_MAX];
    if (!dotted_raw(P, e, raw, sizeof raw, 0))
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
    return name_in(last_part(name), tails);
}

static void on_subprocess(py *P, uint32_t call, const char *name)
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
    uint32_t args = kid(P, call, 1), cmd = 0, a = 0;
    if (runs_python(name)) {
        if (env_stripped(P, args))
            fact(P, FACT_PYCACHE, 0, call, name, NULL);
        return;
    }
    if (!name_in(name, runners))
        return;
    get_arg(P, args, 0, "args", &cmd);
    bool shell = !strncmp(name, "os.", 3) || strstr(name, "getoutput") || strstr(name, "shell") ||
                 (get_arg(P, args, -1, "shell", &a) == ARG_FOUND && kind(P, a) == N_CONST &&
                  NODE(P, a)->op == KW_TRUE);
    py_str s;
    if (cmd && shell_text(P, cmd, shell, &s)) {
        tf_pathval cwd, *base = NULL;
        if (get_arg(P, args, -1, "cwd", &a) == ARG_FOUND) {
            eval(P, a, 0, &cwd);
            if (cwd.kind == TF_PATH_UNKNOWN)
                return; /* relative redirections land in a directory we cannot place */
            base = &cwd;
        }
        shell_redirections(P, call, s.text, base);
    }
    if (env_stripped(P, args) &&
        (source_mentions(P, args, "executable") || source_mentions(P, args, "python")) &&
        !source_mentions(P, args, "'-B'") && !source_mentions(P, args, "\"-B\""))
        fact(P, FACT_PYCACHE, 0, call, name, NULL);
}

/* env.pop("PYTHONDONTWRITEBYTECODE"), del env[...], monkeypatch.delenv(...): remember it. */
static bool is_bytecode_var(py *P, uint32_t a)
{
    py_str s;
    const char *t = literal_arg(P, a, &s);
    return t && (!strcmp(t, "PYTHONDONTWRITEBYTECODE") || !strcmp(t, "PYTHONPYCACHEPREFIX"));
}

static void strip_env(py *P, uint32_t dict)
{
    char raw[PY_NAME_MAX], name[PY_NAME_MAX * 2];
    if (canonical(P, dict, name, sizeof name) && !strcmp(name, "os.environ")) {
        P->w.env_stripped = true;
        return;
    }
    if (!dotted_raw(P, dict, raw, sizeof raw, 0) || P->w.n_stripped == 8)
        return;
    snprintf(P->w.stripped[P->w.n_stripped++], PY_NAME_MAX, "%s", raw);
}

/* monkeypatch.setenv("HOME", ...): this function's HOME is elsewhere; setting
 * PYTHONDONTWRITEBYTECODE again undoes its removal. */
static void on_setenv(py *P, uint32_t call, const char *name)
{
    uint32_t a = 0;
    py_str s;
    const char *t;
    if (strcmp(last_part(name), "setenv") ||
        get_arg(P, kid(P, call, 1), 0, "name", &a) != ARG_FOUND || !(t = literal_arg(P, a, &s)))
        return;
    if (!strcmp(t, "HOME") || !strcmp(t, "USERPROFILE"))
        P->f->funcs[P->w.func].flags |= FN_SETS_HOME;
    if (!strcmp(t, "PYTHONDONTWRITEBYTECODE")) /* set again: children write no bytecode */
        P->w.env_stripped = false;
}

static void on_env_removal(py *P, uint32_t call, uint32_t fn, const char *name)
{
    uint32_t a = 0;
    if (get_arg(P, kid(P, call, 1), 0, NULL, &a) != ARG_FOUND || !is_bytecode_var(P, a))
        return;
    if (!strcmp(last_part(name), "delenv"))
        P->w.env_stripped = true;
    else if (kind(P, fn) == N_ATTR && !strcmp(last_part(name), "pop"))
        strip_env(P, kid(P, fn, 0));
}

/* ---- the working directory ---- */

/* Calls that change the working directory until changed back: os.chdir(x),
 * monkeypatch.chdir(x), py.path's x.chdir(). */
static bool on_chdir(py *P, uint32_t call, uint32_t fn, const char *name)
{
    const char *tail = last_part(name);
    uint32_t a = 0;
    tf_pathval v;
    if (!strcmp(name, "os.fchdir")) {
        tf_pv_unknown(&v);
    } else if (!strcmp(tail, "chdir") && kind(P, fn) == N_ATTR) {
        if (get_arg(P, kid(P, call, 1), 0, "path", &a) == ARG_FOUND)
            eval(P, a, 0, &v);
        else
            eval(P, kid(P, fn, 0), 0, &v); /* py.path: tmpdir.chdir() */
    } else {
        return false;
    }
    P->w.state = new_state(P, (tf_state){.kind = ST_SET, .value = tf_facts_path(P->f, &v)});
    return true;
}

/* Calls recorded for the project-wide phase: helpers whose working directory comes from
 * their callers, and context managers or functions that may change it. */
static bool may_be_project(const char *name)
{
    static const char *const builtins[] = {
        "print",      "len",      "str",          "int",         "float",      "bool",
        "bytes",      "list",     "dict",         "set",         "tuple",      "isinstance",
        "issubclass", "getattr",  "setattr",      "hasattr",     "delattr",    "type",
        "super",      "range",    "enumerate",    "zip",         "map",        "filter",
        "sorted",     "reversed", "min",          "max",         "sum",        "any",
        "all",        "iter",     "next",         "repr",        "format",     "id",
        "hash",       "vars",     "dir",          "object",      "callable",   "abs",
        "round",      "divmod",   "pow",          "chr",         "ord",        "hex",
        "oct",        "bin",      "open",         "bytearray",   "memoryview", "frozenset",
        "slice",      "property", "staticmethod", "classmethod", "exec",       "eval",
        "compile",    "globals",  "locals",       "input",       "complex",    "ascii",
        "breakpoint", "aiter",    "anext",        NULL};
    if (!strchr(name, '.') && name_in(name, builtins))
        return false;
    static const char *const libs[] = {
        "os",        "sys",         "shutil",   "subprocess", "json",      "re",     "time",
        "logging",   "unittest",    "pytest",   "tempfile",   "pathlib",   "io",     "itertools",
        "functools", "collections", "warnings", "contextlib", "threading", "random", "mock",
        "math",      "textwrap",    "inspect",  "typing",     "struct",    NULL};
    char root[PY_NAME_MAX];
    size_t n = strcspn(name, ".");
    if (n >= sizeof root)
        return false;
    memcpy(root, name, n);
    root[n] = '\0';
    if (name_in(root, libs))
        return false;
    if ((!strcmp(root, "self") || !strcmp(root, "cls")) && name[n]) {
        const char *m = name + n + 1;
        return strncmp(m, "assert", 6) && strncmp(m, "fail", 4) && strncmp(m, "skip", 4) &&
               strcmp(m, "subTest") && strcmp(m, "addCleanup");
    }
    return true;
}

static void record_call(py *P, const char *name)
{
    if (P->in_main || !may_be_project(name))
        return;
    tf_call c = {.callee = pool(P, name), .func = P->w.func, .state = P->w.state};
    size_t n = P->f->n_calls;
    if (n && !memcmp(&P->f->calls[n - 1], &c, sizeof c))
        return;
    tf_facts_add_call(P->f, &c);
}

/* Function names passed as values (Thread(target=f), addCleanup(f)) are calls too. */
static void record_callbacks(py *P, uint32_t args)
{
    for (uint32_t a = kind(P, args) == N_ARGS ? NODE(P, args)->kid : 0; a; a = NODE(P, a)->next) {
        uint32_t v = kind(P, a) == N_KWARG ? kid(P, a, 1) : a;
        char name[PY_NAME_MAX * 2];
        tf_pathval x;
        if ((kind(P, v) == N_NAME || kind(P, v) == N_ATTR) &&
            !lookup(P, text_of(P, v), len_of(P, v), &x) && canonical(P, v, name, sizeof name))
            record_call(P, name);
    }
}

/* A call as a whole statement: a helper that may change the working directory for good. */
static void call_effect(py *P, uint32_t call)
{
    char name[PY_NAME_MAX * 2];
    if (P->in_main || !canonical(P, kid(P, call, 0), name, sizeof name) || !may_be_project(name))
        return;
    uint32_t a = 0;
    tf_pathval v;
    tf_pv_unknown(&v);
    if (get_arg(P, kid(P, call, 1), 0, NULL, &a) == ARG_FOUND)
        eval(P, a, 0, &v);
    P->w.state = new_state(P, (tf_state){.kind = ST_EFFECT,
                                         .a = P->w.state,
                                         .callee = pool(P, name),
                                         .value = tf_facts_path(P->f, &v)});
}

/* Calls whose string arguments are messages for people, not paths. */
static bool is_message_call(const char *name)
{
    static const char *const last[] = {"print", "debug",     "info",     "warning", "warn",
                                       "error", "exception", "critical", "log",     "echo",
                                       "fail",  "skip",      "xfail",    "pprint",  NULL};
    const char *tail = last_part(name);
    size_t n = strlen(tail);
    if (name_in(tail, last) || !strcmp(name, "sys.stdout.write") ||
        !strcmp(name, "sys.stderr.write"))
        return true;
    return (n > 5 && !strcmp(tail + n - 5, "Error")) ||
           (n > 9 && !strcmp(tail + n - 9, "Exception")) ||
           (n > 7 && !strcmp(tail + n - 7, "Warning"));
}

static void visit(py *P, uint32_t n);

static void on_call(py *P, uint32_t call)
{
    uint32_t fn = kid(P, call, 0);
    char name[PY_NAME_MAX * 2];
    bool named = canonical(P, fn, name, sizeof name);
    if (named) {
        on_chdir(P, call, fn, name);
        on_env_removal(P, call, fn, name);
        on_setenv(P, call, name);
        on_subprocess(P, call, name);
        if (!on_temp(P, call, name) && !on_writer(P, call, name))
            record_call(P, name);
    }
    if (kind(P, fn) == N_ATTR)
        on_path_method(P, call, fn);
    record_callbacks(P, kid(P, call, 1));
    bool was_quiet = P->quiet;
    P->quiet |= named && is_message_call(name);
    visit(P, fn);
    visit(P, kid(P, call, 1));
    P->quiet = was_quiet;
}

/* ---- bindings and imports ---- */

/* Bind every name in a target to VAL (unknown for unpacking). */
static void bind_target(py *P, uint32_t target, const tf_pathval *val, int depth)
{
    char raw[PY_NAME_MAX];
    int k = kind(P, target);
    if ((k == N_NAME || k == N_ATTR) && dotted_raw(P, target, raw, sizeof raw, 0)) {
        bind(P, raw, strlen(raw), val);
        /* self.x = ... in a method: the class's other methods see it too */
        if (P->n_scopes >= 2 && P->scopes[P->n_scopes - 2].is_class && !strncmp(raw, "self.", 5))
            bind_in(P, P->scopes[P->n_scopes - 2].id, raw, strlen(raw), val);
        return;
    }
    if (k == N_STARRED) {
        bind_target(P, kid(P, target, 0), val, depth + 1);
        return;
    }
    if (depth > 8 || (k != N_TUPLE && k != N_LIST))
        return;
    tf_pathval unknown;
    tf_pv_unknown(&unknown);
    for (uint32_t e = NODE(P, target)->kid; e; e = NODE(P, e)->next)
        bind_target(P, e, &unknown, depth + 1);
}

static void on_assignment(py *P, uint32_t n)
{
    uint32_t value = NODE(P, n)->kid;
    while (NODE(P, value)->next)
        value = NODE(P, value)->next;
    tf_pathval v;
    for (uint32_t t = NODE(P, n)->kid; t != value; t = NODE(P, t)->next) {
        int lk = kind(P, t);
        if (lk == N_TUPLE && kind(P, value) == N_TUPLE &&
            py_nkids(P->t, t) == py_nkids(P->t, value)) {
            uint32_t vv = NODE(P, value)->kid; /* a, b = x, y */
            for (uint32_t tt = NODE(P, t)->kid; tt;
                 tt = NODE(P, tt)->next, vv = NODE(P, vv)->next) {
                eval(P, vv, 0, &v);
                bind_target(P, tt, &v, 0);
            }
            continue;
        }
        eval(P, value, 0, &v);
        bind_target(P, t, &v, 0);
    }
}

static void on_augmented(py *P, uint32_t n)
{
    uint32_t left = kid(P, n, 0);
    tf_pathval v, r;
    eval(P, left, 0, &v);
    eval(P, kid(P, n, 1), 0, &r);
    if (NODE(P, n)->op == OP_SLASHEQ && v.object)
        join_value(&v, &r);
    else if (NODE(P, n)->op == OP_PLUSEQ && v.kind == TF_PATH_LITERAL && !v.object &&
             r.kind == TF_PATH_LITERAL && strlen(v.text) + strlen(r.text) < sizeof v.text)
        memcpy(v.text + strlen(v.text), r.text, strlen(r.text) + 1);
    else
        tf_pv_unknown(&v);
    bind_target(P, left, &v, 0);
}

/* The text of an N_DOTTED node ("a.b.c"); false when it does not fit. */
static bool dotted_text(py *P, uint32_t d, char *out, size_t len)
{
    size_t have = 0;
    out[0] = '\0';
    for (uint32_t k = NODE(P, d)->kid; k; k = NODE(P, k)->next) {
        int w = snprintf(out + have, len - have, "%s%.*s", have ? "." : "", (int)len_of(P, k),
                         text_of(P, k));
        if (w < 0 || (size_t)w >= len - have)
            return false;
        have += (size_t)w;
    }
    return true;
}

static void import_one(py *P, uint32_t alias, const char *module)
{
    char target[PY_NAME_MAX * 2], dotted[PY_NAME_MAX * 2];
    uint32_t as = kid(P, alias, 1);
    if (!dotted_text(P, kid(P, alias, 0), dotted, sizeof dotted))
        return;
    int w = module ? snprintf(target, sizeof target, "%s%s%s", module, module[0] ? "." : "", dotted)
                   : snprintf(target, sizeof target, "%s", dotted);
    if (w < 0 || (size_t)w >= sizeof target)
        return;
    if (kind(P, as) == N_NAME)
        add_alias(P, text_of(P, as), len_of(P, as), target, (size_t)w);
    else if (module) /* from m import x: x means m.x */
        add_alias(P, dotted, strlen(dotted), target, (size_t)w);
    else /* import a.b: a means a */
        add_alias(P, dotted, strcspn(dotted, "."), dotted, strcspn(dotted, "."));
}

static void record_import(py *P, const char *module, int level)
{
    tf_import im = {.module = pool(P, module), .level = (uint16_t)level};
    tf_facts_add_import(P->f, &im);
}

static void on_import(py *P, uint32_t n, bool record)
{
    char module[PY_NAME_MAX * 2] = "", full[PY_NAME_MAX * 2];
    if (kind(P, n) == N_IMPORT) {
        for (uint32_t a = NODE(P, n)->kid; a; a = NODE(P, a)->next) {
            import_one(P, a, NULL);
            if (record && dotted_text(P, kid(P, a, 0), full, sizeof full))
                record_import(P, full, 0);
        }
        return;
    }
    int level = NODE(P, n)->flags;
    uint32_t m = NODE(P, n)->kid;
    if (kind(P, m) == N_DOTTED && !dotted_text(P, m, module, sizeof module))
        return;
    for (uint32_t a = NODE(P, m)->next; a; a = NODE(P, a)->next) {
        uint32_t d = kid(P, a, 0), as = kid(P, a, 1), nm = NODE(P, d)->kid;
        int w = snprintf(full, sizeof full, "%s%s%.*s", module, module[0] ? "." : "",
                         (int)len_of(P, nm), text_of(P, nm));
        if (w < 0 || (size_t)w >= sizeof full)
            continue;
        if (!level) {
            import_one(P, a, module);
        } else { /* from . import helpers: helpers.x is the project's */
            uint32_t local = kind(P, as) == N_NAME ? as : nm;
            add_alias(P, text_of(P, local), len_of(P, local), full, (size_t)w);
        }
        if (record) /* from pkg import mod may import a module */
            record_import(P, full, level);
    }
    if (record && (module[0] || level))
        record_import(P, module, level);
}

/* ---- the walk ---- */

static void on_string(py *P, uint32_t n)
{
    py_str s;
    if (P->quiet || !P->artifacts || !P->artifacts[0] || P->in_main)
        return;
    strings_value(P, n, &s, 0);
    for (char *c = s.text; *c; c++)
        if (*c == '\\')
            *c = '/';
    size_t k = strlen(P->artifacts);
    for (const char *p = strstr(s.text, P->artifacts); p; p = strstr(p + 1, P->artifacts))
        if ((p == s.text || p[-1] == '/') && (p[k] == '\0' || p[k] == '/')) {
            fact(P, FACT_ARTIFACTS, 0, n, s.text, NULL);
            return;
        }
}

static void on_yield(py *P)
{
    tf_func *fn = &P->f->funcs[P->w.func];
    if (P->w.func && !(fn->flags & FN_YIELDS)) {
        fn->flags |= FN_YIELDS;
        fn->yield_state = P->w.state;
    }
}

static void visit_lambda(py *P, uint32_t n)
{
    push_scope(P, false);
    for (uint32_t p = NODE(P, kid(P, n, 0))->kid; p; p = NODE(P, p)->next)
        if (kind(P, kid(P, p, 0)) == N_NAME)
            bind_unknown(P, text_of(P, kid(P, p, 0)), len_of(P, kid(P, p, 0)));
    visit(P, kid(P, n, 1));
    P->n_scopes--;
}

/* Every expression node below N: calls, strings, bindings by := and comprehensions. */
static void visit(py *P, uint32_t n)
{
    if (!n)
        return;
    switch (kind(P, n)) {
    case N_CALL:
        on_call(P, n);
        return;
    case N_STRING:
    case N_CONCAT:
        on_string(P, n);
        break; /* f-string fields hold code */
    case N_LAMBDA:
        visit_lambda(P, n);
        return;
    case N_NAMED: {
        tf_pathval v;
        visit(P, kid(P, n, 1));
        eval(P, kid(P, n, 1), 0, &v);
        bind_target(P, kid(P, n, 0), &v, 0);
        return;
    }
    case N_COMPFOR:
        bind_target(P, kid(P, n, 0), &(tf_pathval){.kind = TF_PATH_UNKNOWN}, 0);
        break;
    case N_YIELD:
        on_yield(P);
        break;
    default:
        break;
    }
    for (uint32_t k = NODE(P, n)->kid; k; k = NODE(P, k)->next)
        visit(P, k);
}

static void statements(py *P, uint32_t block);

/* Walk BLOCK from state FROM; the state after it (and whether it ends in return/raise). */
static uint32_t branch(py *P, uint32_t block, uint32_t from, bool *dead)
{
    P->w.state = from;
    P->w.dead = false;
    statements(P, block);
    *dead = P->w.dead;
    P->w.dead = false;
    return P->w.state;
}

/* if __name__ == "__main__": code a test runner never runs. */
static bool is_main_guard(py *P, uint32_t test)
{
    if (kind(P, test) != N_COMPARE)
        return false;
    uint32_t l = kid(P, test, 0), r = kid(P, test, 1);
    return (text_is(P, l, "__name__") &&
            (text_is(P, r, "\"__main__\"") || text_is(P, r, "'__main__'"))) ||
           (text_is(P, r, "__name__") &&
            (text_is(P, l, "\"__main__\"") || text_is(P, l, "'__main__'")));
}

static void on_if(py *P, uint32_t n)
{
    uint32_t test = kid(P, n, 0), body = kid(P, n, 1), orelse = kid(P, n, 2);
    visit(P, test);
    uint32_t from = P->w.state;
    bool dead1, dead2 = false, was_main = P->in_main;
    P->in_main |= is_main_guard(P, test);
    uint32_t s1 = branch(P, body, from, &dead1);
    P->in_main = was_main;
    uint32_t s2 = from;
    if (orelse)
        s2 = branch(P, orelse, from, &dead2);
    P->w.dead = dead1 && dead2;
    P->w.state = dead1 ? s2 : dead2 ? s1 : join_states(P, s1, s2);
}

/* Loops: the body may run or not; the state after is either. */
static void on_loop(py *P, uint32_t n)
{
    bool is_for = kind(P, n) == N_FOR, dead;
    uint32_t body = kid(P, n, is_for ? 2 : 1), orelse = kid(P, n, is_for ? 3 : 2);
    if (is_for) {
        visit(P, kid(P, n, 1));
        bind_target(P, kid(P, n, 0), &(tf_pathval){.kind = TF_PATH_UNKNOWN}, 0);
    } else {
        visit(P, kid(P, n, 0));
    }
    uint32_t from = P->w.state, s1 = branch(P, body, from, &dead);
    P->w.state = dead ? from : join_states(P, from, s1);
    if (orelse)
        P->w.state = branch(P, orelse, P->w.state, &dead), P->w.dead = dead;
}

/* try: the handlers run from the state before (they are error paths: the state after the
 * statement is the body's, then else's, then finally's). */
static void on_try(py *P, uint32_t n)
{
    uint32_t from = P->w.state, body = kid(P, n, 0);
    bool dead, body_dead;
    uint32_t s = branch(P, body, from, &body_dead);
    for (uint32_t k = NODE(P, body)->next; k; k = NODE(P, k)->next) {
        if (kind(P, k) == N_HANDLER) {
            visit(P, kid(P, k, 0));
            if (kind(P, kid(P, k, 1)) == N_NAME)
                bind_unknown(P, text_of(P, kid(P, k, 1)), len_of(P, kid(P, k, 1)));
            branch(P, kid(P, k, 2), from, &dead);
        } else if (NODE(P, k)->flags == BLOCK_ELSE) {
            s = branch(P, k, s, &body_dead);
        } else { /* finally */
            s = branch(P, k, s, &dead);
            body_dead |= dead;
        }
    }
    P->w.state = s;
    P->w.dead = body_dead;
}

/* Context managers that do not touch the working directory: no state for them. */
static bool plain_cm(const char *name)
{
    static const char *const tails[] = {"open",
                                        "raises",
                                        "assertRaises",
                                        "assertRaisesRegex",
                                        "assertWarns",
                                        "assertWarnsRegex",
                                        "assertLogs",
                                        "assertNoLogs",
                                        "subTest",
                                        "patch",
                                        "object",
                                        "dict",
                                        "catch_warnings",
                                        "suppress",
                                        "redirect_stdout",
                                        "redirect_stderr",
                                        "warns",
                                        "deprecated_call",
                                        "lock",
                                        "Lock",
                                        "RLock",
                                        "TemporaryDirectory",
                                        "NamedTemporaryFile",
                                        "TemporaryFile",
                                        "ExitStack",
                                        "captured_stdout",
                                        "captured_stderr",
                                        NULL};
    return name_in(last_part(name), tails);
}

/* One with item: the state inside its block. */
static uint32_t with_item(py *P, uint32_t item)
{
    uint32_t e = kid(P, item, 0), target = kid(P, item, 1);
    visit(P, e);
    tf_pathval v;
    tf_pv_unknown(&v);
    uint32_t state = P->w.state;
    char name[PY_NAME_MAX * 2];
    if (kind(P, e) == N_CALL && canonical(P, kid(P, e, 0), name, sizeof name) && !plain_cm(name)) {
        uint32_t fn = kid(P, e, 0), a = 0;
        if (!strcmp(last_part(name), "as_cwd") && kind(P, fn) == N_ATTR) {
            eval(P, kid(P, fn, 0), 0, &v); /* py.path: with tmpdir.as_cwd() */
            state = new_state(P, (tf_state){.kind = ST_SET, .value = tf_facts_path(P->f, &v)});
        } else {
            if (get_arg(P, kid(P, e, 1), 0, NULL, &a) == ARG_FOUND)
                eval(P, a, 0, &v);
            state = new_state(P, (tf_state){.kind = ST_EFFECT,
                                            .in_with = 1,
                                            .a = P->w.state,
                                            .callee = pool(P, name),
                                            .value = tf_facts_path(P->f, &v)});
        }
    }
    if (target) {
        tf_pathval r;
        eval(P, e, 0, &r);
        if (kind(P, e) != N_CALL || !text_is(P, kid(P, kid(P, e, 0), 1), "open"))
            bind_target(P, target, &r, 0);
        else
            bind_target(P, target, &(tf_pathval){.kind = TF_PATH_UNKNOWN}, 0);
    }
    return state;
}

static void on_with(py *P, uint32_t n)
{
    uint32_t before = P->w.state, k = NODE(P, n)->kid;
    for (; kind(P, k) == N_WITHITEM; k = NODE(P, k)->next)
        P->w.state = with_item(P, k);
    bool dead;
    branch(P, k, P->w.state, &dead);
    P->w.state = before; /* the block ended: its working directory is restored */
    P->w.dead = dead;
}

/* Names from @pytest.mark.usefixtures("a", "b"), comma-separated into OUT. */
static void usefixtures_names(py *P, uint32_t call, char *out, size_t len)
{
    size_t have = strlen(out);
    for (uint32_t a = NODE(P, kid(P, call, 1))->kid; a; a = NODE(P, a)->next) {
        py_str s;
        const char *t = literal_arg(P, a, &s);
        if (t && have + strlen(t) + 2 < len)
            have += (size_t)snprintf(out + have, len - have, "%s%s", have ? "," : "", t);
    }
}

typedef struct decor {
    uint16_t flags;
    char fixture[PY_NAME_MAX];
    char usefixtures[256];
} decor;

static bool is_true(py *P, uint32_t n)
{
    return kind(P, n) == N_CONST && NODE(P, n)->op == KW_TRUE;
}

static void decorators(py *P, uint32_t decs, decor *d)
{
    for (uint32_t e = NODE(P, decs)->kid; e; e = NODE(P, e)->next) {
        uint32_t callee = kind(P, e) == N_CALL ? kid(P, e, 0) : e;
        char name[PY_NAME_MAX * 2];
        if (!canonical(P, callee, name, sizeof name))
            continue;
        const char *tail = last_part(name);
        if (!strcmp(name, "contextlib.contextmanager") || !strcmp(tail, "contextmanager") ||
            !strcmp(tail, "asynccontextmanager"))
            d->flags |= FN_CM;
        if (!strcmp(name, "pytest.fixture") || !strcmp(name, "pytest.yield_fixture") ||
            !strcmp(name, "fixture") || !strcmp(name, "pytest_asyncio.fixture")) {
            d->flags |= FN_FIXTURE;
            uint32_t a = 0;
            if (kind(P, e) == N_CALL) {
                if (get_arg(P, kid(P, e, 1), -1, "autouse", &a) == ARG_FOUND && is_true(P, a))
                    d->flags |= FN_AUTOUSE;
                py_str s;
                const char *t;
                if (get_arg(P, kid(P, e, 1), -1, "name", &a) == ARG_FOUND &&
                    (t = literal_arg(P, a, &s)))
                    snprintf(d->fixture, sizeof d->fixture, "%s", t);
            }
        }
        if (!strcmp(tail, "usefixtures") && kind(P, e) == N_CALL)
            usefixtures_names(P, e, d->usefixtures, sizeof d->usefixtures);
    }
}

static bool is_setup(const char *name)
{
    static const char *const names[] = {
        "setUp",       "setup_method", "setup",          "setUpClass", "setup_class",
        "setUpModule", "setup_module", "setup_function", "asyncSetUp", NULL};
    return name_in(name, names);
}

/* Parameter names, comma-separated; each bound to its parameter value. */
static void bind_params(py *P, uint32_t params, char *out, size_t len)
{
    size_t have = 0;
    int i = 0;
    out[0] = '\0';
    for (uint32_t p = NODE(P, params)->kid; p; p = NODE(P, p)->next, i++) {
        uint32_t nm = kid(P, p, 0);
        if (kind(P, nm) != N_NAME)
            continue;
        tf_pathval v;
        tf_pv_unknown(&v);
        v.kind = TF_PATH_PARAM;
        v.up = i;
        bind(P, text_of(P, nm), len_of(P, nm), &v);
        if (have + len_of(P, nm) + 2 < len)
            have += (size_t)snprintf(out + have, len - have, "%s%.*s", have ? "," : "",
                                     (int)len_of(P, nm), text_of(P, nm));
    }
}

static void on_funcdef(py *P, uint32_t n)
{
    uint32_t nm = kid(P, n, 1), params = kid(P, n, 2), body = kid(P, n, 3);
    decor d = {0};
    decorators(P, kid(P, n, 0), &d);
    char name[PY_NAME_MAX], plist[512];
    snprintf(name, sizeof name, "%.*s", (int)len_of(P, nm) < PY_NAME_MAX ? (int)len_of(P, nm) : 0,
             text_of(P, nm));
    bool nested = P->w.func != 0 && !P->cls;
    uint16_t flags = d.flags | (nested ? FN_NESTED : 0) | (P->in_main ? FN_MAIN : 0);
    if (!strncmp(name, "test", 4) && !(flags & FN_FIXTURE))
        flags |= FN_TEST;
    if (is_setup(name))
        flags |= FN_SETUP;
    for (uint32_t k = NODE(P, kid(P, n, 0))->kid; k; k = NODE(P, k)->next)
        visit(P, k);
    fn_walk saved = P->w;
    uint32_t parent_state = P->w.state;
    tf_func fn = {.name = pool(P, name),
                  .cls = P->cls,
                  .flags = flags,
                  .fixture = pool(P, d.fixture[0] ? d.fixture : name),
                  .usefixtures = pool(P, d.usefixtures)};
    uint32_t idx = tf_facts_add_func(P->f, &fn);
    if (!idx)
        return;
    P->w = (fn_walk){.func = idx};
    P->w.state = new_state(P, nested ? (tf_state){.kind = ST_INHERIT, .a = parent_state}
                                     : (tf_state){.kind = ST_ENTRY, .a = idx});
    uint32_t cls = P->cls;
    P->cls = 0;
    push_scope(P, false);
    bind_params(P, params, plist, sizeof plist);
    P->f->funcs[idx].params = pool(P, plist);
    P->f->funcs[idx].entry = P->w.state;
    statements(P, body);
    uint32_t exit = P->w.state; /* falling off the end, or (never returning) the last state */
    if (P->w.has_exit)
        exit = P->w.dead ? P->w.exit : join_states(P, P->w.exit, P->w.state);
    P->f->funcs[idx].exit_state = exit;
    if (!(P->f->funcs[idx].flags & FN_YIELDS))
        P->f->funcs[idx].yield_state = P->f->funcs[idx].exit_state;
    P->n_scopes--;
    P->cls = cls;
    P->w = saved;
    bind_unknown(P, name, strlen(name));
}

static void on_classdef(py *P, uint32_t n)
{
    uint32_t nm = kid(P, n, 1), bases = kid(P, n, 2), body = kid(P, n, 3);
    decor d = {0};
    decorators(P, kid(P, n, 0), &d);
    char blist[512] = "";
    size_t have = 0;
    for (uint32_t b = NODE(P, bases)->kid; b; b = NODE(P, b)->next) {
        char name[PY_NAME_MAX * 2];
        if (kind(P, b) != N_KWARG && canonical(P, b, name, sizeof name) &&
            have + strlen(name) + 2 < sizeof blist)
            have +=
                (size_t)snprintf(blist + have, sizeof blist - have, "%s%s", have ? "," : "", name);
    }
    visit(P, bases);
    tf_class c = {.name = tf_facts_str(P->f, text_of(P, nm), len_of(P, nm)),
                  .bases = pool(P, blist),
                  .usefixtures = pool(P, d.usefixtures)};
    tf_facts_add_class(P->f, &c);
    uint32_t cls = P->cls;
    P->cls = c.name;
    push_scope(P, true);
    statements(P, body);
    P->n_scopes--;
    P->cls = cls;
    bind_unknown(P, text_of(P, nm), len_of(P, nm));
}

/* pytestmark = pytest.mark.usefixtures("x") at module level. */
static void module_marks(py *P, uint32_t n)
{
    uint32_t target = kid(P, n, 0), value = NODE(P, target)->next;
    if (P->w.func || !text_is(P, target, "pytestmark") || kind(P, value) != N_CALL)
        return;
    char buf[256] = "", name[PY_NAME_MAX * 2];
    if (canonical(P, kid(P, value, 0), name, sizeof name) &&
        !strcmp(last_part(name), "usefixtures"))
        usefixtures_names(P, value, buf, sizeof buf);
    if (buf[0])
        P->f->module_usefixtures = pool(P, buf);
}

/* del env["PYTHONDONTWRITEBYTECODE"] */
static void on_del(py *P, uint32_t n)
{
    uint32_t t = kid(P, n, 0);
    for (uint32_t e = kind(P, t) == N_TUPLE ? NODE(P, t)->kid : t; e;
         e = kind(P, t) == N_TUPLE ? NODE(P, e)->next : 0)
        if (kind(P, e) == N_SUBSCRIPT && is_bytecode_var(P, kid(P, e, 1)))
            strip_env(P, kid(P, e, 0));
    visit(P, t);
}

static void statement(py *P, uint32_t n)
{
    switch (kind(P, n)) {
    case N_EXPR_STMT: {
        uint32_t e = kid(P, n, 0);
        if (kind(P, e) == N_STRING || kind(P, e) == N_CONCAT)
            return; /* a docstring */
        visit(P, e);
        if (kind(P, e) == N_CALL)
            call_effect(P, e);
        return;
    }
    case N_ASSIGN:
        for (uint32_t k = NODE(P, n)->kid; k; k = NODE(P, k)->next)
            visit(P, k);
        on_assignment(P, n);
        module_marks(P, n);
        return;
    case N_ANNASSIGN: {
        uint32_t value = kid(P, n, 2);
        visit(P, value);
        if (value) {
            tf_pathval v;
            eval(P, value, 0, &v);
            bind_target(P, kid(P, n, 0), &v, 0);
        }
        return;
    }
    case N_AUGASSIGN:
        visit(P, kid(P, n, 1));
        on_augmented(P, n);
        return;
    case N_RETURN:
    case N_RAISE:
        visit(P, kid(P, n, 0));
        visit(P, kid(P, n, 1));
        if (kind(P, n) == N_RETURN) { /* a raise leaves by the error path: no exit state */
            P->w.exit = P->w.has_exit ? join_states(P, P->w.exit, P->w.state) : P->w.state;
            P->w.has_exit = true;
        }
        P->w.dead = true;
        return;
    case N_DEL:
        on_del(P, n);
        return;
    case N_IMPORT:
    case N_FROM_IMPORT:
        on_import(P, n, false);
        return;
    case N_IF:
        on_if(P, n);
        return;
    case N_WHILE:
    case N_FOR:
        on_loop(P, n);
        return;
    case N_TRY:
        on_try(P, n);
        return;
    case N_WITH:
        on_with(P, n);
        return;
    case N_FUNCDEF:
        on_funcdef(P, n);
        return;
    case N_CLASSDEF:
        on_classdef(P, n);
        return;
    case N_MATCH: {
        uint32_t from = P->w.state, after = from;
        bool dead;
        visit(P, kid(P, n, 0));
        for (uint32_t c = NODE(P, kid(P, n, 0))->next; c; c = NODE(P, c)->next) {
            visit(P, kid(P, c, 0));
            after = join_states(P, after, branch(P, kid(P, c, 1), from, &dead));
        }
        P->w.state = after;
        return;
    }
    default:
        for (uint32_t k = NODE(P, n)->kid; k; k = NODE(P, k)->next)
            visit(P, k);
    }
}

static void statements(py *P, uint32_t block)
{
    for (uint32_t s = block ? NODE(P, block)->kid : 0; s && !P->oom && !P->f->oom;
         s = NODE(P, s)->next)
        statement(P, s);
}

/* Module-level names are visible in every function, including those defined above the
 * assignment: imports and constants are bound before the walk. Constants are exported. */
static void prepass(py *P, uint32_t module)
{
    for (uint32_t s = NODE(P, module)->kid; s; s = NODE(P, s)->next) {
        int k = kind(P, s);
        if (k == N_IMPORT || k == N_FROM_IMPORT)
            on_import(P, s, true);
        else if (k == N_ASSIGN)
            on_assignment(P, s);
    }
    for (uint32_t s = NODE(P, module)->kid; s; s = NODE(P, s)->next) {
        if (kind(P, s) != N_ASSIGN || kind(P, kid(P, s, 0)) != N_NAME)
            continue;
        tf_pathval v;
        uint32_t t = kid(P, s, 0);
        lookup(P, text_of(P, t), len_of(P, t), &v);
        if (v.kind == TF_PATH_UNKNOWN || v.kind == TF_PATH_PARAM || v.kind == TF_PATH_CWD)
            continue;
        tf_export e = {.name = tf_facts_str(P->f, text_of(P, t), len_of(P, t)),
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

static void suppressions(py *P)
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

static void syntax_error(py *P)
{
    if (!P->t->has_error)
        return;
    tf_fact x = {.kind = FACT_SYNTAX, .op = pool(P, P->t->error_msg)};
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
    py P = {.t = &t, .src = src, .f = out, .artifacts = artifacts};
    if (rc == 0 && tf_facts_init(&P.scratch) == 0) {
        push_scope(&P, false);
        prepass(&P, t.root);
        statements(&P, t.root);
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

const tf_audit_lang tf_audit_python = {"python", py_matches, py_collected, py_scan};
