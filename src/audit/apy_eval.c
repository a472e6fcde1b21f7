#include "apy_eval.h"

#include "apy_scope.h"
#include "apy_str.h"

#include <stdlib.h>
#include <string.h>

/* Expressions nest; the evaluator gives up (unknown) beyond this depth. */
#define PY_MAX_EVAL_DEPTH 48

/* A string value: a literal (with '*' where fields are unknown), unknown when it starts
 * with an unknown part (it could be absolute). */
static void from_str(const apy_str *s, tf_pathval *out)
{
    tf_pv_unknown(out);
    if (s->truncated || (s->wild && s->text[0] == '*'))
        return;
    tf_pv_literal(out, s->text, s->len, false);
    out->wild = s->wild;
}

/* Join a known value V onto OUT (os.path.join, Path / "x", joinpath). */
void apy_join_value(tf_pathval *out, const tf_pathval *v)
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
static void join_args(apy *P, uint32_t args, int first, int depth, tf_pathval *out)
{
    int n = apy_positional_count(P, args);
    if (n < 0)
        tf_pv_unknown(out);
    for (int i = first; i < n && out->kind != TF_PATH_UNKNOWN; i++) {
        uint32_t a = 0;
        tf_pathval v;
        apy_get_arg(P, args, i, NULL, &a);
        apy_eval(P, a, depth + 1, &v);
        if (v.kind == TF_PATH_UNKNOWN && i > first - (first > 0) && out->kind == TF_PATH_LITERAL)
            tf_pv_literal(&v, "*", 1, false), v.wild = true; /* join(base, name): name unknown */
        apy_join_value(out, &v);
    }
}

static bool is_home_env(apy *P, uint32_t call_or_sub, bool call)
{
    uint32_t a = 0;
    if (call) {
        if (apy_get_arg(P, apy_kid(P, call_or_sub, 1), 0, NULL, &a) != APY_ARG_FOUND)
            return false;
    } else {
        a = apy_kid(P, call_or_sub, 1);
    }
    apy_str s;
    if (apy_kind(P, a) != N_STRING)
        return false;
    apy_strings_value(P, a, &s, 0);
    return !strcmp(s.text, "HOME") || !strcmp(s.text, "USERPROFILE");
}

/* Functions of a dotted name that build or transform a path from their arguments. */
static bool eval_transform(apy *P, const char *name, uint32_t call, int depth, tf_pathval *out)
{
    static const char *const ctors[] = {"pathlib.Path",        "pathlib.PurePath",
                                        "pathlib.PosixPath",   "pathlib.PurePosixPath",
                                        "pathlib.WindowsPath", "pathlib.PureWindowsPath",
                                        "py.path.local",       NULL};
    static const char *const same[] = {
        "os.path.abspath", "os.path.realpath", "os.path.normpath", "os.fspath", "str",
        "os.fsencode",     "os.fsdecode",      "os.path.normcase", NULL};
    uint32_t args = apy_kid(P, call, 1), a = 0;
    bool has0 = apy_get_arg(P, args, 0, NULL, &a) == APY_ARG_FOUND;
    if (apy_name_in(name, ctors)) {
        tf_pv_literal(out, ".", 1, true);
        if (has0) {
            apy_eval(P, a, depth + 1, out);
            out->object = out->kind != TF_PATH_UNKNOWN;
            join_args(P, args, 1, depth, out);
        }
    } else if ((!strcmp(name, "os.path.join") || !strcmp(name, "posixpath.join")) && has0) {
        apy_eval(P, a, depth + 1, out);
        join_args(P, args, 1, depth, out);
        out->object = false;
    } else if (!strcmp(name, "os.path.dirname") && has0) {
        apy_eval(P, a, depth + 1, out);
        tf_pv_parent(out);
        out->object = false;
    } else if (!strcmp(name, "os.path.expanduser") && has0) {
        apy_eval(P, a, depth + 1, out);
        out->object = false;
        out->home_early |= out->kind == TF_PATH_LITERAL && out->text[0] == '~' && P->w.func == 0;
    } else if (apy_name_in(name, same) && has0) {
        apy_eval(P, a, depth + 1, out);
        out->object = false;
    } else {
        return false;
    }
    return true;
}

