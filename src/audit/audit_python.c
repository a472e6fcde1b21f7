#include "audit_python.h"

#include "base/vec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_python(void);

/* The node kinds the walk cares about. Several grammar symbols can share one
 * name (aliases), so kinds are looked up by symbol id in a table built once per parser. */
enum py_kind {
    K_OTHER,
    K_IDENT,
    K_STRING,
    K_CONCAT,
    K_STRING_START,
    K_STRING_CONTENT,
    K_INTERP,
    K_CALL,
    K_ATTR,
    K_ARGS,
    K_KWARG,
    K_LIST_SPLAT,
    K_DICT_SPLAT,
    K_BINOP,
    K_PAREN,
    K_SUBSCRIPT,
    K_INTEGER,
    K_NONE,
    K_ASSIGN,
    K_AUGASSIGN,
    K_NAMED,
    K_EXPRSTMT,
    K_FUNCDEF,
    K_LAMBDA,
    K_CLASSDEF,
    K_MODULE,
    K_IMPORT,
    K_IMPORT_FROM,
    K_ALIASED,
    K_DOTTED,
    K_COMMENT,
    K_FOR,
    K_FOR_IN,
    K_AS_TARGET,
    K_PARAMS,
    K_LAMBDA_PARAMS,
    K_PATTERN_LIST,
    K_TUPLE_PATTERN,
    K_LIST_PATTERN,
    K_EXPR_LIST,
    K_COUNT
};

static const char *const kind_names[K_COUNT] = {
    [K_IDENT] = "identifier",
    [K_STRING] = "string",
    [K_CONCAT] = "concatenated_string",
    [K_STRING_START] = "string_start",
    [K_STRING_CONTENT] = "string_content",
    [K_INTERP] = "interpolation",
    [K_CALL] = "call",
    [K_ATTR] = "attribute",
    [K_ARGS] = "argument_list",
    [K_KWARG] = "keyword_argument",
    [K_LIST_SPLAT] = "list_splat",
    [K_DICT_SPLAT] = "dictionary_splat",
    [K_BINOP] = "binary_operator",
    [K_PAREN] = "parenthesized_expression",
    [K_SUBSCRIPT] = "subscript",
    [K_INTEGER] = "integer",
    [K_NONE] = "none",
    [K_ASSIGN] = "assignment",
    [K_AUGASSIGN] = "augmented_assignment",
    [K_NAMED] = "named_expression",
    [K_EXPRSTMT] = "expression_statement",
    [K_FUNCDEF] = "function_definition",
    [K_LAMBDA] = "lambda",
    [K_CLASSDEF] = "class_definition",
    [K_MODULE] = "module",
    [K_IMPORT] = "import_statement",
    [K_IMPORT_FROM] = "import_from_statement",
    [K_ALIASED] = "aliased_import",
    [K_DOTTED] = "dotted_name",
    [K_COMMENT] = "comment",
    [K_FOR] = "for_statement",
    [K_FOR_IN] = "for_in_clause",
    [K_AS_TARGET] = "as_pattern_target",
    [K_PARAMS] = "parameters",
    [K_LAMBDA_PARAMS] = "lambda_parameters",
    [K_PATTERN_LIST] = "pattern_list",
    [K_TUPLE_PATTERN] = "tuple_pattern",
    [K_LIST_PATTERN] = "list_pattern",
    [K_EXPR_LIST] = "expression_list",
};

enum py_field {
    F_FUNCTION,
    F_ARGUMENTS,
    F_OBJECT,
    F_ATTRIBUTE,
    F_LEFT,
    F_RIGHT,
    F_NAME,
    F_VALUE,
    F_ALIAS,
    F_MODULE_NAME,
    F_OPERATOR,
    F_PARAMETERS,
    F_SUBSCRIPT,
    F_COUNT
};

static const char *const field_names[F_COUNT] = {
    "function", "arguments", "object",      "attribute", "left",       "right",     "name",
    "value",    "alias",     "module_name", "operator",  "parameters", "subscript",
};

/* Expressions nest; the evaluator gives up (unknown) beyond this depth. */
#define PY_MAX_EVAL_DEPTH 48
#define PY_MAX_SCOPES 64
#define PY_NAME_MAX 96

typedef struct py_binding {
    char name[PY_NAME_MAX]; /* "p", or a dotted target like "self.cfg" */
    tf_pathval val;
} py_binding;

typedef struct py_scope {
    py_binding *v;
    size_t n, cap;
    uint32_t depth;   /* tree depth of the node that opened it */
    bool cwd_changed; /* after os.chdir/monkeypatch.chdir/change_cwd: relative paths are unknown */
} py_scope;

typedef struct py_alias {
    char name[PY_NAME_MAX];   /* the local name */
    char target[PY_NAME_MAX]; /* the dotted name it stands for */
} py_alias;

typedef struct py_state {
    TSParser *parser;
    uint8_t *kinds; /* symbol id -> enum py_kind */
    uint32_t n_symbols;
    TSFieldId fields[F_COUNT];
    /* per file */
    const char *src;
    size_t len;
    tf_audit_file *af;
    py_scope scopes[PY_MAX_SCOPES];
    int n_scopes;
    py_alias *aliases;
    size_t n_aliases, cap_aliases;
    bool quiet; /* inside a call whose strings are messages, not paths */
    uint32_t quiet_depth;
    bool error_pending, error_done; /* the innermost first ERROR node is the one reported */
    TSNode error_node;
    uint32_t error_depth;
} py_state;

/* Null nodes (a missing field) are safe everywhere: tree-sitter 0.20 crashes on them. */
static enum py_kind kind_of(const py_state *st, TSNode n)
{
    if (ts_node_is_null(n))
        return K_OTHER;
    TSSymbol s = ts_node_symbol(n);
    return s < st->n_symbols ? (enum py_kind)st->kinds[s] : K_OTHER;
}

static TSNode field(const py_state *st, TSNode n, enum py_field f)
{
    if (ts_node_is_null(n))
        return n;
    return ts_node_child_by_field_id(n, st->fields[f]);
}

static size_t node_len(TSNode n)
{
    if (ts_node_is_null(n))
        return 0;
    return ts_node_end_byte(n) - ts_node_start_byte(n);
}

