#include "apy_calls.h"

#include "apy_emit.h"
#include "apy_eval.h"
#include "apy_expr.h"
#include "apy_scope.h"
#include "apy_shell.h"
#include "apy_writes.h"

#include <string.h>

/* Calls that change the working directory until changed back: os.chdir(x),
 * monkeypatch.chdir(x), py.path's x.chdir(). */
static bool on_chdir(apy *P, uint32_t call, uint32_t fn, const char *name)
{
    const char *tail = apy_last_part(name);
    uint32_t a = 0;
    tf_pathval v;
    if (!strcmp(name, "os.fchdir")) {
        tf_pv_unknown(&v);
    } else if (!strcmp(tail, "chdir") && apy_kind(P, fn) == N_ATTR) {
        if (apy_get_arg(P, apy_kid(P, call, 1), 0, "path", &a) == APY_ARG_FOUND)
            apy_eval(P, a, 0, &v);
        else
            apy_eval(P, apy_kid(P, fn, 0), 0, &v); /* py.path: tmpdir.chdir() */
    } else {
        return false;
    }
    P->w.state = apy_new_state(P, (tf_state){.kind = ST_SET, .value = tf_facts_path(P->f, &v)});
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
    if (!strchr(name, '.') && apy_name_in(name, builtins))
        return false;
    static const char *const libs[] = {
        "os",        "sys",         "shutil",   "subprocess", "json",      "re",     "time",
        "logging",   "unittest",    "pytest",   "tempfile",   "pathlib",   "io",     "itertools",
        "functools", "collections", "warnings", "contextlib", "threading", "random", "mock",
        "math",      "textwrap",    "inspect",  "typing",     "struct",    NULL};
    char root[APY_NAME_MAX];
    size_t n = strcspn(name, ".");
    if (n >= sizeof root)
        return false;
    memcpy(root, name, n);
    root[n] = '\0';
    if (apy_name_in(root, libs))
        return false;
    if ((!strcmp(root, "self") || !strcmp(root, "cls")) && name[n]) {
        const char *m = name + n + 1;
        return strncmp(m, "assert", 6) && strncmp(m, "fail", 4) && strncmp(m, "skip", 4) &&
               strcmp(m, "subTest") && strcmp(m, "addCleanup");
    }
    return true;
}

/* The known arguments of a call (ARGS, an N_ARGS node), each evaluated, appended to the
 * facts; the positional ones are counted. */
static void record_args(apy *P, uint32_t args, tf_call *c)
{
    c->arg0 = (uint32_t)P->f->n_args;
    int at = 0;
    for (uint32_t a = apy_kind(P, args) == N_ARGS ? apy_node(P, args)->kid : 0; a && at < 255;
         a = apy_node(P, a)->next) {
        int k = apy_kind(P, a);
        if (k == N_STARRED || k == N_DSTAR) {
            c->flags |= CALL_STAR;
            continue;
        }
        uint32_t v = k == N_KWARG ? apy_kid(P, a, 1) : a;
        tf_arg x = {.pos = (uint16_t)(k == N_KWARG ? 0 : at)};
        at += k != N_KWARG && !(c->flags & CALL_STAR);
        tf_pathval pv;
        bool none;
        if (apy_falsy_literal(P, v, &none))
            x.flags = (uint8_t)(ARG_FALSY | (none ? ARG_NONE : 0));
        else if ((apy_kind(P, v) == N_CONST && apy_node(P, v)->op == KW_TRUE) ||
                 apy_kind(P, v) == N_NUMBER)
            x.flags = ARG_TRUE; /* if clean: ... runs */
        apy_eval(P, v, 0, &pv);
        if (pv.kind == TF_PATH_UNKNOWN && !x.flags)
            continue;
        apy_note_param(P, &pv);
        x.value = tf_facts_path(P->f, &pv);
        if (k == N_KWARG)
            x.kw = tf_facts_str(P->f, apy_text(P, apy_kid(P, a, 0)), apy_len(P, apy_kid(P, a, 0)));
        tf_facts_add_arg(P->f, &x); /* index 0 is a valid one: failure is f->oom */
        c->n_args += !P->f->oom;
    }
    c->n_pos = (uint8_t)at;
}

/* Record a call of NAME at node AT; CALL (0 for a function passed as a value) gives its
 * arguments, CTOR says the receiver is a new instance (Class().method()). */
static void record_call(apy *P, const char *name, uint32_t at, uint32_t call, bool ctor)
{
    if (P->in_main || !may_be_project(name))
        return;
    tf_pos pos; /* only where it starts: apy_pos would find its end too, for every call */
    py_position(P->t, apy_node(P, at)->start, &pos.line, &pos.col);
    tf_call c = {.callee = apy_pool(P, name),
                 .func = P->w.func,
                 .state = P->w.state,
                 .line = (uint32_t)pos.line,
                 .col = (uint16_t)(pos.col < 65535 ? pos.col : 65535),
                 .flags = ctor ? CALL_CTOR : 0};
    if (call)
        record_args(P, apy_kid(P, call, 1), &c);
    size_t n = P->f->n_calls;
    const tf_call *last = n ? &P->f->calls[n - 1] : NULL;
    if (!c.n_args && last && !last->n_args && last->n_pos == c.n_pos && last->flags == c.flags &&
        last->callee == c.callee && last->func == c.func && last->state == c.state)
        return; /* the same call again with nothing known to bind: the first one stands */
    tf_facts_add_call(P->f, &c);
}