bool apy_falsy_literal(apy *P, uint32_t n, bool *is_none)
{
    int k = apy_kind(P, n), op = apy_node(P, n)->op;
    *is_none = k == N_CONST && op == KW_NONE_;
    return *is_none || (k == N_CONST && op == KW_FALSE) ||
           (k == N_NUMBER && apy_text_is(P, n, "0")) ||
           (k == N_STRING && (apy_text_is(P, n, "\"\"") || apy_text_is(P, n, "''")));
}

/* "~" read at module level: when the module is imported, before any test runs. */
static void home_value(apy *P, tf_pathval *out, bool object)
{
    tf_pv_literal(out, "~", 1, object);
    out->home_early = P->w.func == 0;
}

/* Functions of a dotted name that give a place: the working directory, home, temp. */
static bool eval_place(apy *P, const char *name, uint32_t call, tf_pathval *out)
{
    static const char *const unique[] = {"tempfile.mkdtemp", "tempfile.mktemp", NULL};
    if (!strcmp(name, "os.getcwd") || !strcmp(name, "os.getcwdb")) {
        out->state = P->w.state;
        tf_pv_based(out, TF_PATH_CWD, false);
    } else if (!strcmp(name, "pathlib.Path.cwd")) {
        out->state = P->w.state;
        tf_pv_based(out, TF_PATH_CWD, true);
    } else if (!strcmp(name, "pathlib.Path.home")) {
        home_value(P, out, true);
    } else if (!strcmp(name, "tempfile.gettempdir") || !strcmp(name, "tempfile.gettempdirb")) {
        tf_pv_based(out, TF_PATH_TEMP, false);
    } else if (apy_name_in(name, unique)) {
        tf_pv_based(out, TF_PATH_TEMP, false);
        tf_pv_join(out, "*", 1);
        out->wild = true;
    } else if ((!strcmp(name, "os.getenv") || !strcmp(name, "os.environ.get")) &&
               is_home_env(P, call, true)) {
        home_value(P, out, false);
    } else {
        return false;
    }
    return true;
}

/* Functions of a dotted name that build, transform or give a path. */
static bool eval_function(apy *P, const char *name, uint32_t call, int depth, tf_pathval *out)
{
    return eval_transform(P, name, call, depth, out) || eval_place(P, name, call, out);
}

/* "{}.txt".format(x) and "%s.txt" % x: the template with '*' for each value. */
static void format_template(const tf_pathval *tmpl, bool percent, tf_pathval *out)
{
    apy_str s = {.len = 0};
    const char *p = tmpl->text;
    for (size_t i = 0; p[i]; i++) {
        if (!percent && p[i] == '{' && p[i + 1] == '{') {
            apy_str_put(&s, "{", 1), i++;
        } else if (!percent && p[i] == '}' && p[i + 1] == '}') {
            apy_str_put(&s, "}", 1), i++;
        } else if (!percent && p[i] == '{') {
            while (p[i] && p[i] != '}')
                i++;
            apy_str_put(&s, "*", 1), s.wild = true;
            if (!p[i])
                break;
        } else if (percent && p[i] == '%' && p[i + 1] == '%') {
            apy_str_put(&s, "%", 1), i++;
        } else if (percent && p[i] == '%') {
            i++;
            while (
                p[i] &&
                strchr("#0- +.*0123456789()abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_",
                       p[i]) &&
                !strchr("sdrifgxXeEocaub", p[i]))
                i++;
            apy_str_put(&s, "*", 1), s.wild = true;
            if (!p[i])
                break;
        } else {
            apy_str_put(&s, p + i, 1);
        }
    }
    from_str(&s, out);
}