static const char *node_text(const py_state *st, TSNode n)
{
    return st->src + ts_node_start_byte(n);
}

/* Does node N's source text equal S? */
static bool text_is(const py_state *st, TSNode n, const char *s)
{
    size_t len = node_len(n);
    return !ts_node_is_null(n) && strlen(s) == len && !memcmp(node_text(st, n), s, len);
}

static tf_pos pos_of(const py_state *st, TSNode n)
{
    TSPoint p = ts_node_start_point(n);
    uint32_t start = ts_node_start_byte(n);
    uint32_t line_start = start >= p.column ? start - p.column : 0;
    int col = 1;
    for (uint32_t i = line_start; i < start && i < st->len; i++)
        col += ((unsigned char)st->src[i] & 0xC0) != 0x80; /* count UTF-8 characters */
    return (tf_pos){(int)p.row + 1, col, (int)ts_node_end_point(n).row + 1};
}

/* ---- scopes and names ---- */

static void bind(py_state *st, const char *name, size_t len, const tf_pathval *val)
{
    if (st->n_scopes == 0 || len == 0 || len >= PY_NAME_MAX)
        return;
    py_scope *sc = &st->scopes[st->n_scopes - 1];
    for (size_t i = sc->n; i-- > 0;) /* rebinding replaces: lookups stay linear in names */
        if (!strncmp(sc->v[i].name, name, len) && sc->v[i].name[len] == '\0') {
            sc->v[i].val = *val;
            return;
        }
    py_binding *nv = vec_grow(sc->v, &sc->cap, sc->n, sizeof *nv);
    if (!nv)
        return; /* the name stays unknown: fewer findings, never a wrong one */
    sc->v = nv;
    py_binding *b = &sc->v[sc->n++];
    memcpy(b->name, name, len);
    b->name[len] = '\0';
    b->val = *val;
}

/* Innermost scope first, latest binding first: the value a name had last. */
static bool lookup(const py_state *st, const char *name, size_t len, tf_pathval *out)
{
    for (int s = st->n_scopes - 1; s >= 0; s--)
        for (size_t i = st->scopes[s].n; i-- > 0;) {
            const py_binding *b = &st->scopes[s].v[i];
            if (strlen(b->name) == len && !memcmp(b->name, name, len)) {
                *out = b->val;
                return true;
            }
        }
    return false;
}

static void push_scope(py_state *st, uint32_t depth)
{
    if (st->n_scopes == PY_MAX_SCOPES)
        return; /* deeper nesting shares the innermost scope */
    py_scope *sc = &st->scopes[st->n_scopes++];
    sc->n = 0;
    sc->depth = depth;
    sc->cwd_changed = false;
}

static void add_alias(py_state *st, const char *name, size_t nlen, const char *target, size_t tlen)
{
    if (nlen == 0 || nlen >= PY_NAME_MAX || tlen >= PY_NAME_MAX)
        return;
    py_alias *nv = vec_grow(st->aliases, &st->cap_aliases, st->n_aliases, sizeof *nv);
    if (!nv)
        return;
    st->aliases = nv;
    py_alias *a = &st->aliases[st->n_aliases++];
    memcpy(a->name, name, nlen);
    a->name[nlen] = '\0';
    memcpy(a->target, target, tlen);
    a->target[tlen] = '\0';
}

/* What an imported or bare name stands for: "tf" -> "tempfile", "Path" -> "pathlib.Path". */
static const char *resolve_name(const py_state *st, const char *name, size_t len)
{
    static const char *const pathlib_names[] = {"Path",          "PurePath",    "PosixPath",
                                                "PurePosixPath", "WindowsPath", "PureWindowsPath"};
    static const char *const pathlib_full[] = {"pathlib.Path",        "pathlib.PurePath",
                                               "pathlib.PosixPath",   "pathlib.PurePosixPath",
                                               "pathlib.WindowsPath", "pathlib.PureWindowsPath"};
    for (size_t i = st->n_aliases; i-- > 0;)
        if (strlen(st->aliases[i].name) == len && !memcmp(st->aliases[i].name, name, len))
            return st->aliases[i].target;
    for (size_t i = 0; i < sizeof pathlib_names / sizeof *pathlib_names; i++)
        if (strlen(pathlib_names[i]) == len && !memcmp(pathlib_names[i], name, len))
            return pathlib_full[i]; /* snippets often use Path without the import */
    return NULL;
}

/* Write the dotted source text of an identifier/attribute chain ("self.cfg"). */
static bool dotted_raw(const py_state *st, TSNode n, char *out, size_t len, int depth)
{
    enum py_kind k = kind_of(st, n);
    if (k == K_IDENT) {
        size_t l = node_len(n);
        if (l >= len)
            return false;
        memcpy(out, node_text(st, n), l);
        out[l] = '\0';
        return true;
    }
    if (k != K_ATTR || depth > 16 || !dotted_raw(st, field(st, n, F_OBJECT), out, len, depth + 1))
        return false;
    TSNode attr = field(st, n, F_ATTRIBUTE);
    size_t have = strlen(out), l = node_len(attr);
    if (ts_node_is_null(attr) || have + 1 + l >= len)
        return false;
    out[have] = '.';
    memcpy(out + have + 1, node_text(st, attr), l);
    out[have + 1 + l] = '\0';
    return true;
}

/* The canonical dotted name of a callee: its first component resolved through imports. */
static bool canonical(const py_state *st, TSNode n, char *out, size_t len)
{
    char raw[PY_NAME_MAX * 2];
    if (!dotted_raw(st, n, raw, sizeof raw, 0))
        return false;
    size_t first = strcspn(raw, ".");
    const char *target = resolve_name(st, raw, first);
    int w =
        target ? snprintf(out, len, "%s%s", target, raw + first) : snprintf(out, len, "%s", raw);
    return w >= 0 && (size_t)w < len;
}

/* ---- strings ---- */