/* Function names passed as values (Thread(target=f), addCleanup(f)) are calls too. */
static void record_callbacks(apy *P, uint32_t args)
{
    for (uint32_t a = apy_kind(P, args) == N_ARGS ? apy_node(P, args)->kid : 0; a;
         a = apy_node(P, a)->next) {
        uint32_t v = apy_kind(P, a) == N_KWARG ? apy_kid(P, a, 1) : a;
        char name[APY_NAME_MAX * 2];
        tf_pathval x;
        if ((apy_kind(P, v) == N_NAME || apy_kind(P, v) == N_ATTR) &&
            !apy_lookup(P, apy_text(P, v), apy_len(P, v), &x) &&
            apy_canonical(P, v, name, sizeof name))
            record_call(P, name, v, 0, false);
    }
}

/* A call as a whole statement: a helper that may change the working directory for good. */
void apy_call_effect(apy *P, uint32_t call)
{
    char name[APY_NAME_MAX * 2];
    if (P->in_main || !apy_canonical(P, apy_kid(P, call, 0), name, sizeof name) ||
        !may_be_project(name))
        return;
    uint32_t a = 0;
    tf_pathval v;
    tf_pv_unknown(&v);
    if (apy_get_arg(P, apy_kid(P, call, 1), 0, NULL, &a) == APY_ARG_FOUND)
        apy_eval(P, a, 0, &v);
    P->w.state = apy_new_state(P, (tf_state){.kind = ST_EFFECT,
                                             .a = P->w.state,
                                             .callee = apy_pool(P, name),
                                             .value = tf_facts_path(P->f, &v)});
}

/* monkeypatch.setattr, mock.patch(...), patch.object(...): a test that replaces code. */
bool apy_is_patch(const char *name)
{
    const char *tail = apy_last_part(name);
    size_t n = strlen(name);
    return (!strcmp(tail, "setattr") && strncmp(name, "setattr", 7)) || !strcmp(tail, "patch") ||
           (n > 13 && !strcmp(name + n - 13, ".patch.object")) ||
           (n > 11 && !strcmp(name + n - 11, ".patch.dict")) || !strcmp(name, "patch.object") ||
           !strcmp(name, "patch.dict");
}

/* Calls whose string arguments are messages for people, not paths. */
static bool is_message_call(const char *name)
{
    static const char *const last[] = {"print", "debug",     "info",     "warning", "warn",
                                       "error", "exception", "critical", "log",     "echo",
                                       "fail",  "skip",      "xfail",    "pprint",  NULL};
    const char *tail = apy_last_part(name);
    size_t n = strlen(tail);
    if (apy_name_in(tail, last) || !strcmp(name, "sys.stdout.write") ||
        !strcmp(name, "sys.stderr.write"))
        return true;
    return (n > 5 && !strcmp(tail + n - 5, "Error")) ||
           (n > 9 && !strcmp(tail + n - 9, "Exception")) ||
           (n > 7 && !strcmp(tail + n - 7, "Warning"));
}

void apy_on_call(apy *P, uint32_t call)
{
    uint32_t fn = apy_kid(P, call, 0);
    char name[APY_NAME_MAX * 2];
    bool named = apy_canonical(P, fn, name, sizeof name);
    if (named) {
        if (P->w.func && apy_is_patch(name))
            P->f->funcs[P->w.func].flags |= FN_PATCHES;
        on_chdir(P, call, fn, name);
        apy_on_env_removal(P, call, fn, name);
        apy_on_setenv(P, call, name);
        apy_on_subprocess(P, call, name);
        if (!apy_on_temp(P, call, name) && !apy_on_writer(P, call, name))
            record_call(P, name, call, call, false);
    } else if (apy_kind(P, fn) == N_ATTR && apy_kind(P, apy_kid(P, fn, 0)) == N_CALL &&
               apy_canonical(P, apy_kid(P, apy_kid(P, fn, 0), 0), name, sizeof name)) {
        size_t have = strlen(name), l = apy_len(P, apy_kid(P, fn, 1)); /* App().run() */
        if (have + 1 + l < sizeof name) {
            name[have] = '.';
            memcpy(name + have + 1, apy_text(P, apy_kid(P, fn, 1)), l);
            name[have + 1 + l] = '\0';
            record_call(P, name, call, call, true);
        }
    }
    if (apy_kind(P, fn) == N_ATTR)
        apy_on_path_method(P, call, fn);
    record_callbacks(P, apy_kid(P, call, 1));
    bool was_quiet = P->quiet;
    P->quiet |= named && is_message_call(name);
    apy_visit(P, fn);
    apy_visit(P, apy_kid(P, call, 1));
    P->quiet = was_quiet;
}