/* Path methods that return another path: joinpath, with_name, resolve, ... */
static void eval_method(apy *P, uint32_t call, uint32_t fn, int depth, tf_pathval *out)
{
    uint32_t attr = apy_kid(P, fn, 1), args = apy_kid(P, call, 1), a = 0;
    apy_eval(P, apy_kid(P, fn, 0), depth + 1, out);
    if (apy_text_is(P, attr, "format") && out->kind == TF_PATH_LITERAL && !out->object) {
        tf_pathval t = *out;
        format_template(&t, false, out);
        return;
    }
    if ((!out->object && out->kind != TF_PATH_PARAM) || out->kind == TF_PATH_UNKNOWN) {
        tf_pv_unknown(out);
        return;
    }
    tf_pathval v;
    bool has0 = apy_get_arg(P, args, 0, NULL, &a) == APY_ARG_FOUND;
    if (has0)
        apy_eval(P, a, depth + 1, &v);
    if (apy_text_is(P, attr, "joinpath") || apy_text_is(P, attr, "join")) {
        join_args(P, args, 0, depth, out);
    } else if ((apy_text_is(P, attr, "with_name") || apy_text_is(P, attr, "with_suffix")) && has0 &&
               v.kind == TF_PATH_LITERAL) {
        if (apy_text_is(P, attr, "with_name"))
            tf_pv_set_name(out, v.text, strlen(v.text));
        else
            tf_pv_set_suffix(out, v.text, strlen(v.text));
    } else if (!apy_text_is(P, attr, "resolve") && !apy_text_is(P, attr, "absolute") &&
               !apy_text_is(P, attr, "expanduser")) {
        tf_pv_unknown(out);
    }
}

static void eval_call(apy *P, uint32_t n, int depth, tf_pathval *out)
{
    uint32_t fn = apy_kid(P, n, 0);
    char name[APY_NAME_MAX * 2];
    tf_pv_unknown(out);
    if (apy_canonical(P, fn, name, sizeof name) && eval_function(P, name, n, depth, out))
        return;
    if (apy_kind(P, fn) == N_ATTR)
        eval_method(P, n, fn, depth, out);
}

/* A name bound elsewhere: an imported module constant (os_helper.TESTFN) is EXTERN. */
static bool eval_extern(apy *P, uint32_t n, tf_pathval *out)
{
    char name[APY_NAME_MAX * 2];
    if (!apy_canonical(P, n, name, sizeof name) || !strchr(name, '.') ||
        strlen(name) >= sizeof out->ext)
        return false;
    char raw[APY_NAME_MAX * 2];
    if (!apy_dotted_raw(P, n, raw, sizeof raw, 0) || !strcmp(raw, name))
        return false; /* nothing was imported: a local attribute */
    tf_pv_unknown(out);
    memcpy(out->ext, name, strlen(name) + 1); /* it fits: checked above */
    tf_pv_based(out, TF_PATH_EXTERN, false);
    return true;
}

/* x.parent, self.attr bound earlier, an imported constant. */
static void eval_attribute(apy *P, uint32_t n, int depth, tf_pathval *out)
{
    char raw[APY_NAME_MAX];
    if (apy_dotted_raw(P, n, raw, sizeof raw, 0) && apy_lookup(P, raw, strlen(raw), out))
        return;
    if (!apy_text_is(P, apy_kid(P, n, 1), "parent")) {
        if (!eval_extern(P, n, out))
            tf_pv_unknown(out);
        return;
    }
    apy_eval(P, apy_kid(P, n, 0), depth + 1, out);
    if (out->object || out->kind == TF_PATH_PARAM)
        tf_pv_parent(out);
    else
        tf_pv_unknown(out);
}

/* x.parents[N] is N + 1 levels up; os.environ["HOME"] is HOME. */
static void eval_subscript(apy *P, uint32_t n, int depth, tf_pathval *out)
{
    uint32_t value = apy_kid(P, n, 0), sub = apy_kid(P, n, 1);
    char name[APY_NAME_MAX * 2];
    tf_pv_unknown(out);
    if (apy_canonical(P, value, name, sizeof name) && !strcmp(name, "os.environ") &&
        is_home_env(P, n, false)) {
        home_value(P, out, false);
        return;
    }
    if (apy_kind(P, value) != N_ATTR || !apy_text_is(P, apy_kid(P, value, 1), "parents") ||
        apy_kind(P, sub) != N_NUMBER || apy_len(P, sub) > 2)
        return;
    int levels = atoi(apy_text(P, sub)) + 1;
    apy_eval(P, apy_kid(P, value, 0), depth + 1, out);
    if (!out->object && out->kind != TF_PATH_PARAM) {
        tf_pv_unknown(out);
        return;
    }
    while (levels-- > 0)
        tf_pv_parent(out);
}