typedef struct py_str {
    char text[512];
    size_t len;
    bool interpolated; /* an f-string with {...}: text has "{}" where values go */
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

/* Append code point CP as UTF-8. */
static void str_utf8(py_str *s, unsigned long cp)
{
    char b[4];
    size_t n = 0;
    if (cp < 0x80) {
        b[n++] = (char)cp;
    } else if (cp < 0x800) {
        b[n++] = (char)(0xC0 | cp >> 6);
        b[n++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        b[n++] = (char)(0xE0 | cp >> 12);
        b[n++] = (char)(0x80 | (cp >> 6 & 0x3F));
        b[n++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x110000) {
        b[n++] = (char)(0xF0 | cp >> 18);
        b[n++] = (char)(0x80 | (cp >> 12 & 0x3F));
        b[n++] = (char)(0x80 | (cp >> 6 & 0x3F));
        b[n++] = (char)(0x80 | (cp & 0x3F));
    }
    str_put(s, b, n);
}

/* Decode \xHH, \uXXXX, \UXXXXXXXX at P (after the backslash and letter);
 * returns the digits consumed, 0 when malformed. */
static size_t str_hex_escape(py_str *s, const char *p, size_t n, size_t digits)
{
    unsigned long cp = 0;
    if (n < digits)
        return 0;
    for (size_t i = 0; i < digits; i++) {
        char c = p[i];
        int v = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (v < 0)
            return 0;
        cp = cp << 4 | (unsigned long)v;
    }
    str_utf8(s, cp);
    return digits;
}

/* Append string content, decoding the escapes that matter for paths. */
static void str_content(py_str *s, const char *p, size_t n, bool raw)
{
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (!raw && c == '\\' && i + 1 < n) {
            char e = p[++i];
            size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
            size_t used = digits ? str_hex_escape(s, p + i + 1, n - i - 1, digits) : 0;
            if (used) {
                i += used;
                continue;
            }
            c = e == 'n' ? '\n' : e == 't' ? '\t' : e;
            if (!strchr("\\'\"nt", e)) /* keep unknown escapes as written */
                str_put(s, "\\", 1);
        }
        str_put(s, &c, 1);
    }
}

static void string_value(const py_state *st, TSNode n, py_str *s)
{
    bool raw = false;
    uint32_t count = ts_node_child_count(n);
    for (uint32_t i = 0; i < count; i++) {
        TSNode c = ts_node_child(n, i);
        switch (kind_of(st, c)) {
        case K_STRING_START:
            for (size_t j = 0; j < node_len(c); j++)
                raw |= node_text(st, c)[j] == 'r' || node_text(st, c)[j] == 'R';
            break;
        case K_STRING_CONTENT:
            str_content(s, node_text(st, c), node_len(c), raw);
            break;
        case K_INTERP:
            s->interpolated = true;
            str_put(s, "{}", 2);
            break;
        default:
            break;
        }
    }
}

/* The value of a string or an implicit concatenation ("a" "b"). */
static void strings_value(const py_state *st, TSNode n, py_str *s)
{
    memset(s, 0, sizeof *s);
    if (kind_of(st, n) == K_STRING) {
        string_value(st, n, s);
        return;
    }
    uint32_t count = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < count; i++)
        string_value(st, ts_node_named_child(n, i), s);
}

/* ---- arguments ---- */

typedef enum { ARG_ABSENT, ARG_FOUND, ARG_MAYBE } arg_state;

/* Find positional argument POS or keyword KW (either may be -1/NULL). A *args
 * before POS or a **kwargs makes the answer "maybe". */
static arg_state get_arg(const py_state *st, TSNode args, int pos, const char *kw, TSNode *out)
{
    if (ts_node_is_null(args) || kind_of(st, args) != K_ARGS)
        return ARG_ABSENT;
    arg_state none = ARG_ABSENT;
    int at = 0;
    uint32_t count = ts_node_named_child_count(args);
    for (uint32_t i = 0; i < count; i++) {
        TSNode a = ts_node_named_child(args, i);
        enum py_kind k = kind_of(st, a);
        if (k == K_COMMENT)
            continue;
        if (k == K_KWARG) {
            if (kw && text_is(st, field(st, a, F_NAME), kw)) {
                *out = field(st, a, F_VALUE);
                return ts_node_is_null(*out) ? ARG_MAYBE : ARG_FOUND;
            }
        } else if (k == K_DICT_SPLAT) {
            none = ARG_MAYBE;
        } else if (k == K_LIST_SPLAT) {
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

static int positional_count(const py_state *st, TSNode args)
{
    int n = 0;
    uint32_t count = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
    for (uint32_t i = 0; i < count; i++) {
        enum py_kind k = kind_of(st, ts_node_named_child(args, i));
        if (k == K_LIST_SPLAT)
            return -1;
        n += k != K_KWARG && k != K_DICT_SPLAT && k != K_COMMENT;
    }
    return n;
}

/* ---- the evaluator: expression -> abstract path ---- */

static void eval(const py_state *st, TSNode n, int depth, tf_pathval *out);

static void eval_string(const py_state *st, TSNode n, tf_pathval *out)
{
    py_str s;
    strings_value(st, n, &s);
    if (s.interpolated || s.truncated)
        tf_pv_unknown(out);
    else
        tf_pv_literal(out, s.text, s.len, false);
}

/* Join a known value V onto OUT (os.path.join, Path / "x", joinpath). */
static void join_value(tf_pathval *out, const tf_pathval *v)
{
    bool object = out->object;
    if (v->kind == TF_PATH_LITERAL)
        tf_pv_join(out, v->text, strlen(v->text));
    else
        tf_pv_unknown(out);
    if (out->kind != TF_PATH_UNKNOWN)
        out->object = object;
}

/* Evaluate every positional argument from FIRST on and join them onto OUT. */
static void join_args(const py_state *st, TSNode args, int first, int depth, tf_pathval *out)
{
    int n = positional_count(st, args);
    if (n < 0)
        tf_pv_unknown(out);
    for (int i = first; i < n && out->kind != TF_PATH_UNKNOWN; i++) {
        TSNode a;
        tf_pathval v;
        get_arg(st, args, i, NULL, &a);
        eval(st, a, depth + 1, &v);
        join_value(out, &v);
    }
}

static bool name_in(const char *name, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(name, *list))
            return true;
    return false;
}

/* Functions of a dotted name that build or transform a path. */
static bool eval_function(const py_state *st, const char *name, TSNode args, int depth,
                          tf_pathval *out)
{
    static const char *const ctors[] = {"pathlib.Path",
                                        "pathlib.PurePath",
                                        "pathlib.PosixPath",
                                        "pathlib.PurePosixPath",
                                        "pathlib.WindowsPath",
                                        "pathlib.PureWindowsPath",
                                        NULL};
    static const char *const same[] = {
        "os.path.abspath",    "os.path.realpath", "os.path.normpath", "os.fspath", "str",
        "os.path.expanduser", "os.fsencode",      "os.fsdecode",      NULL};
    TSNode a;
    bool has0 = get_arg(st, args, 0, NULL, &a) == ARG_FOUND;
    if (name_in(name, ctors)) {
        tf_pv_literal(out, ".", 1, true);
        if (has0) {
            eval(st, a, depth + 1, out);
            out->object = out->kind != TF_PATH_UNKNOWN;
            join_args(st, args, 1, depth, out);
        }
    } else if (!strcmp(name, "os.path.join") && has0) {
        eval(st, a, depth + 1, out);
        join_args(st, args, 1, depth, out);
        out->object = false;
    } else if (!strcmp(name, "os.path.dirname") && has0) {
        eval(st, a, depth + 1, out);
        tf_pv_parent(out);
        out->object = false;
    } else if (name_in(name, same) && has0) {
        eval(st, a, depth + 1, out);
        out->object = false;
    } else if (!strcmp(name, "os.getcwd")) {
        tf_pv_literal(out, ".", 1, false);
    } else if (!strcmp(name, "pathlib.Path.cwd")) {
        tf_pv_literal(out, ".", 1, true);
    } else if (!strcmp(name, "pathlib.Path.home")) {
        tf_pv_literal(out, "~", 1, true);
    } else {
        return false;
    }
    return true;
}

/* Path methods that return another path: joinpath, with_name, resolve, ... */
static void eval_method(const py_state *st, TSNode call, TSNode fn, int depth, tf_pathval *out)
{
    TSNode attr = field(st, fn, F_ATTRIBUTE), args = field(st, call, F_ARGUMENTS), a;
    eval(st, field(st, fn, F_OBJECT), depth + 1, out);
    if (!out->object || out->kind == TF_PATH_UNKNOWN) {
        tf_pv_unknown(out);
        return;
    }
    tf_pathval v;
    bool has0 = get_arg(st, args, 0, NULL, &a) == ARG_FOUND;
    if (has0)
        eval(st, a, depth + 1, &v);
    if (text_is(st, attr, "joinpath")) {
        join_args(st, args, 0, depth, out);
    } else if ((text_is(st, attr, "with_name") || text_is(st, attr, "with_suffix")) && has0 &&
               v.kind == TF_PATH_LITERAL) {
        if (text_is(st, attr, "with_name"))
            tf_pv_set_name(out, v.text, strlen(v.text));
        else
            tf_pv_set_suffix(out, v.text, strlen(v.text));
    } else if (!text_is(st, attr, "resolve") && !text_is(st, attr, "absolute") &&
               !text_is(st, attr, "expanduser")) {
        tf_pv_unknown(out);
    }
}

static void eval_call(const py_state *st, TSNode n, int depth, tf_pathval *out)
{
    TSNode fn = field(st, n, F_FUNCTION);
    char name[PY_NAME_MAX * 2];
    tf_pv_unknown(out);
    if (canonical(st, fn, name, sizeof name) &&
        eval_function(st, name, field(st, n, F_ARGUMENTS), depth, out))
        return;
    if (kind_of(st, fn) == K_ATTR)
        eval_method(st, n, fn, depth, out);
}

/* x.parent, and a dotted name bound earlier (self.cfg). */
static void eval_attribute(const py_state *st, TSNode n, int depth, tf_pathval *out)
{
    char raw[PY_NAME_MAX];
    if (dotted_raw(st, n, raw, sizeof raw, 0) && lookup(st, raw, strlen(raw), out))
        return;
    if (!text_is(st, field(st, n, F_ATTRIBUTE), "parent")) {
        tf_pv_unknown(out);
        return;
    }
    eval(st, field(st, n, F_OBJECT), depth + 1, out);
    if (out->object)
        tf_pv_parent(out);
    else
        tf_pv_unknown(out);
}

/* x.parents[N] is N + 1 levels up. */
static void eval_subscript(const py_state *st, TSNode n, int depth, tf_pathval *out)
{
    TSNode value = field(st, n, F_VALUE), sub = field(st, n, F_SUBSCRIPT);
    tf_pv_unknown(out);
    if (kind_of(st, value) != K_ATTR || !text_is(st, field(st, value, F_ATTRIBUTE), "parents") ||
        kind_of(st, sub) != K_INTEGER || node_len(sub) > 2)
        return;
    int levels = atoi(node_text(st, sub)) + 1;
    eval(st, field(st, value, F_OBJECT), depth + 1, out);
    if (!out->object) {
        tf_pv_unknown(out);
        return;
    }
    while (levels-- > 0)
        tf_pv_parent(out);
}

/* a / b on paths; a + b on strings. */
static void eval_binop(const py_state *st, TSNode n, int depth, tf_pathval *out)
{
    TSNode op = field(st, n, F_OPERATOR);
    tf_pathval r;
    eval(st, field(st, n, F_LEFT), depth + 1, out);
    eval(st, field(st, n, F_RIGHT), depth + 1, &r);
    if (text_is(st, op, "/") && out->object) {
        join_value(out, &r);
    } else if (text_is(st, op, "+") && !out->object && r.kind == TF_PATH_LITERAL) {
        if (out->kind == TF_PATH_LITERAL && strlen(out->text) + strlen(r.text) < sizeof out->text)
            strcat(out->text, r.text);
        else if (out->kind == TF_PATH_FILE && (r.text[0] == '/' || r.text[0] == '\\'))
            tf_pv_join(out, r.text + 1, strlen(r.text + 1));
        else
            tf_pv_unknown(out);
    } else {
        tf_pv_unknown(out);
    }
}

static void eval(const py_state *st, TSNode n, int depth, tf_pathval *out)
{
    tf_pv_unknown(out);
    if (ts_node_is_null(n) || depth > PY_MAX_EVAL_DEPTH)
        return;
    switch (kind_of(st, n)) {
    case K_STRING:
    case K_CONCAT:
        eval_string(st, n, out);
        break;
    case K_IDENT:
        if (text_is(st, n, "__file__"))
            tf_pv_file(out, false);
        else
            lookup(st, node_text(st, n), node_len(n), out);
        break;
    case K_ATTR:
        eval_attribute(st, n, depth, out);
        break;
    case K_SUBSCRIPT:
        eval_subscript(st, n, depth, out);
        break;
    case K_BINOP:
        eval_binop(st, n, depth, out);
        break;
    case K_PAREN:
        eval(st, ts_node_named_child(n, 0), depth + 1, out);
        break;
    case K_CALL:
        eval_call(st, n, depth, out);
        break;
    default:
        break;
    }
}

/* ---- calls that write ---- */

enum py_mode { MODE_ALWAYS, MODE_OPEN, MODE_OSOPEN };

/* A function whose arguments are written to. Targets: positional index or keyword. */
typedef struct py_writer {
    const char *name;
    enum py_mode mode;
    signed char pos[2];
    const char *kw[2];
} py_writer;

static const py_writer writers[] = {
    {"open", MODE_OPEN, {0, -1}, {"file", NULL}},
    {"io.open", MODE_OPEN, {0, -1}, {"file", NULL}},
    {"builtins.open", MODE_OPEN, {0, -1}, {"file", NULL}},
    {"codecs.open", MODE_OPEN, {0, -1}, {"filename", NULL}},
    {"os.open", MODE_OSOPEN, {0, -1}, {"path", NULL}},
    {"os.remove", MODE_ALWAYS, {0, -1}, {"path", NULL}},
    {"os.unlink", MODE_ALWAYS, {0, -1}, {"path", NULL}},
    {"os.rmdir", MODE_ALWAYS, {0, -1}, {"path", NULL}},
    {"os.removedirs", MODE_ALWAYS, {0, -1}, {"name", NULL}},
    {"os.mkdir", MODE_ALWAYS, {0, -1}, {"path", NULL}},
    {"os.makedirs", MODE_ALWAYS, {0, -1}, {"name", NULL}},
    {"os.truncate", MODE_ALWAYS, {0, -1}, {"path", NULL}},
    {"os.mkfifo", MODE_ALWAYS, {0, -1}, {"path", NULL}},
    {"os.rename", MODE_ALWAYS, {0, 1}, {"src", "dst"}},
    {"os.renames", MODE_ALWAYS, {0, 1}, {"old", "new"}},
    {"os.replace", MODE_ALWAYS, {0, 1}, {"src", "dst"}},
    {"os.symlink", MODE_ALWAYS, {1, -1}, {"dst", NULL}},
    {"os.link", MODE_ALWAYS, {1, -1}, {"dst", NULL}},
    {"shutil.copy", MODE_ALWAYS, {1, -1}, {"dst", NULL}},
    {"shutil.copy2", MODE_ALWAYS, {1, -1}, {"dst", NULL}},
    {"shutil.copyfile", MODE_ALWAYS, {1, -1}, {"dst", NULL}},
    {"shutil.copytree", MODE_ALWAYS, {1, -1}, {"dst", NULL}},
    {"shutil.copymode", MODE_ALWAYS, {1, -1}, {"dst", NULL}},
    {"shutil.copystat", MODE_ALWAYS, {1, -1}, {"dst", NULL}},
    {"shutil.move", MODE_ALWAYS, {0, 1}, {"src", "dst"}},
    {"shutil.rmtree", MODE_ALWAYS, {0, -1}, {"path", NULL}},
};

/* Methods of a path object that write to it (and, for rename/replace, to an argument). */
static const py_writer path_methods[] = {
    {"write_text", MODE_ALWAYS, {-1, -1}, {NULL, NULL}},
    {"write_bytes", MODE_ALWAYS, {-1, -1}, {NULL, NULL}},
    {"touch", MODE_ALWAYS, {-1, -1}, {NULL, NULL}},
    {"mkdir", MODE_ALWAYS, {-1, -1}, {NULL, NULL}},
    {"unlink", MODE_ALWAYS, {-1, -1}, {NULL, NULL}},
    {"rmdir", MODE_ALWAYS, {-1, -1}, {NULL, NULL}},
    {"symlink_to", MODE_ALWAYS, {-1, -1}, {NULL, NULL}},
    {"hardlink_to", MODE_ALWAYS, {-1, -1}, {NULL, NULL}},
    {"rename", MODE_ALWAYS, {0, -1}, {"target", NULL}},
    {"replace", MODE_ALWAYS, {0, -1}, {"target", NULL}},
    {"open", MODE_OPEN, {-1, -1}, {NULL, NULL}},
};

/* tempfile functions; dir_pos is dir='s positional index, -1 for gettempdir. */
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
    {"tempfile.gettempdir", -1},
    {"tempfile.gettempdirb", -1},
};

/* Is this call a write, judging by its mode argument? Unknown modes are not. */
static bool mode_writes(const py_state *st, TSNode args, enum py_mode mode, int pos)
{
    TSNode a;
    if (mode == MODE_ALWAYS)
        return true;
    const char *kw = mode == MODE_OPEN ? "mode" : "flags";
    arg_state s = get_arg(st, args, pos, kw, &a);
    if (s != ARG_FOUND)
        return false; /* absent: open() reads; maybe: unknown */
    if (mode == MODE_OSOPEN) {
        static const char *const flags[] = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"};
        char text[256];
        size_t n = node_len(a) < sizeof text ? node_len(a) : sizeof text - 1;
        memcpy(text, node_text(st, a), n);
        text[n] = '\0';
        for (size_t i = 0; i < sizeof flags / sizeof *flags; i++)
            if (strstr(text, flags[i]))
                return true;
        return false;
    }
    enum py_kind k = kind_of(st, a);
    if (k != K_STRING && k != K_CONCAT)
        return false;
    py_str m;
    strings_value(st, a, &m);
    return !m.interpolated && strpbrk(m.text, "wax+") != NULL;
}

/* Relative paths mean nothing once the code changed directory (pytest's
 * monkeypatch.chdir(tmp_path), CPython's os_helper.change_cwd): not judged. */
static void report_write(py_state *st, tf_pos pos, const char *op, const tf_pathval *v)
{
    bool cwd_changed = false;
    for (int i = 0; i < st->n_scopes; i++)
        cwd_changed |= st->scopes[i].cwd_changed;
    if (cwd_changed && v->kind == TF_PATH_LITERAL && !tf_path_is_absolute(v->text))
        return;
    tf_audit_write(st->af, pos, op, v);
}

/* The first target is reported at the call (where people look, and where a
 * suppression comment goes); a second one (rename's destination) at its argument. */
static void report_arg(py_state *st, TSNode call, TSNode args, int pos, const char *kw,
                       const char *op, bool at_call)
{
    TSNode a;
    tf_pathval v;
    if ((pos < 0 && !kw) || get_arg(st, args, pos, kw, &a) != ARG_FOUND)
        return;
    eval(st, a, 0, &v);
    report_write(st, pos_of(st, at_call ? call : a), op, &v);
}

/* os.* calls with dir_fd= resolve relative paths against a directory fd. */
static bool relative_to_fd(const py_state *st, TSNode args)
{
    static const char *const kws[] = {"dir_fd", "src_dir_fd", "dst_dir_fd"};
    TSNode a;
    for (size_t i = 0; i < sizeof kws / sizeof *kws; i++)
        if (get_arg(st, args, -1, kws[i], &a) != ARG_ABSENT)
            return true;
    return false;
}

/* Calls that change the working directory, for the rest of the enclosing function. */
static bool changes_cwd(const char *name)
{
    static const char *const tails[] = {"chdir", "change_cwd", "temp_cwd", "working_directory",
                                        "pushd", NULL};
    const char *dot = strrchr(name, '.');
    return name_in(dot ? dot + 1 : name, tails);
}

static bool on_writer(py_state *st, TSNode call, const char *name)
{
    TSNode args = field(st, call, F_ARGUMENTS);
    for (size_t i = 0; i < sizeof writers / sizeof *writers; i++) {
        const py_writer *w = &writers[i];
        if (strcmp(name, w->name))
            continue;
        if (relative_to_fd(st, args))
            return true;
        if (mode_writes(st, args, w->mode, 1))
            for (int t = 0; t < 2; t++)
                report_arg(st, call, args, w->pos[t], w->kw[t], w->name, t == 0);
        return true;
    }
    return false;
}

static bool on_temp(py_state *st, TSNode call, const char *name)
{
    TSNode args = field(st, call, F_ARGUMENTS), a;
    for (size_t i = 0; i < sizeof temps / sizeof *temps; i++) {
        if (strcmp(name, temps[i].name))
            continue;
        if (temps[i].dir_pos < 0) {
            tf_audit_temp(st->af, pos_of(st, call), name, TF_TEMP_DIRNAME, false, NULL);
            return true;
        }
        arg_state s = get_arg(st, args, temps[i].dir_pos, "dir", &a);
        tf_pathval dir;
        tf_pv_unknown(&dir);
        if (s == ARG_FOUND && kind_of(st, a) == K_NONE)
            s = ARG_ABSENT; /* dir=None is the system temp dir */
        if (s == ARG_FOUND)
            eval(st, a, 0, &dir);
        tf_audit_temp(st->af, pos_of(st, call), name, TF_TEMP_CREATE, s != ARG_ABSENT, &dir);
        return true;
    }
    return false;
}

/* receiver.method(...) where the receiver is a known path object. */
static void on_path_method(py_state *st, TSNode call, TSNode fn)
{
    TSNode attr = field(st, fn, F_ATTRIBUTE), args = field(st, call, F_ARGUMENTS);
    for (size_t i = 0; i < sizeof path_methods / sizeof *path_methods; i++) {
        const py_writer *w = &path_methods[i];
        if (!text_is(st, attr, w->name))
            continue;
        tf_pathval recv;
        eval(st, field(st, fn, F_OBJECT), 0, &recv);
        if (!recv.object || recv.kind == TF_PATH_UNKNOWN || !mode_writes(st, args, w->mode, 0))
            return;
        report_write(st, pos_of(st, call), w->name, &recv);
        report_arg(st, call, args, w->pos[0], w->kw[0], w->name, false);
        return;
    }
}

/* Calls whose string arguments are messages for people, not paths. */
static bool is_message_call(const char *name)
{
    static const char *const last[] = {"print", "debug",     "info",     "warning", "warn",
                                       "error", "exception", "critical", "log",     "echo",
                                       "fail",  "skip",      "xfail",    "pprint",  NULL};
    const char *dot = strrchr(name, '.');
    const char *tail = dot ? dot + 1 : name;
    size_t n = strlen(tail);
    if (name_in(tail, last) || !strcmp(name, "sys.stdout.write") ||
        !strcmp(name, "sys.stderr.write"))
        return true;
    return (n > 5 && !strcmp(tail + n - 5, "Error")) ||
           (n > 9 && !strcmp(tail + n - 9, "Exception")) ||
           (n > 7 && !strcmp(tail + n - 7, "Warning"));
}

static void on_call(py_state *st, TSNode call, uint32_t depth)
{
    TSNode fn = field(st, call, F_FUNCTION);
    char name[PY_NAME_MAX * 2];
    bool named = canonical(st, fn, name, sizeof name);
    if (named && changes_cwd(name) && st->n_scopes > 0)
        st->scopes[st->n_scopes - 1].cwd_changed = true;
    if (named && (on_temp(st, call, name) || on_writer(st, call, name)))
        return;
    if (named && !st->quiet && is_message_call(name)) {
        st->quiet = true;
        st->quiet_depth = depth;
    }
    if (kind_of(st, fn) == K_ATTR)
        on_path_method(st, call, fn);
}

/* ---- bindings and imports ---- */

/* Bind every name in a target pattern to VAL (unknown for unpacking). */
static void bind_target(py_state *st, TSNode target, const tf_pathval *val, int depth)
{
    char raw[PY_NAME_MAX];
    enum py_kind k = kind_of(st, target);
    if ((k == K_IDENT || k == K_ATTR) && dotted_raw(st, target, raw, sizeof raw, 0)) {
        bind(st, raw, strlen(raw), val);
        return;
    }
    if (depth > 8 || (k != K_PATTERN_LIST && k != K_TUPLE_PATTERN && k != K_LIST_PATTERN &&
                      k != K_AS_TARGET && k != K_FOR_IN))
        return;
    tf_pathval unknown;
    tf_pv_unknown(&unknown);
    uint32_t count = ts_node_named_child_count(target);
    for (uint32_t i = 0; i < count; i++)
        bind_target(st, ts_node_named_child(target, i), &unknown, depth + 1);
}

static void on_assignment(py_state *st, TSNode n)
{
    TSNode left = field(st, n, F_LEFT), right = field(st, n, F_RIGHT);
    tf_pathval v;
    for (int i = 0; i < 8 && kind_of(st, right) == K_ASSIGN; i++) /* a = b = value */
        right = field(st, right, F_RIGHT);
    enum py_kind lk = kind_of(st, left);
    if ((lk == K_PATTERN_LIST || lk == K_TUPLE_PATTERN) && kind_of(st, right) == K_EXPR_LIST &&
        ts_node_named_child_count(left) == ts_node_named_child_count(right)) {
        for (uint32_t i = 0; i < ts_node_named_child_count(left); i++) { /* a, b = x, y */
            eval(st, ts_node_named_child(right, i), 0, &v);
            bind_target(st, ts_node_named_child(left, i), &v, 0);
        }
        return;
    }
    eval(st, right, 0, &v);
    bind_target(st, left, &v, 0);
}

static void on_augmented(py_state *st, TSNode n)
{
    TSNode left = field(st, n, F_LEFT);
    tf_pathval v, r;
    eval(st, left, 0, &v);
    eval(st, field(st, n, F_RIGHT), 0, &r);
    if (text_is(st, field(st, n, F_OPERATOR), "/=") && v.object)
        join_value(&v, &r);
    else
        tf_pv_unknown(&v);
    bind_target(st, left, &v, 0);
}

static void on_params(py_state *st, TSNode params)
{
    tf_pathval unknown;
    tf_pv_unknown(&unknown);
    uint32_t count = ts_node_is_null(params) ? 0 : ts_node_named_child_count(params);
    for (uint32_t i = 0; i < count; i++) {
        TSNode p = ts_node_named_child(params, i);
        TSNode name = kind_of(st, p) == K_IDENT ? p : field(st, p, F_NAME);
        if (ts_node_is_null(name) && ts_node_named_child_count(p) > 0)
            name = ts_node_named_child(p, 0); /* typed_parameter, *args, **kwargs */
        if (!ts_node_is_null(name) && kind_of(st, name) == K_IDENT)
            bind(st, node_text(st, name), node_len(name), &unknown);
    }
}

static void import_one(py_state *st, TSNode item, const char *module, size_t mlen)
{
    char target[PY_NAME_MAX * 2];
    TSNode name = item, alias = {0};
    if (kind_of(st, item) == K_ALIASED) {
        name = field(st, item, F_NAME);
        alias = field(st, item, F_ALIAS);
    }
    if (ts_node_is_null(name) || node_len(name) >= PY_NAME_MAX)
        return;
    int w = mlen
                ? snprintf(target, sizeof target, "%.*s.%.*s", (int)mlen, module,
                           (int)node_len(name), node_text(st, name))
                : snprintf(target, sizeof target, "%.*s", (int)node_len(name), node_text(st, name));
    if (w < 0 || (size_t)w >= sizeof target)
        return;
    if (!ts_node_is_null(alias))
        add_alias(st, node_text(st, alias), node_len(alias), target, (size_t)w);
    else if (mlen) /* from m import x: x means m.x */
        add_alias(st, node_text(st, name), node_len(name), target, (size_t)w);
}

static void on_import(py_state *st, TSNode n, bool from)
{
    TSNode module = field(st, n, F_MODULE_NAME);
    if (from && (ts_node_is_null(module) || kind_of(st, module) != K_DOTTED))
        return; /* relative imports name project modules, not os/shutil/tempfile */
    uint32_t count = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < count; i++) {
        TSNode c = ts_node_named_child(n, i);
        enum py_kind k = kind_of(st, c);
        if ((k == K_DOTTED || k == K_ALIASED) && !(from && ts_node_eq(c, module)))
            import_one(st, c, from ? node_text(st, module) : "", from ? node_len(module) : 0);
    }
}

/* ---- the walk ---- */

static void on_string(py_state *st, TSNode n)
{
    py_str s;
    if (st->quiet)
        return;
    strings_value(st, n, &s);
    tf_audit_literal(st->af, pos_of(st, n), s.text, s.len);
}

static void on_comment(py_state *st, TSNode n)
{
    uint32_t start = ts_node_start_byte(n);
    bool own_line = true;
    for (uint32_t i = start; i > 0 && st->src[i - 1] != '\n'; i--)
        own_line &= st->src[i - 1] == ' ' || st->src[i - 1] == '\t' || st->src[i - 1] == '\f';
    tf_audit_comment(st->af, (int)ts_node_start_point(n).row + 1, node_text(st, n), node_len(n),
                     own_line);
}

static void on_error(py_state *st, TSNode n)
{
    size_t len = node_len(n);
    const char *text = node_text(st, n);
    const char *nl = memchr(text, '\n', len);
    tf_audit_syntax_error(st->af, pos_of(st, n), text, nl ? (size_t)(nl - text) : len);
}

/* A statement that is only a string (a docstring) is documentation, not a path. */
static bool is_bare_string(const py_state *st, TSNode n)
{
    if (ts_node_named_child_count(n) != 1)
        return false;
    enum py_kind k = kind_of(st, ts_node_named_child(n, 0));
    return k == K_STRING || k == K_CONCAT;
}

/* Remember the first error node; it is reported when left, unless a nested
 * one (closer to the real mistake) was seen first. */
static void note_error(py_state *st, TSNode n, uint32_t depth)
{
    if (st->error_done)
        return;
    if (ts_node_symbol(n) == (TSSymbol)-1) {
        st->error_pending = true;
        st->error_node = n;
        st->error_depth = depth;
    } else if (ts_node_is_missing(n)) {
        on_error(st, n);
        st->error_done = true;
    }
}

/* Nodes that bind names: the value, or unknown for loop and with targets. */
static void enter_binding(py_state *st, TSNode n, enum py_kind k)
{
    tf_pathval v;
    tf_pv_unknown(&v);
    if (k == K_ASSIGN) {
        on_assignment(st, n);
    } else if (k == K_AUGASSIGN) {
        on_augmented(st, n);
    } else if (k == K_NAMED) {
        eval(st, field(st, n, F_VALUE), 0, &v);
        bind_target(st, field(st, n, F_NAME), &v, 0);
    } else if (k == K_FOR || k == K_FOR_IN) {
        bind_target(st, field(st, n, F_LEFT), &v, 0);
    } else if (k == K_AS_TARGET) {
        bind_target(st, n, &v, 0);
    }
}

/* Handle node N on the way down; false means: do not descend into it. */
static bool enter(py_state *st, TSNode n, uint32_t depth)
{
    note_error(st, n, depth);
    enum py_kind k = kind_of(st, n);
    switch (k) {
    case K_FUNCDEF:
    case K_LAMBDA:
        push_scope(st, depth);
        on_params(st, field(st, n, F_PARAMETERS));
        return true;
    case K_CLASSDEF:
        push_scope(st, depth);
        return true;
    case K_IMPORT:
    case K_IMPORT_FROM:
        on_import(st, n, k == K_IMPORT_FROM);
        return false;
    case K_CALL:
        on_call(st, n, depth);
        return true;
    case K_STRING:
        on_string(st, n);
        return true; /* f-string interpolations hold code */
    case K_CONCAT:
        on_string(st, n);
        return false;
    case K_EXPRSTMT:
        return !is_bare_string(st, n);
    case K_COMMENT:
        on_comment(st, n);
        return false;
    default:
        enter_binding(st, n, k);
        return true;
    }
}

/* Leaving the node at DEPTH closes what it opened. */
static void leave(py_state *st, uint32_t depth)
{
    if (st->error_pending && st->error_depth == depth) {
        on_error(st, st->error_node);
        st->error_pending = false;
        st->error_done = true;
    }
    while (st->n_scopes > 1 && st->scopes[st->n_scopes - 1].depth >= depth)
        st->n_scopes--;
    if (st->quiet && st->quiet_depth >= depth)
        st->quiet = false;
}

/* Module-level names are visible in every function, including those defined
 * above the assignment: bind them before the walk. */
static void prepass(py_state *st, TSNode module)
{
    uint32_t count = ts_node_named_child_count(module);
    for (uint32_t i = 0; i < count; i++) {
        TSNode c = ts_node_named_child(module, i);
        enum py_kind k = kind_of(st, c);
        if (k == K_IMPORT || k == K_IMPORT_FROM)
            on_import(st, c, k == K_IMPORT_FROM);
        else if (k == K_EXPRSTMT && ts_node_named_child_count(c) == 1 &&
                 kind_of(st, ts_node_named_child(c, 0)) == K_ASSIGN)
            on_assignment(st, ts_node_named_child(c, 0));
    }
}

static void walk(py_state *st, TSNode root)
{
    TSTreeCursor c = ts_tree_cursor_new(root);
    uint32_t depth = 0;
    for (;;) {
        TSNode n = ts_tree_cursor_current_node(&c);
        if (enter(st, n, depth) && ts_tree_cursor_goto_first_child(&c)) {
            depth++;
            continue;
        }
        for (;;) {
            leave(st, depth);
            if (ts_tree_cursor_goto_next_sibling(&c))
                break;
            if (depth == 0 || !ts_tree_cursor_goto_parent(&c)) {
                ts_tree_cursor_delete(&c);
                return;
            }
            depth--;
        }
    }
}

static int py_scan(void *state, const char *src, size_t len, tf_audit_file *af)
{
    py_state *st = state;
    if (len > UINT32_MAX)
        return -1;
    TSTree *tree = ts_parser_parse_string(st->parser, NULL, src, (uint32_t)len);
    if (!tree)
        return -1;
    st->src = src;
    st->len = len;
    st->af = af;
    st->n_aliases = 0;
    st->n_scopes = 0;
    st->quiet = false;
    st->error_pending = st->error_done = false;
    push_scope(st, 0);
    TSNode root = ts_tree_root_node(tree);
    prepass(st, root);
    walk(st, root);
    ts_tree_delete(tree);
    st->af = NULL;
    return 0;
}

static void *py_state_new(void)
{
    py_state *st = calloc(1, sizeof *st);
    const TSLanguage *lang = tree_sitter_python();
    if (!st || !(st->parser = ts_parser_new()) || !ts_parser_set_language(st->parser, lang)) {
        if (st && st->parser)
            ts_parser_delete(st->parser);
        free(st);
        return NULL;
    }
    st->n_symbols = ts_language_symbol_count(lang);
    st->kinds = calloc(st->n_symbols, 1);
    for (uint32_t s = 0; st->kinds && s < st->n_symbols; s++) {
        const char *name = ts_language_symbol_name(lang, (TSSymbol)s);
        if (!name || ts_language_symbol_type(lang, (TSSymbol)s) != TSSymbolTypeRegular)
            continue;
        for (int k = 1; k < K_COUNT; k++) /* first-letter check: a parser per fuzz input */
            if (name[0] == kind_names[k][0] && !strcmp(name, kind_names[k]))
                st->kinds[s] = (uint8_t)k;
    }
    for (int f = 0; f < F_COUNT; f++)
        st->fields[f] =
            ts_language_field_id_for_name(lang, field_names[f], (uint32_t)strlen(field_names[f]));
    if (!st->kinds) {
        ts_parser_delete(st->parser);
        free(st);
        return NULL;
    }
    return st;
}

static void py_state_free(void *state)
{
    py_state *st = state;
    if (!st)
        return;
    for (int i = 0; i < PY_MAX_SCOPES; i++)
        free(st->scopes[i].v);
    free(st->aliases);
    free(st->kinds);
    ts_parser_delete(st->parser);
    free(st);
}

static bool py_matches(const char *path)
{
    size_t n = strlen(path);
    return n > 3 && !strcmp(path + n - 3, ".py"); /* stubs (.pyi) never run */
}

const tf_audit_lang tf_audit_python = {"python", py_matches, py_state_new, py_state_free, py_scan};