/* a / b on paths; a + b and a % b on strings. */
static void eval_binop(apy *P, uint32_t n, int depth, tf_pathval *out)
{
    int op = apy_node(P, n)->op;
    tf_pathval r;
    apy_eval(P, apy_kid(P, n, 0), depth + 1, out);
    if (op == OP_PERCENT && out->kind == TF_PATH_LITERAL && !out->object) {
        tf_pathval t = *out;
        format_template(&t, true, out);
        return;
    }
    apy_eval(P, apy_kid(P, n, 1), depth + 1, &r);
    if (op == OP_SLASH && (out->object || out->kind == TF_PATH_PARAM)) {
        if (r.kind == TF_PATH_UNKNOWN && out->kind != TF_PATH_UNKNOWN)
            tf_pv_literal(&r, "*", 1, false), r.wild = true;
        apy_join_value(out, &r);
        out->object = out->kind != TF_PATH_UNKNOWN; /* only a path object has "/" */
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

/* The parameter record of REF (a TF_PATH_PARAM's), or NULL. */
static tf_param *param_of(apy *P, unsigned ref)
{
    for (size_t i = P->f->n_params; i-- > 0;) {
        tf_param *pa = &P->f->params[i];
        if (pa->func == TF_PARAM_FUNC(ref) && pa->index == TF_PARAM_INDEX(ref))
            return pa;
        if (pa->func < TF_PARAM_FUNC(ref))
            break;
    }
    return NULL;
}

void apy_note_param(apy *P, const tf_pathval *v)
{
    unsigned i = TF_PARAM_INDEX(v->state);
    if (v->kind != TF_PATH_PARAM || TF_PARAM_FUNC(v->state) != P->w.func ||
        i >= (unsigned)P->w.n_params || param_of(P, v->state))
        return;
    uint32_t nm = P->w.param_name[i];
    tf_param pa = {.func = P->w.func,
                   .name = tf_facts_str(P->f, apy_text(P, nm), apy_len(P, nm)),
                   .index = (uint16_t)i,
                   .flags = P->w.param_flags[i]};
    tf_facts_add_param(P->f, &pa);
}

void apy_param_fallback(apy *P, const tf_pathval *param, const tf_pathval *fallback)
{
    apy_note_param(P, param);
    tf_param *pa = param->kind == TF_PATH_PARAM && !param->text[0] && param->up == 0 &&
                           TF_PARAM_FUNC(param->state) == P->w.func
                       ? param_of(P, param->state)
                       : NULL;
    if (!pa || (pa->flags & PA_FALLBACK) || fallback->kind == TF_PATH_UNKNOWN ||
        fallback->kind == TF_PATH_PARAM)
        return;
    tf_fpath fp = tf_facts_path(P->f, fallback);
    if ((pa = param_of(P, param->state))) { /* the pool may have grown; params did not move */
        pa->fallback = fp;
        pa->flags |= PA_FALLBACK;
    }
}

/* "p or DEFAULT" on a parameter: the parameter, and DEFAULT where the argument is falsy. */
static void eval_or(apy *P, uint32_t n, int depth, tf_pathval *out)
{
    uint32_t first = apy_node(P, n)->kid, second = first ? apy_node(P, first)->next : 0;
    tf_pv_unknown(out);
    if (apy_node(P, n)->op != KW_OR || !second || apy_node(P, second)->next)
        return;
    tf_pathval fb;
    apy_eval(P, first, depth + 1, out);
    apy_eval(P, second, depth + 1, &fb);
    if (out->kind != TF_PATH_PARAM || out->text[0] || out->up || fb.kind == TF_PATH_UNKNOWN) {
        tf_pv_unknown(out);
        return;
    }
    apy_param_fallback(P, out, &fb);
    out->or_default = true;
    out->object |= fb.object;
}

void apy_eval(apy *P, uint32_t n, int depth, tf_pathval *out)
{
    tf_pv_unknown(out);
    if (!n || depth > PY_MAX_EVAL_DEPTH)
        return;
    switch (apy_kind(P, n)) {
    case N_STRING:
    case N_CONCAT: {
        apy_str s;
        apy_strings_value(P, n, &s, depth);
        from_str(&s, out);
        break;
    }
    case N_NAME:
        if (apy_text_is(P, n, "__file__"))
            tf_pv_file(out, false);
        else if (!apy_lookup(P, apy_text(P, n), apy_len(P, n), out))
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
        apy_eval(P, apy_kid(P, n, 1), depth + 1, out);
        break;
    case N_BOOLOP:
        eval_or(P, n, depth, out);
        break;
    default:
        break;
    }
}
