#include "audit_project.h"

#include "audit_script.h"
#include "base/vec.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Recursion through states, functions and fixtures stops here (deterministically). */
#define MAX_DEPTH 256

/* ---- values ---- */

/* A working directory relative to a function's entry: unchanged (S_NONE), its parameter
 * number `param`, a path (in the facts of `file`), or somewhere else (S_AWAY). or_none: it
 * may also be unchanged. certain: no branch or guess was involved. */
enum { S_NONE, S_PARAM, S_PATH, S_AWAY };
typedef struct sval {
    uint8_t kind;
    bool or_none, certain;
    uint16_t param;
    uint32_t file;
    tf_fpath path;
} sval;

/* A concrete working directory: the project root, a directory, or one whose relative writes
 * cannot land in the project (a temp dir, a runner's fresh cwd). */
enum { C_ROOT, C_DIR, C_AWAY };
typedef struct cval {
    uint8_t kind;
    bool certain;
    const char *dir; /* C_DIR: absolute, normalised */
} cval;

enum { M_NONE, M_BUSY, M_DONE };

/* A file's facts, calls and parameters grouped by function (built when first followed). */
typedef struct byfunc {
    uint32_t *start; /* n_funcs + 1 offsets into idx */
    uint32_t *idx;
} byfunc;

typedef struct fmemo {
    sval *sym;
    cval *conc, *entry;
    sval *fixture;
    uint8_t *sym_m, *conc_m, *entry_m, *fixture_m;
    bool grouped;
    byfunc facts, calls, params;
    uint32_t (*callee)[2]; /* each call's resolved function (file, index); file UINT32_MAX: none */
} fmemo;

/* (tag, file, a, b) -> index: functions, fixtures, classes, modules by base name. */
enum { K_FUNC, K_FIXTURE, K_CLASS, K_BASE, K_CONFTEST };
typedef struct fent {
    uint64_t h;
    uint32_t tag, file, idx;
} fent;

/* A call of a project function: from state cstate of file cfile. */
typedef struct edge {
    uint32_t cfile, cstate;
} edge;

typedef struct proj {
    const tf_audit_cfg *cfg;
    tf_audit_file *files;
    size_t n;
    fmemo *m;
    fent *map;
    size_t cap_map;
    /* The callers of function g of file f: edges[first[base[f] + g] .. first[base[f] + g + 1]),
     * in (cfile, cstate) order. */
    edge *edges;
    uint32_t *base, *first;
    char **dirs; /* interned directory strings */
    size_t n_dirs, cap_dirs;
    char root_tests[PATH_MAX];
    bool oom;
} proj;

static cval c_default(const proj *P)
{
    return (cval){P->cfg->cwd == TF_CWD_ROOT ? C_ROOT : C_AWAY, true, NULL};
}

static const char *S(const proj *P, uint32_t file, uint32_t off)
{
    return tf_facts_get(&P->files[file].facts, off);
}

/* S into OUT[LEN] (LEN > 0), cut to fit as snprintf cuts it, without its cost: module and
 * class names are copied for every call resolved. Returns the length copied. */
static size_t copy_str(char *out, size_t len, const char *s, size_t n)
{
    if (n >= len)
        n = len - 1;
    memcpy(out, s, n);
    out[n] = '\0';
    return n;
}

static const char *intern(proj *P, const char *s)
{
    for (size_t i = P->n_dirs; i-- > 0 && i + 16 >= P->n_dirs;) /* recent repeats */
        if (!strcmp(P->dirs[i], s))
            return P->dirs[i];
    char **nv = vec_grow(P->dirs, &P->cap_dirs, P->n_dirs, sizeof *nv);
    char *copy = nv ? strdup(s) : NULL;
    if (!copy) {
        P->oom = true;
        return NULL;
    }
    P->dirs = nv;
    P->dirs[P->n_dirs++] = copy;
    return copy;
}

/* ---- the name map ---- */

static uint64_t hash_str(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (h ^ 0xff) * 1099511628211ull;
}

static uint64_t key(uint32_t tag, uint32_t file, const char *a, const char *b)
{
    uint64_t h = 1469598103934665603ull ^ ((uint64_t)tag << 32 | file);
    return hash_str(hash_str(h * 1099511628211ull, a), b) | 1;
}

/* The strings an entry was keyed by, for the comparison after a hash match. */
static void entry_strings(const proj *P, const fent *e, const char **a, const char **b)
{
    const tf_audit_file *f = &P->files[e->file];
    *a = "";
    switch (e->tag) {
    case K_FUNC:
        *a = S(P, e->file, f->facts.funcs[e->idx].cls);
        *b = S(P, e->file, f->facts.funcs[e->idx].name);
        break;
    case K_FIXTURE:
        *a = S(P, e->file, f->facts.funcs[e->idx].cls);
        *b = S(P, e->file, f->facts.funcs[e->idx].fixture);
        break;
    case K_CLASS:
        *b = S(P, e->file, f->facts.classes[e->idx].name);
        break;
    case K_BASE: /* file idx keyed by its module's base name */
        *b = strrchr(P->files[e->idx].module, '.') ? strrchr(P->files[e->idx].module, '.') + 1
                                                   : P->files[e->idx].module;
        break;
    default: /* K_CONFTEST: keyed by its directory */
        *b = P->files[e->idx].absdir;
        break;
    }
}

static bool map_put(proj *P, uint32_t tag, uint32_t file, const char *a, const char *b,
                    uint32_t idx)
{
    if (!P->cap_map)
        return false;
    uint64_t h = key(tag, file, a, b);
    size_t i = h & (P->cap_map - 1);
    while (P->map[i].h) {
        const char *ea, *eb;
        if (P->map[i].h == h && P->map[i].tag == tag && P->map[i].file == file) {
            entry_strings(P, &P->map[i], &ea, &eb);
            if (!strcmp(ea, a) && !strcmp(eb, b) && tag != K_BASE)
                return true; /* the first definition wins, like a first import */
        }
        i = (i + 1) & (P->cap_map - 1);
    }
    P->map[i] = (fent){h, tag, file, idx};
    return true;
}

/* Visit every entry for (tag, file, a, b); FN returns true to stop. */
static bool map_each(const proj *P, uint32_t tag, uint32_t file, const char *a, const char *b,
                     bool (*fn)(const proj *P, uint32_t idx, void *ctx), void *ctx)
{
    uint64_t h = key(tag, file, a, b);
    for (size_t i = h & (P->cap_map - 1); P->map[i].h; i = (i + 1) & (P->cap_map - 1)) {
        const char *ea, *eb;
        if (P->map[i].h != h || P->map[i].tag != tag || P->map[i].file != file)
            continue;
        entry_strings(P, &P->map[i], &ea, &eb);
        if (!strcmp(ea, a) && !strcmp(eb, b) && fn(P, P->map[i].idx, ctx))
            return true;
    }
    return false;
}

static bool take_first(const proj *P, uint32_t idx, void *ctx)
{
    (void)P;
    *(uint32_t *)ctx = idx;
    return true;
}

static bool map_get(const proj *P, uint32_t tag, uint32_t file, const char *a, const char *b,
                    uint32_t *idx)
{
    return P->cap_map && map_each(P, tag, file, a, b, take_first, idx);
}

static int build_map(proj *P)
{
    size_t total = 16;
    for (size_t f = 0; f < P->n; f++)
        total += P->files[f].facts.n_funcs * 2 + P->files[f].facts.n_classes + 2;
    P->cap_map = 64;
    while (P->cap_map < total * 2)
        P->cap_map *= 2;
    if (!(P->map = calloc(P->cap_map, sizeof *P->map)))
        return -1;
    for (uint32_t f = 0; f < P->n; f++) {
        const tf_audit_file *file = &P->files[f];
        if (!file->scanned)
            continue;
        for (uint32_t i = 1; i < file->facts.n_funcs; i++) {
            const tf_func *fn = &file->facts.funcs[i];
            map_put(P, K_FUNC, f, S(P, f, fn->cls), S(P, f, fn->name), i);
            if (fn->flags & FN_FIXTURE)
                map_put(P, K_FIXTURE, f, S(P, f, fn->cls), S(P, f, fn->fixture), i);
        }
        for (uint32_t i = 0; i < file->facts.n_classes; i++)
            map_put(P, K_CLASS, f, "", S(P, f, file->facts.classes[i].name), i);
        const char *base =
            strrchr(file->module, '.') ? strrchr(file->module, '.') + 1 : file->module;
        map_put(P, K_BASE, 0, "", base, f);
        if (!strcmp(file->name, "conftest.py"))
            map_put(P, K_CONFTEST, 0, "", file->absdir, f);
    }
    return 0;
}

/* ---- modules ---- */

typedef struct modq {
    const char *name;     /* dotted */
    const char *from_dir; /* the importing file's directory, to prefer near modules */
    uint32_t best;
    size_t best_score;
    bool found;
} modq;

/* Does FILE's path end with the dotted NAME as directories ("a.b" -> ".../a/b.py" or
 * ".../a/b/__init__.py")? */
static bool path_is_module(const tf_audit_file *file, const char *name)
{
    return !strcmp(file->module, name) ||
           (strlen(file->module) > strlen(name) &&
            !strcmp(file->module + strlen(file->module) - strlen(name), name) &&
            file->module[strlen(file->module) - strlen(name) - 1] == '.');
}

static bool consider_module(const proj *P, uint32_t idx, void *ctx)
{
    modq *q = ctx;
    const tf_audit_file *f = &P->files[idx];
    if (!path_is_module(f, q->name))
        return false;
    size_t score = 0; /* the common directory prefix with the importer */
    while (f->absdir[score] && f->absdir[score] == q->from_dir[score])
        score++;
    if (!strcmp(f->module, q->name))
        score += PATH_MAX; /* the exact package-qualified name wins */
    if (!q->found || score > q->best_score) {
        q->best = idx;
        q->best_score = score;
        q->found = true;
    }
    return false;
}

/* The file of module NAME as imported from FROM (relative imports already joined). */
static bool find_module(const proj *P, uint32_t from, const char *name, uint32_t *out)
{
    const char *base = strrchr(name, '.') ? strrchr(name, '.') + 1 : name;
    modq q = {.name = name, .from_dir = P->files[from].absdir};
    if (!*name)
        return false;
    map_each(P, K_BASE, 0, "", base, consider_module, &q);
    if (q.found)
        *out = q.best;
    return q.found;
}

/* from ..x import y in a file of package a.b.c: the module name "a.x". */
static void absolute_module(const tf_audit_file *f, const char *name, int level, char *out,
                            size_t len)
{
    copy_str(out, len, f->module, strlen(f->module));
    bool package = !strcmp(f->name, "__init__.py");
    for (int i = package ? 1 : 0; i < level; i++) {
        char *dot = strrchr(out, '.');
        if (dot)
            *dot = '\0';
        else
            out[0] = '\0';
    }
    if (level == 0)
        out[0] = '\0';
    size_t n = strlen(out);
    if (*name && n && n + 1 < len)
        out[n++] = '.', out[n] = '\0';
    if (*name)
        copy_str(out + n, len - n, name, strlen(name));
}

/* Tests (and conftest.py files) are collected; what they import is too, transitively. */
static void collect(proj *P, const tf_audit_lang *lang)
{
    uint32_t *queue = malloc((P->n + 1) * sizeof *queue);
    size_t head = 0, tail = 0;
    if (!queue) {
        P->oom = true;
        return;
    }
    for (uint32_t f = 0; f < P->n; f++) {
        tf_audit_file *file = &P->files[f];
        file->collected =
            file->scanned && !file->library && (file->named || lang->collected(file->name));
        if (file->collected)
            queue[tail++] = f;
    }
    while (head < tail) {
        uint32_t f = queue[head++];
        const tf_facts *fa = &P->files[f].facts;
        for (size_t i = 0; i < fa->n_imports; i++) {
            char name[PATH_MAX];
            uint32_t to;
            const char *mod = S(P, f, fa->imports[i].module);
            if (fa->imports[i].level)
                absolute_module(&P->files[f], mod, fa->imports[i].level, name, sizeof name);
            else
                copy_str(name, sizeof name, mod, strlen(mod));
            if (find_module(P, f, name, &to) && !P->files[to].collected && P->files[to].scanned &&
                !P->files[to].library) {
                P->files[to].collected = true;
                queue[tail++] = to;
            }
        }
    }
    free(queue);
}

/* ---- callees ---- */

static bool resolve_class(const proj *P, uint32_t file, const char *name, uint32_t *cf,
                          uint32_t *ci);

/* Method M of class CLS in FILE, or of its bases (by name, through imports). */
static bool find_method(const proj *P, uint32_t file, const char *cls, const char *m, int depth,
                        uint32_t *gf, uint32_t *g)
{
    if (map_get(P, K_FUNC, file, cls, m, g)) {
        *gf = file;
        return true;
    }
    uint32_t ci;
    if (depth > 8 || !map_get(P, K_CLASS, file, "", cls, &ci))
        return false;
    char bases[512];
    const char *all = S(P, file, P->files[file].facts.classes[ci].bases);
    copy_str(bases, sizeof bases, all, strlen(all));
    for (char *save = NULL, *b = strtok_r(bases, ",", &save); b; b = strtok_r(NULL, ",", &save)) {
        uint32_t bf, bi;
        if (resolve_class(P, file, b, &bf, &bi) &&
            find_method(P, bf, S(P, bf, P->files[bf].facts.classes[bi].name), m, depth + 1, gf, g))
            return true;
    }
    return false;
}

/* A class by a (maybe dotted) name seen in FILE. */
static bool resolve_class(const proj *P, uint32_t file, const char *name, uint32_t *cf,
                          uint32_t *ci)
{
    const char *dot = strrchr(name, '.');
    if (!dot) {
        *cf = file;
        return map_get(P, K_CLASS, file, "", name, ci);
    }
    char mod[PATH_MAX];
    copy_str(mod, sizeof mod, name, (size_t)(dot - name));
    return find_module(P, file, mod, cf) && map_get(P, K_CLASS, *cf, "", dot + 1, ci);
}

/* NAME as module file MF defines it: a function, a class (its __init__: App(...)), or a name
 * the module imports from another module of the project (app/__init__.py re-exporting
 * app/config.py's save_config). */
static bool module_func(const proj *P, uint32_t mf, const char *name, int hops, uint32_t *gf,
                        uint32_t *g)
{
    uint32_t ci;
    if (map_get(P, K_FUNC, mf, "", name, g)) {
        *gf = mf;
        return true;
    }
    if (map_get(P, K_CLASS, mf, "", name, &ci))
        return find_method(P, mf, name, "__init__", 0, gf, g);
    const tf_facts *fa = &P->files[mf].facts;
    size_t n = strlen(name);
    for (size_t i = 0; hops < 2 && i < fa->n_imports; i++) {
        char full[PATH_MAX];
        uint32_t to;
        absolute_module(&P->files[mf], S(P, mf, fa->imports[i].module), fa->imports[i].level, full,
                        sizeof full);
        size_t len = strlen(full);
        if (len <= n + 1 || strcmp(full + len - n, name) || full[len - n - 1] != '.')
            continue;
        full[len - n - 1] = '\0';
        if (find_module(P, mf, full, &to) && to != mf && module_func(P, to, name, hops + 1, gf, g))
            return true;
    }
    return false;
}

/* The project function NAME (canonical, as called from function CALLER of FILE). */
static bool resolve_callee(const proj *P, uint32_t file, uint32_t caller, const char *name,
                           uint32_t *gf, uint32_t *g)
{
    const tf_facts *fa = &P->files[file].facts;
    if (!strncmp(name, "self.", 5) || !strncmp(name, "cls.", 4)) {
        const char *m = strchr(name, '.') + 1;
        const char *cls = S(P, file, fa->funcs[caller].cls);
        return !strchr(m, '.') && *cls && find_method(P, file, cls, m, 0, gf, g);
    }
    const char *dot = strrchr(name, '.');
    if (!dot) {
        *gf = file;
        return map_get(P, K_FUNC, file, "", name, g);
    }
    char mod[PATH_MAX];
    uint32_t mf, ci;
    if ((size_t)(dot - name) >= sizeof mod)
        return false;
    memcpy(mod, name, (size_t)(dot - name));
    mod[dot - name] = '\0';
    if (find_module(P, file, mod, &mf) && mf != file && module_func(P, mf, dot + 1, 0, gf, g))
        return true;
    /* Class.method, or module.Class.method (App().run()): a class's name is capitalised */
    char *cls = strrchr(mod, '.');
    if (!((cls ? cls[1] : mod[0]) >= 'A' && (cls ? cls[1] : mod[0]) <= 'Z'))
        return false;
    if (!cls)
        return map_get(P, K_CLASS, file, "", mod, &ci) &&
               find_method(P, file, mod, dot + 1, 0, gf, g);
    *cls++ = '\0';
    return find_module(P, file, mod, &mf) && map_get(P, K_CLASS, mf, "", cls, &ci) &&
           find_method(P, mf, cls, dot + 1, 0, gf, g);
}

/* A file's calls resolved so far, by callee name (and the caller's class for self.x and
 * cls.x): a suite calls the same names over and over, and resolving one walks imports and
 * class bases. The pool interns strings, so a name is its offset. */
typedef struct rmemo {
    uint64_t *key; /* callee << 32 | class, +1 so that 0 is empty */
    uint32_t (*val)[2];
    size_t cap, size; /* allocated; in use for this file (a power of two) */
} rmemo;

static bool rmemo_reset(rmemo *r, size_t n_calls)
{
    size_t cap = 64;
    while (cap < n_calls * 2)
        cap *= 2;
    if (cap > r->cap) {
        free(r->key), free(r->val);
        r->key = malloc(cap * sizeof *r->key);
        r->val = malloc(cap * sizeof *r->val);
        r->cap = cap;
        if (!r->key || !r->val)
            return false;
    }
    r->size = cap;
    memset(r->key, 0, cap * sizeof *r->key);
    return true;
}

/* Call I of file F resolved: (file, function), file UINT32_MAX when not the project's. */
static void resolve_call(const proj *P, rmemo *r, uint32_t f, size_t i, uint32_t out[2])
{
    const tf_facts *fa = &P->files[f].facts;
    const tf_call *c = &fa->calls[i];
    const char *name = S(P, f, c->callee);
    bool self = (name[0] == 's' && !strncmp(name, "self.", 5)) ||
                (name[0] == 'c' && !strncmp(name, "cls.", 4));
    uint64_t k = ((uint64_t)c->callee << 32 | (self ? fa->funcs[c->func].cls : 0)) + 1;
    size_t h = (size_t)(((k ^ k >> 32) * 0x9e3779b97f4a7c15ull) >> 32) & (r->size - 1);
    for (; r->key[h]; h = (h + 1) & (r->size - 1))
        if (r->key[h] == k) {
            out[0] = r->val[h][0], out[1] = r->val[h][1];
            return;
        }
    out[0] = UINT32_MAX;
    if (!resolve_callee(P, f, c->func, name, &out[0], &out[1]))
        out[0] = UINT32_MAX;
    r->key[h] = k;
    r->val[h][0] = out[0], r->val[h][1] = out[1];
}

/* Resolve every call of every file once, into m[f].callee; count the callers of each
 * function in first[] (shifted by two, for the prefix sums and the fill). */
static int resolve_calls(proj *P)
{
    rmemo r = {0};
    int rc = 0;
    for (uint32_t f = 0; rc == 0 && f < P->n; f++) {
        const tf_facts *fa = &P->files[f].facts;
        if (!P->files[f].scanned)
            continue;
        if (!(P->m[f].callee = malloc((fa->n_calls + 1) * 2 * 4)) || !rmemo_reset(&r, fa->n_calls))
            rc = -1;
        for (size_t i = 0; rc == 0 && i < fa->n_calls; i++) {
            uint32_t *to = P->m[f].callee[i];
            resolve_call(P, &r, f, i, to);
            if (to[0] != UINT32_MAX)
                P->first[P->base[to[0]] + to[1] + 2]++;
        }
    }
    free(r.key), free(r.val);
    return rc;
}

/* Callers of every function, grouped by callee with a counting sort (no comparison sort:
 * the calls of a suite are many). Filled in file order; within a file, calls come in source
 * order and states need not, so each group's run of one file is put in state order. */
static int build_edges(proj *P)
{
    size_t n_funcs = 0;
    if (!(P->base = malloc((P->n + 1) * sizeof *P->base)))
        return -1;
    for (uint32_t f = 0; f < P->n; f++) {
        P->base[f] = (uint32_t)n_funcs;
        n_funcs += P->files[f].facts.n_funcs;
    }
    if (!(P->first = calloc(n_funcs + 2, sizeof *P->first)) || resolve_calls(P) < 0)
        return -1;
    for (size_t k = 1; k <= n_funcs + 1; k++)
        P->first[k] += P->first[k - 1];
    if (!(P->edges = malloc((P->first[n_funcs + 1] + 1) * sizeof *P->edges)))
        return -1;
    for (uint32_t f = 0; f < P->n; f++) /* first[k + 1]: where group k's next edge goes */
        for (size_t i = 0; P->files[f].scanned && i < P->files[f].facts.n_calls; i++) {
            const uint32_t *to = P->m[f].callee[i];
            if (to[0] != UINT32_MAX)
                P->edges[P->first[P->base[to[0]] + to[1] + 1]++] =
                    (edge){f, P->files[f].facts.calls[i].state};
        }
    for (size_t k = 0; k < n_funcs; k++) /* files ascend already: an insertion sort is short */
        for (uint32_t i = P->first[k] + 1; i < P->first[k + 1]; i++) {
            edge e = P->edges[i];
            uint32_t at = i;
            for (; at > P->first[k] && P->edges[at - 1].cfile == e.cfile &&
                   P->edges[at - 1].cstate > e.cstate;
                 at--)
                P->edges[at] = P->edges[at - 1];
            P->edges[at] = e;
        }
    return 0;
}

static sval s_none(void)
{
    return (sval){.kind = S_NONE, .certain = true};
}

static sval s_away(void)
{
    return (sval){.kind = S_AWAY, .certain = true};
}

static bool s_equal(const sval *a, const sval *b)
{
    return a->kind == b->kind && a->or_none == b->or_none &&
           (a->kind != S_PARAM || a->param == b->param) &&
           (a->kind != S_PATH ||
            (a->file == b->file && !memcmp(&a->path, &b->path, sizeof a->path)));
}

/* Either A or B (branches). */
static sval s_join(sval a, sval b)
{
    if (s_equal(&a, &b)) {
        a.certain &= b.certain;
        return a;
    }
    if (a.kind == S_NONE || b.kind == S_NONE) {
        sval r = a.kind == S_NONE ? b : a;
        r.or_none = true;
        r.certain = false;
        return r;
    }
    sval r = a.kind == S_AWAY ? b : a; /* a place the write may land beats "elsewhere" */
    r.certain = false;
    r.or_none |= a.or_none || b.or_none;
    return r;
}

static sval sym(proj *P, uint32_t file, uint32_t s, int depth);

/* What calling (or entering the with block of) NAME does to the working directory, for a
 * callee the project does not define: the names of well-known helpers. */
static sval library_effect(const char *name, bool in_with)
{
    static const char *const to_arg[] = {"chdir",        "change_cwd", "working_directory",
                                         "pushd",        "cd",         "in_dir",
                                         "cwd",          "as_cwd",     "set_cwd",
                                         "change_dir",   "changedir",  "chdir_context",
                                         "in_directory", NULL};
    static const char *const to_temp[] = {"temp_cwd",    "tmp_cwd",     "temp_chdir",
                                          "in_tempdir",  "in_temp_dir", "isolated_filesystem",
                                          "tempdir_cwd", "in_tmpdir",   "in_tmp_dir",
                                          "tmp_chdir",   NULL};
    const char *tail = strrchr(name, '.') ? strrchr(name, '.') + 1 : name;
    if (!in_with)
        return s_none();
    for (size_t i = 0; to_arg[i]; i++)
        if (!strcmp(tail, to_arg[i]))
            return (sval){.kind = S_PARAM, .param = 0, .certain = true};
    for (size_t i = 0; to_temp[i]; i++)
        if (!strcmp(tail, to_temp[i]))
            return s_away();
    return s_none();
}

/* The effect of function G of file GF on its caller's working directory: inside its with
 * block (a context manager, at its yield) or after a plain call (at its return). */
static sval effect(proj *P, uint32_t gf, uint32_t g, bool in_with, int depth)
{
    const tf_func *fn = &P->files[gf].facts.funcs[g];
    if (in_with && !(fn->flags & FN_CM))
        return s_none(); /* returns a context manager we cannot see into */
    if (!in_with && (fn->flags & FN_CM))
        return s_none(); /* calling a generator runs none of it */
    return sym(P, gf, in_with ? fn->yield_state : fn->exit_state, depth + 1);
}

/* An argument passed where the callee's effect is "my parameter". */
static sval arg_value(proj *P, uint32_t file, const tf_fpath *arg, int depth)
{
    if (arg->kind == TF_PATH_PARAM && !S(P, file, arg->text)[0] && arg->up == 0)
        return (sval){
            .kind = S_PARAM, .param = (uint16_t)TF_PARAM_INDEX(arg->ref), .certain = true};
    if (arg->kind == TF_PATH_PARAM)
        return s_away(); /* somewhere below a parameter */
    if (arg->kind == TF_PATH_CWD && !S(P, file, arg->text)[0])
        return sym(P, file, arg->ref, depth + 1);
    if (arg->kind == TF_PATH_UNKNOWN || arg->kind == TF_PATH_TEMP)
        return s_away();
    return (sval){.kind = S_PATH, .file = file, .path = *arg, .certain = true};
}

static sval sym_effect(proj *P, uint32_t file, const tf_state *st, int depth)
{
    const tf_facts *fa = &P->files[file].facts;
    uint32_t gf, g;
    const char *callee = S(P, file, st->callee);
    sval e = resolve_callee(P, file, st->func, callee, &gf, &g)
                 ? effect(P, gf, g, st->in_with, depth)
                 : library_effect(callee, st->in_with);
    (void)fa;
    if (e.kind == S_PARAM) {
        sval a = e.param == 0 ? arg_value(P, file, &st->value, depth) : s_away();
        a.certain &= e.certain;
        a.or_none |= e.or_none;
        e = a;
    } else if (e.kind == S_PATH && e.path.kind == TF_PATH_CWD) {
        e = s_away(); /* the callee's own earlier working directory: not ours to place */
    }
    if (e.or_none) { /* maybe unchanged: join with what was before */
        e.or_none = false;
        return s_join(e, sym(P, file, st->a, depth + 1));
    }
    return e;
}

static sval sym_compute(proj *P, uint32_t file, uint32_t s, int depth)
{
    const tf_state *st = &P->files[file].facts.states[s];
    switch (st->kind) {
    case ST_SET:
        return arg_value(P, file, &st->value, depth);
    case ST_EFFECT: {
        sval e = sym_effect(P, file, st, depth);
        return e.kind == S_NONE ? sym(P, file, st->a, depth + 1) : e;
    }
    case ST_JOIN:
        return s_join(sym(P, file, st->a, depth + 1), sym(P, file, st->b, depth + 1));
    default: /* ST_ENTRY, ST_INHERIT: the function's entry */
        return s_none();
    }
}

static sval sym(proj *P, uint32_t file, uint32_t s, int depth)
{
    fmemo *m = &P->m[file];
    if (s >= P->files[file].facts.n_states)
        return s_none();
    if (m->sym_m[s] == M_DONE)
        return m->sym[s];
    if (m->sym_m[s] == M_BUSY || depth > MAX_DEPTH) {
        sval r = s_none();
        r.certain = false;
        return r;
    }
    m->sym_m[s] = M_BUSY;
    sval r = sym_compute(P, file, s, depth);
    m->sym[s] = r;
    m->sym_m[s] = M_DONE;
    return r;
}

/* ---- concrete working directories ---- */

static cval conc(proj *P, uint32_t file, uint32_t s, int depth);
static cval entry(proj *P, uint32_t file, uint32_t func, int depth);

/* Join two concrete directories: a place a write may land beats "elsewhere". */
static cval c_join(cval a, cval b)
{
    if (a.kind == b.kind && (a.kind != C_DIR || !strcmp(a.dir, b.dir))) {
        a.certain &= b.certain;
        return a;
    }
    cval r = a.kind == C_AWAY ? b : a;
    r.certain = false;
    return r;
}

/* Two calls of one helper: each really happens, so a provable place from either stays
 * provable; two different places make neither certain. */
static cval c_union(cval a, cval b)
{
    if (a.kind == C_AWAY)
        return b;
    if (b.kind == C_AWAY)
        return a;
    if (a.kind == b.kind && (a.kind != C_DIR || !strcmp(a.dir, b.dir))) {
        a.certain |= b.certain;
        return a;
    }
    a.certain = false;
    return a;
}

static bool resolve_extern(proj *P, uint32_t *file, tf_pathval *pv, int depth);

/* An absolute directory for path PV of FILE, its relative part resolved against BASE. */
static cval place(proj *P, uint32_t file, const tf_pathval *pv, cval base, int depth)
{
    char joined[PATH_MAX * 2], norm[PATH_MAX];
    tf_pathval v = *pv;
    uint32_t vf = file;
    if (v.kind == TF_PATH_EXTERN && !resolve_extern(P, &vf, &v, depth))
        return (cval){C_AWAY, false, NULL};
    switch (v.kind) {
    case TF_PATH_LITERAL:
        if (v.text[0] == '~' && P->cfg->home)
            snprintf(joined, sizeof joined, "%s%s", P->cfg->home, v.text + 1);
        else if (v.text[0] == '/')
            snprintf(joined, sizeof joined, "%s", v.text);
        else if (tf_path_is_absolute(v.text))
            return (cval){C_AWAY, true, NULL};
        else if (base.kind == C_AWAY)
            return base;
        else
            snprintf(joined, sizeof joined, "%s/%s", base.kind == C_ROOT ? P->cfg->root : base.dir,
                     v.text);
        break;
    case TF_PATH_FILE: {
        size_t n = (size_t)snprintf(joined, sizeof joined, "%s", P->files[vf].absdir);
        for (int i = 0; i < v.up && n + 4 < sizeof joined; i++)
            n += (size_t)snprintf(joined + n, sizeof joined - n, "/..");
        if (v.text[0])
            snprintf(joined + n, sizeof joined - n, "/%s", v.text);
        break;
    }
    case TF_PATH_CWD: {
        cval c = conc(P, vf, v.state, depth + 1);
        if (c.kind == C_AWAY)
            return c;
        snprintf(joined, sizeof joined, "%s/%s", c.kind == C_ROOT ? P->cfg->root : c.dir, v.text);
        base.certain &= c.certain;
        break;
    }
    default: /* TEMP, PARAM, UNKNOWN: not a place in the project */
        return (cval){C_AWAY, true, NULL};
    }
    if (!tf_path_normalise(joined, norm, sizeof norm))
        return (cval){C_AWAY, false, NULL};
    if (!strcmp(norm, P->cfg->root))
        return (cval){C_ROOT, base.certain, NULL};
    if (!strcmp(norm, ".") || !strcmp(norm, ".."))
        return (cval){C_AWAY, false, NULL}; /* a relative base left: nowhere known */
    const char *d = intern(P, norm);
    return d ? (cval){C_DIR, base.certain, d} : (cval){C_AWAY, false, NULL};
}

/* A symbolic value applied to the working directory the function was entered with. */
static cval apply(proj *P, const sval *sv, cval at_entry, int depth)
{
    cval r;
    switch (sv->kind) {
    case S_NONE:
        r = at_entry;
        break;
    case S_PATH: {
        tf_pathval pv;
        tf_facts_pathval(&P->files[sv->file].facts, &sv->path, &pv);
        r = place(P, sv->file, &pv, at_entry, depth);
        break;
    }
    default: /* a parameter we cannot see, or somewhere else */
        r = (cval){C_AWAY, true, NULL};
    }
    if (sv->or_none)
        r = c_join(r, at_entry);
    r.certain &= sv->certain;
    return r;
}

static uint32_t func_of_state(const proj *P, uint32_t file, uint32_t s)
{
    return P->files[file].facts.states[s].func;
}

static cval conc(proj *P, uint32_t file, uint32_t s, int depth)
{
    fmemo *m = &P->m[file];
    if (s >= P->files[file].facts.n_states)
        return c_default(P);
    if (m->conc_m[s] == M_DONE)
        return m->conc[s];
    if (m->conc_m[s] == M_BUSY || depth > MAX_DEPTH) {
        cval r = c_default(P);
        r.certain = false;
        return r;
    }
    m->conc_m[s] = M_BUSY;
    sval sv = sym(P, file, s, depth + 1);
    cval r = apply(P, &sv, entry(P, file, func_of_state(P, file, s), depth + 1), depth + 1);
    m->conc[s] = r;
    m->conc_m[s] = M_DONE;
    return r;
}

/* ---- fixtures and entries ---- */

static const char *builtin_fixture_away[] = {"pytester", "testdir", NULL};

typedef struct fxq {
    uint32_t file, func;
    bool found;
} fxq;

/* Fixture NAME as a test in FILE (class CLS) sees it: the class's, the module's, then the
 * conftest.py files from the file's directory up to the root. */
static bool find_fixture(const proj *P, uint32_t file, const char *cls, const char *name,
                         uint32_t *ff, uint32_t *fi)
{
    if (*cls && map_get(P, K_FIXTURE, file, cls, name, fi)) {
        *ff = file;
        return true;
    }
    if (map_get(P, K_FIXTURE, file, "", name, fi)) {
        *ff = file;
        return true;
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", P->files[file].absdir);
    for (;;) {
        uint32_t c;
        if (map_get(P, K_CONFTEST, 0, "", dir, &c) && c != file &&
            map_get(P, K_FIXTURE, c, "", name, fi)) {
            *ff = c;
            return true;
        }
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir || strlen(dir) <= strlen(P->cfg->root))
            return false;
        *slash = '\0';
    }
}

static sval fixture_effect(proj *P, uint32_t ff, uint32_t fi, int depth);

/* The combined effect of the comma-separated fixture NAMES: the last that moves wins. A
 * fixture that requests its own name (pytest's testing/conftest.py wraps pytester) gets the
 * one it overrides: SELF_FILE/SELF_FUNC is never its own answer. */
static void names_effect(proj *P, uint32_t file, const char *cls, const char *names, sval *acc,
                         int depth, uint32_t self_file, uint32_t self_func)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", names);
    for (char *save = NULL, *n = strtok_r(buf, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
        uint32_t ff, fi;
        sval e = s_none();
        bool builtin = false;
        for (size_t i = 0; builtin_fixture_away[i]; i++)
            builtin |= !strcmp(n, builtin_fixture_away[i]);
        if (find_fixture(P, file, cls, n, &ff, &fi) && (ff != self_file || fi != self_func))
            e = fixture_effect(P, ff, fi, depth + 1);
        else if (builtin)
            e = s_away(); /* pytester changes to its own temporary directory */
        if (e.kind != S_NONE)
            *acc = e;
    }
}

static sval fixture_effect(proj *P, uint32_t ff, uint32_t fi, int depth)
{
    fmemo *m = &P->m[ff];
    if (m->fixture_m[fi] == M_DONE)
        return m->fixture[fi];
    if (m->fixture_m[fi] == M_BUSY || depth > MAX_DEPTH)
        return s_none();
    m->fixture_m[fi] = M_BUSY;
    const tf_func *fn = &P->files[ff].facts.funcs[fi];
    sval e = sym(P, ff, fn->yield_state, depth + 1);
    if (e.kind == S_NONE) { /* its own fixtures may have moved it (pytester, another chdir) */
        sval acc = s_none();
        names_effect(P, ff, S(P, ff, fn->cls), S(P, ff, fn->params), &acc, depth + 1, ff, fi);
        e = acc;
    } else if (e.kind == S_PARAM) {
        e = s_away(); /* monkeypatch.chdir(tmp_path): a fixture value */
    }
    m->fixture[fi] = e;
    m->fixture_m[fi] = M_DONE;
    return e;
}

/* Autouse fixtures seen from FILE (class CLS): conftest.py files from the root down, the
 * module's, the class's. */
static void autouse_effect(proj *P, uint32_t file, const char *cls, sval *acc, int depth)
{
    uint32_t conftests[64];
    int n = 0;
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", P->files[file].absdir);
    for (;;) { /* the conftest.py files from here up to the root, nearest first */
        uint32_t c;
        if (n < 64 && map_get(P, K_CONFTEST, 0, "", dir, &c) && c != file)
            conftests[n++] = c;
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir || strlen(dir) <= strlen(P->cfg->root))
            break;
        *slash = '\0';
    }
    for (int d = n; d >= 0; d--) { /* root first, the module last: the nearest wins */
        uint32_t c = d == 0 ? file : conftests[d - 1];
        const tf_facts *fa = &P->files[c].facts;
        for (uint32_t i = 1; i < fa->n_funcs; i++) {
            const tf_func *fn = &fa->funcs[i];
            const char *fcls = S(P, c, fn->cls);
            if (!(fn->flags & FN_AUTOUSE) || (*fcls && (d > 0 || strcmp(fcls, cls))))
                continue;
            sval e = fixture_effect(P, c, i, depth + 1);
            if (e.kind != S_NONE)
                *acc = e;
        }
    }
}

/* setUpModule/setUpClass/setUp and their pytest spellings: what they leave behind. */
static void setup_effect(proj *P, uint32_t file, const char *cls, sval *acc, int depth)
{
    static const char *const module_level[] = {"setUpModule", "setup_module", NULL};
    static const char *const class_level[] = {"setUpClass", "setup_class", "setUp", "setup_method",
                                              "asyncSetUp", "setup",       NULL};
    for (size_t i = 0; module_level[i]; i++) {
        uint32_t g;
        if (map_get(P, K_FUNC, file, "", module_level[i], &g)) {
            sval e = sym(P, file, P->files[file].facts.funcs[g].exit_state, depth + 1);
            if (e.kind != S_NONE)
                *acc = e;
        }
    }
    for (size_t i = 0; *cls && class_level[i]; i++) {
        uint32_t gf, g;
        if (find_method(P, file, cls, class_level[i], 0, &gf, &g)) {
            sval e = sym(P, gf, P->files[gf].facts.funcs[g].exit_state, depth + 1);
            if (e.kind == S_PARAM)
                e = s_away();
            if (e.kind != S_NONE)
                *acc = e;
        }
    }
}

static const char *class_usefixtures(const proj *P, uint32_t file, const char *cls)
{
    uint32_t ci;
    if (*cls && map_get(P, K_CLASS, file, "", cls, &ci))
        return S(P, file, P->files[file].facts.classes[ci].usefixtures);
    return "";
}

/* Does fixture FI of FF, or a fixture it requests, point a variable elsewhere (FLAG, one of
 * FN_SETS_*)? */
static bool fixture_sets(proj *P, uint32_t ff, uint32_t fi, uint16_t flag, int depth);

static bool names_set(proj *P, uint32_t file, const char *cls, const char *names, uint16_t flag,
                      int depth, uint32_t self_file, uint32_t self_func)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", names);
    for (char *save = NULL, *n = strtok_r(buf, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
        uint32_t ff, fi;
        if (find_fixture(P, file, cls, n, &ff, &fi) && (ff != self_file || fi != self_func) &&
            fixture_sets(P, ff, fi, flag, depth + 1))
            return true;
    }
    return false;
}

static bool fixture_sets(proj *P, uint32_t ff, uint32_t fi, uint16_t flag, int depth)
{
    const tf_func *fn = &P->files[ff].facts.funcs[fi];
    if (fn->flags & flag)
        return true;
    return depth < 16 &&
           names_set(P, ff, S(P, ff, fn->cls), S(P, ff, fn->params), flag, depth, ff, fi);
}

static bool autouse_sets(proj *P, uint32_t file, uint16_t flag)
{
    const tf_facts *fa = &P->files[file].facts;
    for (uint32_t i = 1; i < fa->n_funcs; i++)
        if (fa->funcs[i].flags & FN_AUTOUSE && fixture_sets(P, file, i, flag, 0))
            return true;
    return false;
}

/* Is a variable (FLAG: FN_SETS_HOME, ...) somewhere else (a temporary directory) while FUNC of
 * FILE runs? Its own monkeypatch.setenv, a fixture it requests, or an autouse fixture above it.
 * A hook or helper (pytest_configure) has only its own. */
static bool redirected(proj *P, uint32_t file, uint32_t func, uint16_t flag)
{
    const tf_func *fn = &P->files[file].facts.funcs[func];
    const char *cls = S(P, file, fn->cls);
    if (fn->flags & flag)
        return true;
    if (!(fn->flags & (FN_TEST | FN_FIXTURE | FN_SETUP)))
        return false;
    if (names_set(P, file, cls, S(P, file, fn->params), flag, 0, file, func) ||
        names_set(P, file, cls, S(P, file, fn->usefixtures), flag, 0, file, func))
        return true;
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", P->files[file].absdir);
    for (;;) { /* autouse fixtures of the module, then of the conftest.py files above it */
        uint32_t c = file;
        if (autouse_sets(P, file, flag) ||
            (map_get(P, K_CONFTEST, 0, "", dir, &c) && c != file && autouse_sets(P, c, flag)))
            return true;
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir || strlen(dir) <= strlen(P->cfg->root))
            return false;
        *slash = '\0';
    }
}

/* Where a test (or fixture, or setup) starts: the runner's directory, moved by its fixtures
 * and its class's setup. */
static cval test_entry(proj *P, uint32_t file, uint32_t func, int depth)
{
    const tf_func *fn = &P->files[file].facts.funcs[func];
    const char *cls = S(P, file, fn->cls);
    sval acc = s_none();
    if (fn->flags & FN_TEST) {
        autouse_effect(P, file, cls, &acc, depth);
        names_effect(P, file, cls, S(P, file, P->files[file].facts.module_usefixtures), &acc, depth,
                     file, func);
        names_effect(P, file, cls, class_usefixtures(P, file, cls), &acc, depth, file, func);
    }
    names_effect(P, file, cls, S(P, file, fn->usefixtures), &acc, depth, file, func);
    if (fn->flags & (FN_TEST | FN_FIXTURE))
        names_effect(P, file, cls, S(P, file, fn->params), &acc, depth, file, func);
    if (fn->flags & FN_TEST ||
        (fn->flags & FN_SETUP && !strncasecmp(S(P, file, fn->name), "teardown", 8)))
        setup_effect(P, file, cls, &acc, depth); /* teardown runs where the test ran */
    if (acc.kind == S_PARAM)
        acc = s_away();
    return apply(P, &acc, c_default(P), depth + 1);
}

/* Where a helper starts: wherever its callers are when they call it. */
static cval helper_entry(proj *P, uint32_t file, uint32_t func, int depth)
{
    bool any = false;
    cval r = c_default(P);
    uint32_t k = P->base[file] + func;
    for (uint32_t i = P->first[k]; i < P->first[k + 1]; i++) {
        if (P->edges[i].cfile == file && func_of_state(P, file, P->edges[i].cstate) == func)
            continue; /* recursion */
        cval c = conc(P, P->edges[i].cfile, P->edges[i].cstate, depth + 1);
        r = any ? c_union(r, c) : c;
        any = true;
    }
    if (!any)
        r.certain = false; /* nobody calls it that we can see: assume the runner's directory */
    return r;
}

static cval entry_compute(proj *P, uint32_t file, uint32_t func, int depth)
{
    const tf_func *fn = &P->files[file].facts.funcs[func];
    if (func == 0)
        return c_default(P);
    if (fn->flags & FN_MAIN)
        return (cval){C_AWAY, true, NULL};
    if (fn->flags & FN_NESTED) {
        const tf_state *st = &P->files[file].facts.states[fn->entry];
        cval parent = conc(P, file, st->a, depth + 1);
        cval called = helper_entry(P, file, func, depth);
        return called.certain ? c_join(parent, called) : parent;
    }
    if (fn->flags & (FN_TEST | FN_FIXTURE | FN_SETUP))
        return test_entry(P, file, func, depth);
    return helper_entry(P, file, func, depth);
}

static cval entry(proj *P, uint32_t file, uint32_t func, int depth)
{
    fmemo *m = &P->m[file];
    if (m->entry_m[func] == M_DONE)
        return m->entry[func];
    if (m->entry_m[func] == M_BUSY || depth > MAX_DEPTH) {
        cval r = c_default(P);
        r.certain = false;
        return r;
    }
    m->entry_m[func] = M_BUSY;
    cval r = entry_compute(P, file, func, depth);
    m->entry[func] = r;
    m->entry_m[func] = M_DONE;
    return r;
}

/* ---- module constants ---- */

/* An EXTERN value (module.NAME) replaced by that module's constant, in that module's file. */
static bool resolve_extern(proj *P, uint32_t *file, tf_pathval *pv, int depth)
{
    for (int hop = 0; pv->kind == TF_PATH_EXTERN && hop < 8 && depth < MAX_DEPTH; hop++) {
        char mod[sizeof pv->ext];
        snprintf(mod, sizeof mod, "%s", pv->ext);
        char *dot = strrchr(mod, '.');
        uint32_t to;
        if (!dot)
            return false;
        *dot = '\0';
        if (!find_module(P, *file, mod, &to) || !P->files[to].scanned)
            return false;
        const tf_facts *fa = &P->files[to].facts;
        size_t i = 0;
        while (i < fa->n_exports && strcmp(S(P, to, fa->exports[i].name), dot + 1))
            i++;
        if (i == fa->n_exports)
            return false;
        tf_pathval base;
        tf_facts_pathval(fa, &fa->exports[i].value, &base);
        /* what was applied to the constant (joins, parents) applies to its value */
        int up = pv->up;
        char text[sizeof pv->text];
        snprintf(text, sizeof text, "%s", pv->text);
        bool object = pv->object, wild = pv->wild || base.wild;
        *pv = base;
        for (int k = 0; k < up; k++)
            tf_pv_parent(pv);
        if (text[0])
            tf_pv_join(pv, text, strlen(text));
        pv->object = object || base.object;
        pv->wild = wild;
        *file = to;
    }
    return pv->kind != TF_PATH_EXTERN && pv->kind != TF_PATH_UNKNOWN;
}

/* ---- judging ---- */

static bool is_protected(const tf_audit_cfg *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->n_protected; i++)
        if (!strcmp(cfg->protected_names[i], name))
            return true;
    return false;
}

/* The writable system paths of the fence hold no user data: never a finding. */
static bool is_system_sink(const char *abs)
{
    static const char *const sinks[] = {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty",
                                        "/dev/shm",  "/dev/fd",     "/dev/pts",    "/proc/self/fd",
                                        "/dev/zero", "/dev/full",   "/dev/random", "/dev/urandom"};
    for (size_t i = 0; i < sizeof sinks / sizeof sinks[0]; i++)
        if (tf_path_within(abs, sinks[i]))
            return true;
    return false;
}

/* Windows device names (NUL, CON, //./conout$) are not files: never a finding. */
static bool is_windows_device(const char *text)
{
    /* \\?\... and \\.\... are the device namespaces, not files */
    if ((text[0] == '\\' || text[0] == '/') && (text[1] == '\\' || text[1] == '/') &&
        (text[2] == '?' || text[2] == '.') && (text[3] == '\\' || text[3] == '/'))
        return true;
    static const char *const devices[] = {"nul", "con", "conin$", "conout$", "prn", "aux"};
    const char *base = text;
    for (const char *p = text; *p; p++)
        if (*p == '/' || *p == '\\')
            base = p + 1;
    for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++)
        if (!strcasecmp(base, devices[i]))
            return true;
    return false;
}

/* Copy S for a one-line message: control characters become '?', long text is cut. */
static void display(char *out, size_t outlen, const char *s)
{
    size_t len = strlen(s), max = outlen - 1 < 120 ? outlen - 1 : 120, n = 0;
    for (size_t i = 0; i < len && n < max; i++)
        out[n++] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
    if (len > max && n >= 3)
        memcpy(out + n - 3, "...", 3);
    out[n] = '\0';
}

/* A destination as people should read it: relative to the root inside it, ~ in HOME. */
static void show_dest(const proj *P, const char *abs, char *out, size_t len)
{
    size_t n = strlen(P->cfg->root);
    const char *home = P->cfg->home;
    if (!strcmp(abs, P->cfg->root))
        display(out, len, "."); /* the project root itself */
    else if (tf_path_within(abs, P->cfg->root) && abs[n] == '/')
        display(out, len, abs + n + 1);
    else if (home && home[1] && tf_path_within(abs, home)) {
        char buf[PATH_MAX + 2];
        snprintf(buf, sizeof buf, "~%s", abs + strlen(home));
        display(out, len, buf);
    } else
        display(out, len, abs);
}

typedef struct judged {
    tf_rule_id rule;
    tf_severity sev;
    char dest[160];
    const char *where; /* the working directory, when it is not simply the runner's */
    char where_buf[200];
    bool away;    /* a relative path that lands outside the project: said as such */
    char rel[96]; /* that relative path as written, when it is a literal */
} judged;

enum origin { O_REL, O_ABS, O_FILE };

static bool in_home(const proj *P, const char *abs)
{
    const char *home = P->cfg->home;
    return (home && tf_path_is_absolute(home) && home[1] && tf_path_within(abs, home)) ||
           tf_path_within(abs, "/root") || (tf_path_within(abs, "/home") && strcmp(abs, "/home"));
}

/* Where an absolute destination lands, and what that means. False: nowhere that matters. */
static bool judge_dest(const proj *P, const tf_audit_file *file, const char *abs,
                       enum origin origin, bool certain, judged *j)
{
    char tests[PATH_MAX];
    if (is_system_sink(abs) || tf_path_within(abs, P->root_tests) ||
        tf_path_within(abs, file->anchor) || !strcmp(abs, "/"))
        return false; /* nothing is created or removed at "/" itself */
    (void)tests;
    show_dest(P, abs, j->dest, sizeof j->dest);
    bool in_root = tf_path_within(abs, P->cfg->root);
    /* HOME before the temp dir: a CI container's HOME is often under /tmp, and ~/.x there is
     * the user's file, not a fixed name shared in /tmp (core/hint.c decides the same way). */
    if (!in_root && origin == O_ABS && !in_home(P, abs) &&
        (tf_path_within(abs, "/tmp") || tf_path_within(abs, "/var/tmp"))) {
        const char *rest = abs + (tf_path_within(abs, "/tmp") ? 4 : 8);
        if (!*rest || strchr(rest, '*'))
            return false; /* the temp dir itself, or a unique name */
        j->rule = TF_RULE_SYSTEMP;
        j->sev = TF_SEV_WARNING;
        return true;
    }
    size_t n = strlen(P->cfg->root);
    j->rule = origin == O_REL    ? TF_RULE_RELATIVE
              : origin == O_FILE ? TF_RULE_CLIMB
                                 : TF_RULE_ABSOLUTE;
    if (in_root && abs[n] == '/' && !strchr(abs + n + 1, '/') && is_protected(P->cfg, abs + n + 1))
        j->rule = TF_RULE_PROTECTED;
    j->sev = certain && (in_root || in_home(P, abs)) ? TF_SEV_ERROR : TF_SEV_WARNING;
    return true;
}

static void describe_cwd(const proj *P, cval c, judged *j)
{
    if (c.kind == C_DIR) {
        char shown[160];
        show_dest(P, c.dir, shown, sizeof shown);
        snprintf(j->where_buf, sizeof j->where_buf, "; the working directory is \"%s\" here",
                 shown);
        j->where = j->where_buf;
    } else if (!c.certain) {
        j->where = "; if the working directory is the project root";
    }
}

/* A recursive deletion: rmtree, removedirs, py.path's remove, rm -r in a shell command. */
static bool is_deletion(const proj *P, uint32_t file, const tf_fact *x)
{
    const char *op = S(P, file, x->op);
    return x->flags & FF_DELETE || !strcmp(op, "shutil.rmtree") || !strcmp(op, "os.removedirs") ||
           !strcmp(op, "remove");
}

/* TF110: a deletion of the root, of a directory holding the test, or of the working directory
 * (or a name joined to it that is not known). False: an ordinary write, judged as such. */
static bool judge_delete(proj *P, uint32_t file, const tf_pathval *pv, cval d, judged *j)
{
    const char *abs = d.kind == C_ROOT ? P->cfg->root : d.dir;
    const tf_audit_file *f = &P->files[file];
    bool cwd = pv->kind == TF_PATH_CWD ||
               (pv->kind == TF_PATH_LITERAL && pv->text[0] != '/' && pv->text[0] != '~');
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", abs);
    char *slash = strrchr(parent, '/');
    bool unknown_name = pv->wild && slash && !strcmp(slash + 1, "*");
    if (slash == parent)
        parent[1] = '\0'; /* "/x": the parent is "/" */
    else if (slash)
        *slash = '\0';
    const char *target = unknown_name ? parent : abs;
    if (!tf_path_within(target, P->cfg->root) && !tf_path_within(f->absdir, target))
        return false;
    bool cwd_itself = !pv->text[0] || !strcmp(pv->text, ".");
    if (!tf_path_within(f->absdir, target) && !(cwd && (unknown_name || cwd_itself)))
        return false; /* below the root, not above the test: an ordinary write */
    show_dest(P, target, j->dest, sizeof j->dest);
    if (!strcmp(target, P->cfg->root))
        snprintf(j->dest, sizeof j->dest, "the project root");
    j->rule = TF_RULE_DELETE;
    j->sev = d.certain && !unknown_name ? TF_SEV_ERROR : TF_SEV_WARNING;
    j->where = unknown_name ? "?" : ""; /* the name joined to it is not known */
    return true;
}

/* Judge one write fact of FILE: false when it lands nowhere that matters. */
static bool judge_write(proj *P, uint32_t file, const tf_fact *x, judged *j)
{
    tf_pathval pv;
    uint32_t vf = file;
    tf_facts_pathval(&P->files[file].facts, &x->target, &pv);
    if (pv.kind == TF_PATH_EXTERN && !resolve_extern(P, &vf, &pv, 0))
        return false;
    j->where = "";
    j->away = false;
    j->rel[0] = '\0';
    if (pv.kind == TF_PATH_TEMP) {
        if (!pv.text[0] || pv.wild || strchr(pv.text, '*'))
            return false;
        char shown[sizeof pv.text + 8];
        snprintf(shown, sizeof shown, "<tmp>/%s", pv.text);
        display(j->dest, sizeof j->dest, shown);
        j->rule = TF_RULE_SYSTEMP;
        j->sev = TF_SEV_WARNING;
        return true;
    }
    if (pv.kind == TF_PATH_LITERAL && is_windows_device(pv.text))
        return false;
    if (pv.kind == TF_PATH_LITERAL && tf_path_is_absolute(pv.text) && pv.text[0] != '/' &&
        pv.text[0] != '~') {
        display(j->dest, sizeof j->dest, pv.text); /* C:/..., \\server: another machine's */
        j->rule = TF_RULE_ABSOLUTE;
        j->sev = TF_SEV_WARNING;
        return true;
    }
    enum origin origin = pv.kind == TF_PATH_FILE                                      ? O_FILE
                         : pv.kind == TF_PATH_LITERAL && tf_path_is_absolute(pv.text) ? O_ABS
                                                                                      : O_REL;
    cval cwd = c_default(P);
    if (origin == O_REL && pv.kind == TF_PATH_LITERAL)
        cwd = conc(P, file, x->state, 0);
    bool to_home = pv.kind == TF_PATH_LITERAL && pv.text[0] == '~';
    if (to_home && redirected(P, file, func_of_state(P, file, x->state), FN_SETS_HOME))
        return false; /* HOME is the fixture's temporary directory here */
    cval d = place(P, vf, &pv, cwd, 0);
    if (d.kind == C_AWAY)
        return false;
    if (is_deletion(P, file, x) && judge_delete(P, file, &pv, d, j))
        return true;
    if (!judge_dest(P, &P->files[file], d.kind == C_ROOT ? P->cfg->root : d.dir, origin,
                    d.certain && !(x->flags & FF_LIKELY), j))
        return false;
    if (origin == O_REL && pv.kind == TF_PATH_LITERAL)
        describe_cwd(P, cwd, j);
    j->away = origin == O_REL && d.kind != C_ROOT && !tf_path_within(d.dir, P->cfg->root);
    if (j->away && pv.kind == TF_PATH_LITERAL)
        display(j->rel, sizeof j->rel, pv.text);
    return true;
}

static void finding(proj *P, tf_audit_result *res, uint32_t file, const tf_fact *x, tf_rule_id rule,
                    tf_severity sev, const char *fmt, ...) __attribute__((format(TF_PRINTF, 7, 8)));

static void finding(proj *P, tf_audit_result *res, uint32_t file, const tf_fact *x, tf_rule_id rule,
                    tf_severity sev, const char *fmt, ...)
{
    tf_finding *f = tf_audit_add(res, P->cfg, rule);
    if (!f)
        return;
    f->path = P->files[file].path;
    f->rel = P->files[file].rel;
    f->line = x->pos.line;
    f->col = x->pos.col;
    f->end_line = x->pos.end_line > x->pos.line ? x->pos.end_line : x->pos.line;
    f->severity = sev;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->message, sizeof f->message, fmt, ap);
    va_end(ap);
    const tf_facts *fa = &P->files[file].facts;
    for (size_t i = 0; i < fa->n_supps; i++) {
        const tf_supp *s = &fa->supps[i];
        bool applies = s->whole || (s->line >= f->line && s->line <= f->end_line) ||
                       (s->own_line && !s->noqa && s->line + 1 == f->line);
        if (applies && (s->rules & (1u << rule)))
            f->suppressed = true;
    }
}

/* ---- git configuration and shell commands (TF108, TF109) ---- */

/* Is git's global (or, SYSTEM, the machine's) configuration redirected for the command? ENV:
 * what its own environment redirects (TF_SH_ENV_*). Sets *HALF when HOME is and
 * XDG_CONFIG_HOME is not. */
static bool git_redirected(proj *P, uint32_t file, uint32_t func, unsigned env, bool system,
                           bool *half)
{
    *half = false;
    if (system)
        return env & TF_SH_ENV_GITSYS || redirected(P, file, func, FN_SETS_GITSYS);
    if (env & TF_SH_ENV_GITCFG || redirected(P, file, func, FN_SETS_GITCFG))
        return true;
    bool home = env & TF_SH_ENV_HOME || redirected(P, file, func, FN_SETS_HOME);
    bool xdg = env & TF_SH_ENV_XDG || redirected(P, file, func, FN_SETS_XDG);
    *half = home && !xdg;
    return home && xdg;
}

/* The project's own repository: git config run in DIR (absolute) that is in the project and
 * not in tests/ (where a test may have made a repository of its own). */
static bool project_repo(const proj *P, const char *dir)
{
    return tf_path_within(dir, P->cfg->root) && !tf_path_within(dir, P->root_tests);
}

/* TF108 for git config of scope KIND, run by fact X (PREFIX: the script it is in, or ""). */
static void git_finding(proj *P, tf_audit_result *res, uint32_t file, const tf_fact *x,
                        tf_sh_kind kind, unsigned env, const char *cmd, const char *prefix)
{
    bool half;
    uint32_t func = func_of_state(P, file, x->state);
    if (git_redirected(P, file, func, env, kind == TF_SH_GIT_SYSTEM, &half))
        return;
    if (kind == TF_SH_GIT_SYSTEM)
        finding(P, res, file, x, TF_RULE_GITCONFIG, TF_SEV_WARNING,
                "%sruns \"%s\": it changes the machine's git configuration (/etc/gitconfig)",
                prefix, cmd);
    else if (half)
        finding(P, res, file, x, TF_RULE_GITCONFIG, TF_SEV_WARNING,
                "%sruns \"%s\" with HOME redirected but not XDG_CONFIG_HOME: git writes the "
                "user's $XDG_CONFIG_HOME/git/config where it exists",
                prefix, cmd);
    else
        finding(P, res, file, x, TF_RULE_GITCONFIG, TF_SEV_ERROR,
                "%sruns \"%s\": it changes the user's git configuration (~/.gitconfig)", prefix,
                cmd);
}

/* git config in a repository's scope: the directory it runs in, placed. */
static void git_repo_finding(proj *P, tf_audit_result *res, uint32_t file, const tf_fact *x,
                             const tf_pathval *dir, const char *cmd, const char *prefix)
{
    cval cwd = conc(P, file, x->state, 0);
    cval d = place(P, file, dir, cwd, 0);
    const char *abs = d.kind == C_ROOT ? P->cfg->root : d.dir;
    if (d.kind == C_AWAY || !project_repo(P, abs))
        return;
    judged j = {.where = ""};
    if (dir->kind == TF_PATH_LITERAL && !tf_path_is_absolute(dir->text))
        describe_cwd(P, cwd, &j);
    finding(P, res, file, x, TF_RULE_GITCONFIG, d.certain ? TF_SEV_ERROR : TF_SEV_WARNING,
            "%sruns \"%s\" in the project's directory: it changes the project's own "
            "repository configuration (.git/config)%s",
            prefix, cmd, j.where);
}

/* A deletion whose operand starts with VAR, which may be empty: IF_EMPTY is what it deletes. */
static void empty_var_finding(proj *P, tf_audit_result *res, uint32_t file, const tf_fact *x,
                              const char *var, const char *cmd, const char *if_empty,
                              const char *prefix)
{
    char norm[PATH_MAX], shown[160], shown_cmd[120];
    if (!tf_path_normalise(if_empty, norm, sizeof norm))
        return;
    bool all = !strcmp(norm, "/") || !strcmp(norm, "/*") || !strcmp(norm, "*");
    display(shown, sizeof shown, norm);
    display(shown_cmd, sizeof shown_cmd, cmd);
    finding(P, res, file, x, TF_RULE_SHELL, all ? TF_SEV_ERROR : TF_SEV_WARNING,
            "%sruns \"%s\": with %s empty or unset it deletes \"%s\"", prefix, shown_cmd, var,
            shown);
}

static void shdel_finding(proj *P, tf_audit_result *res, uint32_t file, const tf_fact *x)
{
    const char *op = S(P, file, x->op), *bar = strchr(op, '|');
    tf_pathval pv;
    char var[64];
    if (!bar)
        return;
    snprintf(var, sizeof var, "%.*s", (int)(bar - op), op);
    tf_facts_pathval(&P->files[file].facts, &x->target, &pv);
    empty_var_finding(P, res, file, x, var, bar + 1, pv.text, "");
}

typedef struct script_ctx {
    proj *P;
    tf_audit_result *res;
    uint32_t file;
    const tf_fact *x;
    unsigned env; /* what the call's env= redirects */
    char prefix[200];
} script_ctx;

/* A path a script deletes or writes, relative to the test's working directory: TF109 when it
 * lands outside tests/ (in HOME only where HOME is the user's). */
static void script_path_finding(script_ctx *c, const tf_sh_cmd *cmd, const char *what)
{
    proj *P = c->P;
    tf_pathval pv;
    if (!cmd->path[0] || cmd->path[0] == '*' || (cmd->after_cd && !tf_path_is_absolute(cmd->path)))
        return;
    if (cmd->path[0] == '~' &&
        ((cmd->env | c->env) & TF_SH_ENV_HOME ||
         redirected(P, c->file, func_of_state(P, c->file, c->x->state), FN_SETS_HOME)))
        return;
    tf_pv_literal(&pv, cmd->path, strlen(cmd->path), false);
    pv.wild = cmd->wild;
    cval cwd = conc(P, c->file, c->x->state, 0);
    cval d = place(P, c->file, &pv, cwd, 0);
    judged j;
    if (d.kind == C_AWAY ||
        !judge_dest(P, &P->files[c->file], d.kind == C_ROOT ? P->cfg->root : d.dir,
                    tf_path_is_absolute(cmd->path) ? O_ABS : O_REL, d.certain, &j) ||
        j.rule == TF_RULE_SYSTEMP)
        return;
    if (d.kind == C_ROOT)
        finding(P, c->res, c->file, c->x, TF_RULE_SHELL, j.sev, "%s the project root", what);
    else
        finding(P, c->res, c->file, c->x, TF_RULE_SHELL, j.sev, "%s \"%s\" outside tests/", what,
                j.dest);
}

static void on_script_cmd(void *ctx, const tf_sh_cmd *cmd)
{
    script_ctx *c = ctx;
    char prefix[300], shown[120];
    display(shown, sizeof shown, cmd->shown);
    snprintf(prefix, sizeof prefix, "%sline %d ", c->prefix, cmd->line);
    switch (cmd->kind) {
    case TF_SH_GIT_GLOBAL:
    case TF_SH_GIT_SYSTEM:
        git_finding(c->P, c->res, c->file, c->x, cmd->kind, cmd->env | c->env, shown, prefix);
        return;
    case TF_SH_GIT_REPO: {
        tf_pathval dir;
        if (cmd->after_cd)
            return;
        tf_pv_literal(&dir, cmd->path[0] ? cmd->path : ".", strlen(cmd->path[0] ? cmd->path : "."),
                      false);
        git_repo_finding(c->P, c->res, c->file, c->x, &dir, shown, prefix);
        return;
    }
    case TF_SH_DELETE:
        if (cmd->empty_var[0] && cmd->if_empty[0])
            empty_var_finding(c->P, c->res, c->file, c->x, cmd->empty_var, shown, cmd->if_empty,
                              prefix);
        else if (strncmp(cmd->shown, "find", 4) || tf_path_is_absolute(cmd->path)) {
            char what[440];
            snprintf(what, sizeof what, "%sruns \"%s\": it deletes", prefix, shown);
            script_path_finding(c, cmd, what);
        }
        return;
    case TF_SH_REDIRECT:
    case TF_SH_GIT_FILE:
        snprintf(prefix + strlen(prefix), sizeof prefix - strlen(prefix), "writes to");
        script_path_finding(c, cmd, prefix);
        return;
    default: /* a script it runs in turn: not followed */
        return;
    }
}

/* A script the test runs: read where the test runs it, its commands judged at the call. */
static void script_findings(proj *P, tf_audit_result *res, uint32_t file, const tf_fact *x)
{
    tf_pathval pv;
    tf_facts_pathval(&P->files[file].facts, &x->target, &pv);
    cval cwd = conc(P, file, x->state, 0);
    cval d = place(P, file, &pv, cwd, 0);
    const char *abs = d.kind == C_ROOT ? P->cfg->root : d.dir;
    tf_script sc;
    if (d.kind == C_AWAY || !tf_path_within(abs, P->cfg->root) || pv.wild ||
        !tf_script_scan(abs, !strcmp(S(P, file, x->op), "sh"), &sc))
        return;
    script_ctx c = {
        .P = P, .res = res, .file = file, .x = x, .env = (unsigned)x->flags >> TF_FF_ENV_SHIFT};
    char rel[160];
    show_dest(P, abs, rel, sizeof rel);
    snprintf(c.prefix, sizeof c.prefix, "runs \"%s\", whose ", rel);
    for (size_t i = 0; i < sc.n; i++)
        on_script_cmd(&c, &sc.cmds[i]);
    tf_script_free(&sc);
}

static void judge_fact(proj *P, tf_audit_result *res, uint32_t file, const tf_fact *x)
{
    char op[128], shown[160];
    /* a call is named with its parentheses; "a shell redirection" is not a call */
    snprintf(op, sizeof op, strchr(S(P, file, x->op), ' ') ? "%s" : "%s()", S(P, file, x->op));
    judged j;
    switch (x->kind) {
    case FACT_WRITE:
        if (!judge_write(P, file, x, &j))
            return;
        if (j.rule == TF_RULE_PROTECTED)
            finding(P, res, file, x, j.rule, j.sev,
                    "writes to protected root file \"%s\" (via %.*s)%s", j.dest,
                    (int)strcspn(op, "("), op, j.where);
        else if (j.rule == TF_RULE_SYSTEMP)
            finding(P, res, file, x, j.rule, j.sev,
                    "%s writes the fixed name \"%s\" in the system temp directory", op, j.dest);
        else if (j.rule == TF_RULE_DELETE)
            finding(P, res, file, x, j.rule, j.sev,
                    j.where[0] ? "%s deletes a name joined to the working directory (%s%s%s) that "
                                 "is not known: an empty one deletes the working directory itself"
                               : "%s deletes %s%s%s, a directory the test did not create",
                    op, strcmp(j.dest, "the project root") ? "\"" : "", j.dest,
                    strcmp(j.dest, "the project root") ? "\"" : "");
        else if (j.rule == TF_RULE_CLIMB)
            finding(P, res, file, x, j.rule, j.sev,
                    "%s writes to \"%s\": a path from __file__ that climbs out of tests/", op,
                    j.dest);
        else if (j.rule == TF_RULE_ABSOLUTE)
            finding(P, res, file, x, j.rule, j.sev,
                    "%s writes to absolute path \"%s\" outside tests/", op, j.dest);
        else if (j.away && j.rel[0]) /* an absolute destination is not called relative */
            finding(P, res, file, x, j.rule, j.sev,
                    "%s writes to \"%s\" outside the project (relative path \"%s\")%s", op, j.dest,
                    j.rel, j.where);
        else if (j.away)
            finding(P, res, file, x, j.rule, j.sev,
                    "%s writes to \"%s\" outside the project (a path relative to the working "
                    "directory)%s",
                    op, j.dest, j.where);
        else
            finding(P, res, file, x, j.rule, j.sev,
                    "%s writes to relative path \"%s\" outside tests/%s", op, j.dest, j.where);
        return;
    case FACT_TEMP:
        finding(P, res, file, x, TF_RULE_TMP_PATH, TF_SEV_STYLE,
                "%s without dir= creates it in the system temp directory; prefer tmp_path", op);
        return;
    case FACT_ARTIFACTS:
        display(shown, sizeof shown, S(P, file, x->op));
        finding(P, res, file, x, TF_RULE_ARTIFACTS, TF_SEV_STYLE,
                "hard-coded \"%s\" path; use a fixture (tmp_path) or $TESTFENCE_WORKSPACE", shown);
        return;
    case FACT_GIT: {
        tf_pathval dir;
        unsigned env = (unsigned)x->flags >> TF_FF_ENV_SHIFT;
        tf_facts_pathval(&P->files[file].facts, &x->target, &dir);
        display(shown, sizeof shown, S(P, file, x->op));
        if (x->flags & FF_GIT_REPO)
            git_repo_finding(P, res, file, x, &dir, shown, "");
        else
            git_finding(P, res, file, x,
                        x->flags & FF_GIT_SYSTEM ? TF_SH_GIT_SYSTEM : TF_SH_GIT_GLOBAL, env, shown,
                        "");
        return;
    }
    case FACT_SHDEL:
        shdel_finding(P, res, file, x);
        return;
    case FACT_SCRIPT:
        script_findings(P, res, file, x);
        return;
    case FACT_PYCACHE:
        finding(P, res, file, x, TF_RULE_PYCACHE, TF_SEV_WARNING,
                "%s starts Python without PYTHONDONTWRITEBYTECODE/PYTHONPYCACHEPREFIX: it "
                "writes __pycache__/ next to the project's modules",
                op);
        return;
    default: /* FACT_SYNTAX */
        finding(P, res, file, x, TF_RULE_SYNTAX, TF_SEV_ERROR,
                "syntax error (%s); the rest of the file is audited as far as it parses", op);
    }
}

/* ---- calls followed into the project's functions ---- */

/* Call I of FILE's function, as build_edges resolved it. */
static bool callee_of(const proj *P, uint32_t file, size_t i, uint32_t *gf, uint32_t *g)
{
    const uint32_t *r = P->m[file].callee ? P->m[file].callee[i] : NULL;
    if (!r || r[0] == UINT32_MAX)
        return false;
    *gf = r[0], *g = r[1];
    return true;
}

/* How deep calls are followed from test code: the test's call, and the calls that function
 * makes (save_config() -> _write(path)). docs/audit.md says why two. */
#define FOLLOW_DEPTH 2
#define MAX_PARAMS 32

static uint32_t fact_func(const tf_facts *fa, size_t i)
{
    return fa->states[fa->facts[i].state].func;
}
static uint32_t call_func(const tf_facts *fa, size_t i)
{
    return fa->calls[i].func;
}
static uint32_t param_func(const tf_facts *fa, size_t i)
{
    return fa->params[i].func;
}

/* Group N elements by their function (a counting sort): out->idx[start[f]..start[f+1]). */
static int group(const tf_facts *fa, size_t n, uint32_t (*func)(const tf_facts *, size_t),
                 byfunc *out)
{
    out->start = calloc(fa->n_funcs + 2, sizeof *out->start);
    out->idx = malloc((n ? n : 1) * sizeof *out->idx);
    if (!out->start || !out->idx)
        return -1;
    for (size_t i = 0; i < n; i++)
        out->start[func(fa, i) + 2]++;
    for (size_t f = 2; f < fa->n_funcs + 2; f++)
        out->start[f] += out->start[f - 1];
    for (size_t i = 0; i < n; i++)
        out->idx[out->start[func(fa, i) + 1]++] = (uint32_t)i;
    return 0;
}

static bool grouped(proj *P, uint32_t file)
{
    fmemo *m = &P->m[file];
    const tf_facts *fa = &P->files[file].facts;
    if (!m->grouped) {
        m->grouped = true;
        if (group(fa, fa->n_facts, fact_func, &m->facts) < 0 ||
            group(fa, fa->n_calls, call_func, &m->calls) < 0 ||
            group(fa, fa->n_params, param_func, &m->params) < 0)
            P->oom = true;
    }
    return !P->oom;
}

/* What one parameter of a followed call gets. */
enum { A_ABSENT, A_VALUE };
typedef struct actual {
    uint8_t how;
    bool from_site;  /* the test's own argument decides it */
    bool falsy;      /* a literal None, False, 0 or "" */
    bool maybe_none; /* a fixture that may return None */
    uint32_t file;   /* the file pv belongs to */
    tf_pathval pv;
} actual;

/* One followed call: function G of file GF and what its parameters get. */
typedef struct frame {
    uint32_t gf, g;
    uint32_t bound; /* bit i: a[i] is set; else the parameter got nothing (A_ABSENT) */
    bool told;      /* some argument is known, None, or a fixture that may give None */
    actual a[MAX_PARAMS];
    const struct frame *init; /* Class().method(): what __init__ got */
} frame;

/* The test's call being followed, and what was reported for it. */
typedef struct site {
    uint32_t file, func, state;
    const tf_call *call;
    tf_audit_result *res;
    unsigned rules; /* reported already: one finding a call and rule (the output keeps one) */
} site;

/* Parameter INDEX of function G of GF, or NULL. */
static const tf_param *param_rec(proj *P, uint32_t gf, uint32_t g, unsigned index)
{
    const fmemo *m = &P->m[gf];
    const tf_facts *fa = &P->files[gf].facts;
    for (uint32_t k = m->params.start[g]; k < m->params.start[g + 1]; k++)
        if (fa->params[m->params.idx[k]].index == index)
            return &fa->params[m->params.idx[k]];
    return NULL;
}

/* The value parameter INDEX of FR stands for. OR_DEFAULT: the use is "p or FALLBACK". False
 * when nothing is known or nothing is written (None given: a join with None raises). */
static bool param_value(proj *P, const frame *fr, unsigned index, bool or_default, tf_pathval *pv,
                        uint32_t *file, bool *certain, bool *from_site, char *note, size_t len)
{
    const tf_param *pr = param_rec(P, fr->gf, fr->g, index);
    if (!pr || index >= MAX_PARAMS)
        return false;
    static const actual absent = {.how = A_ABSENT};
    const actual *a = fr->bound & (1u << index) ? &fr->a[index] : &absent;
    const char *name = S(P, fr->gf, pr->name);
    bool fallback = or_default && (pr->flags & PA_FALLBACK);
    *from_site = a->how == A_VALUE && a->from_site;
    if (a->how == A_VALUE && !a->falsy && a->pv.kind != TF_PATH_UNKNOWN) {
        *pv = a->pv;
        *file = a->file;
        return pv->kind != TF_PATH_PARAM;
    }
    if (a->how == A_VALUE && !a->falsy && !(a->maybe_none && fallback))
        return false; /* not known */
    if (a->how == A_ABSENT && !(pr->flags & PA_DEFAULT))
        return false;
    bool falsy_default = a->how == A_ABSENT && (pr->flags & PA_FALSY);
    if ((a->how == A_VALUE || falsy_default) && !fallback)
        return false;
    const tf_fpath *fp = (a->how == A_VALUE || falsy_default) ? &pr->fallback : &pr->dflt;
    tf_facts_pathval(&P->files[fr->gf].facts, fp, pv);
    *file = fr->gf;
    *certain &= !a->maybe_none;
    snprintf(note, len, ", %s %s%s", fp == &pr->dflt ? "the default of" : "the fallback of", name,
             a->maybe_none ? " when its fixture gives None" : "");
    return pv->kind != TF_PATH_UNKNOWN && pv->kind != TF_PATH_PARAM;
}

/* Apply what a use did below a parameter (UP levels, then TEXT) to the value it got. */
static void below(tf_pathval *pv, const tf_pathval *use)
{
    bool wild = pv->wild || use->wild;
    for (int k = 0; k < use->up; k++)
        tf_pv_parent(pv);
    if (use->text[0])
        tf_pv_join(pv, use->text, strlen(use->text));
    pv->wild = wild && pv->kind != TF_PATH_UNKNOWN;
}

/* Is fixture NAME, as test FUNC of FILE requests it, one that may give None? */
static bool fixture_may_none(proj *P, uint32_t file, uint32_t func, const char *name)
{
    uint32_t ff, fi;
    const char *cls = S(P, file, P->files[file].facts.funcs[func].cls);
    return find_fixture(P, file, cls, name, &ff, &fi) &&
           (P->files[ff].facts.funcs[fi].flags & FN_MAY_NONE);
}

/* What argument X of a call in CF (made by CALLER, the frame it runs in, NULL for test code)
 * gives its parameter. */
static void actual_of(proj *P, uint32_t cf, uint32_t func, const frame *caller, const tf_arg *x,
                      actual *out)
{
    *out = (actual){.how = A_VALUE, .from_site = !caller, .file = cf};
    out->falsy = x->flags & ARG_FALSY;
    tf_facts_pathval(&P->files[cf].facts, &x->value, &out->pv);
    if (out->pv.kind != TF_PATH_PARAM || TF_PARAM_FUNC(out->pv.state) != func)
        return;
    tf_pathval use = out->pv;
    unsigned index = TF_PARAM_INDEX(use.state);
    tf_pv_unknown(&out->pv);
    if (!caller) { /* a test's parameter is a fixture's value */
        const tf_func *fn = &P->files[cf].facts.funcs[func];
        const tf_param *pr = grouped(P, cf) ? param_rec(P, cf, func, index) : NULL;
        out->maybe_none = pr && (fn->flags & (FN_TEST | FN_FIXTURE)) && !use.up && !use.text[0] &&
                          fixture_may_none(P, cf, func, S(P, cf, pr->name));
        return;
    }
    bool certain = true, from_site;
    char note[8];
    if (index < MAX_PARAMS && (caller->bound & (1u << index)) && caller->a[index].how == A_VALUE &&
        caller->a[index].maybe_none && !use.up && !use.text[0]) {
        *out = caller->a[index]; /* passed on as it came */
        out->from_site = true;
        return;
    }
    if (param_value(P, caller, index, use.or_default, &out->pv, &out->file, &certain, &from_site,
                    note, sizeof note)) {
        below(&out->pv, &use);
        out->from_site = from_site;
    } else {
        tf_pv_unknown(&out->pv);
    }
}

/* Bind the arguments of call C (of CF, in frame CALLER) to the parameters of G of GF. */
static void bind_frame(proj *P, uint32_t cf, const tf_call *c, const frame *caller, uint32_t gf,
                       uint32_t g, frame *out)
{
    const tf_facts *ca = &P->files[cf].facts, *fa = &P->files[gf].facts;
    const fmemo *m = &P->m[gf];
    int shift = *S(P, gf, fa->funcs[g].cls) ? 1 : 0; /* a method: self comes first */
    out->gf = gf, out->g = g, out->init = NULL, out->bound = 0, out->told = false;
    for (uint32_t k = m->params.start[g]; k < m->params.start[g + 1]; k++) {
        const tf_param *pr = &fa->params[m->params.idx[k]];
        const tf_arg *found = NULL;
        int pos = pr->flags & (PA_KWONLY | PA_STAR) ? -1 : (int)pr->index - shift;
        if (pr->index >= MAX_PARAMS || (shift && pr->index == 0))
            continue;
        for (uint32_t i = c->arg0; !found && i < c->arg0 + c->n_args; i++) {
            const tf_arg *x = &ca->args[i];
            if (x->kw ? !strcmp(S(P, cf, x->kw), S(P, gf, pr->name)) : x->pos == pos)
                found = x;
        }
        if (found)
            actual_of(P, cf, c->func, caller, found, &out->a[pr->index]);
        else if ((c->flags & CALL_STAR) || (pr->flags & PA_STAR) || (pos >= 0 && pos < c->n_pos))
            out->a[pr->index] = (actual){.how = A_VALUE}; /* given, but not known */
        else
            continue;
        out->bound |= 1u << pr->index;
        const actual *a = &out->a[pr->index];
        out->told |= a->pv.kind != TF_PATH_UNKNOWN || a->falsy || a->maybe_none;
    }
}

/* Judge value PV (of file VF), written by a function called from state ST of test file SF. */
static bool judge_followed(proj *P, uint32_t sf, uint32_t st, uint32_t vf, tf_pathval *pv,
                           bool certain, judged *j)
{
    if (pv->kind == TF_PATH_EXTERN && !resolve_extern(P, &vf, pv, 0))
        return false;
    j->where = "";
    if (pv->kind == TF_PATH_TEMP) {
        if (!pv->text[0] || pv->wild || strchr(pv->text, '*'))
            return false;
        char shown[sizeof pv->text + 8];
        snprintf(shown, sizeof shown, "<tmp>/%s", pv->text);
        display(j->dest, sizeof j->dest, shown);
        j->rule = TF_RULE_SYSTEMP;
        j->sev = TF_SEV_WARNING;
        return true;
    }
    if (pv->kind == TF_PATH_LITERAL &&
        (is_windows_device(pv->text) ||
         (tf_path_is_absolute(pv->text) && pv->text[0] != '/' && pv->text[0] != '~')))
        return false; /* a device, or another OS's path in the project's code */
    bool library = P->files[vf].library;
    enum origin origin = pv->kind == TF_PATH_FILE && !library                           ? O_FILE
                         : pv->kind == TF_PATH_FILE                                     ? O_ABS
                         : pv->kind == TF_PATH_LITERAL && tf_path_is_absolute(pv->text) ? O_ABS
                                                                                        : O_REL;
    cval cwd = c_default(P);
    if (origin == O_REL && pv->kind == TF_PATH_LITERAL)
        cwd = conc(P, sf, st, 0);
    if (pv->kind == TF_PATH_LITERAL && pv->text[0] == '~' && !pv->home_early &&
        redirected(P, sf, func_of_state(P, sf, st), FN_SETS_HOME))
        return false; /* read at call time, and the test points HOME elsewhere */
    cval d = place(P, vf, pv, cwd, 0);
    if (d.kind == C_AWAY || !judge_dest(P, &P->files[sf], d.kind == C_ROOT ? P->cfg->root : d.dir,
                                        origin, d.certain && certain, j))
        return false;
    if (origin == O_REL && pv->kind == TF_PATH_LITERAL)
        describe_cwd(P, cwd, j);
    return true;
}

/* Report write X of FR's function at the test's call. */
static void report_followed(proj *P, site *s, const frame *fr, const tf_fact *x, judged *j,
                            const char *note)
{
    char callee[160], op[64], at[PATH_MAX + 64];
    const char *name = S(P, s->file, s->call->callee);
    if (s->call->flags & CALL_CTOR) { /* app.App.run -> app.App().run */
        const char *dot = strrchr(name, '.');
        snprintf(callee, sizeof callee, "%.*s()%s", (int)(dot - name), name, dot);
    } else {
        snprintf(callee, sizeof callee, "%s", name);
    }
    snprintf(op, sizeof op, "%s", S(P, fr->gf, x->op));
    const tf_audit_file *wf = &P->files[fr->gf];
    snprintf(at, sizeof at, "%s%s at %s:%d%s", op, strchr(op, ' ') ? "" : "()",
             wf->rel ? wf->rel : wf->path, x->pos.line, note);
    tf_fact where = {.pos = {(int)s->call->line, s->call->col, (int)s->call->line}};
    if (j->rule == TF_RULE_PROTECTED)
        finding(P, s->res, s->file, &where, j->rule, j->sev,
                "writes to protected root file \"%s\" (via %s(): %s)%s", j->dest, callee, at,
                j->where);
    else if (j->rule == TF_RULE_SYSTEMP)
        finding(P, s->res, s->file, &where, j->rule, j->sev,
                "%s() writes the fixed name \"%s\" in the system temp directory (%s)", callee,
                j->dest, at);
    else if (j->rule == TF_RULE_CLIMB)
        finding(P, s->res, s->file, &where, j->rule, j->sev,
                "%s() writes to \"%s\": a path from __file__ that climbs out of tests/ (%s)",
                callee, j->dest, at);
    else if (j->rule == TF_RULE_ABSOLUTE)
        finding(P, s->res, s->file, &where, j->rule, j->sev,
                "%s() writes to absolute path \"%s\" outside tests/ (%s)", callee, j->dest, at);
    else
        finding(P, s->res, s->file, &where, j->rule, j->sev,
                "%s() writes to relative path \"%s\" outside tests/ (%s)%s", callee, j->dest, at,
                j->where);
}

/* Is the guard of X ("if clean:") false for what FR's parameters got? *CERTAIN: known true. */
static bool guard_off(proj *P, const frame *fr, const tf_fact *x, bool *certain)
{
    if (!x->guard || x->guard > MAX_PARAMS)
        return false;
    static const actual absent = {.how = A_ABSENT};
    const actual *a = fr->bound & (1u << (x->guard - 1)) ? &fr->a[x->guard - 1] : &absent;
    const tf_param *pr = param_rec(P, fr->gf, fr->g, x->guard - 1u);
    if (a->how == A_ABSENT)
        return !pr || !(pr->flags & PA_DEFAULT) || (pr->flags & PA_FALSY);
    if (a->falsy)
        return true;
    *certain &= a->pv.kind != TF_PATH_UNKNOWN || a->from_site;
    return false;
}

/* Has FR's function a parameter with a default? */
static bool has_default(proj *P, const frame *fr)
{
    const fmemo *m = &P->m[fr->gf];
    for (uint32_t k = m->params.start[fr->g]; k < m->params.start[fr->g + 1]; k++)
        if (P->files[fr->gf].facts.params[m->params.idx[k]].flags & PA_DEFAULT)
            return true;
    return false;
}

/* Write X of FR's function: where it lands for this call, reported at the test's call.
 * THROUGH_TESTS: FR was called by test code (a helper in tests/), so only what the test's
 * own arguments decide is reported here; the rest is at the helper's own call. */
static void follow_write(proj *P, site *s, const frame *fr, uint32_t xi, bool through_tests,
                         int pass)
{
    const tf_fact *x = &P->files[fr->gf].facts.facts[xi];
    bool certain = !(x->flags & FF_LIKELY), from_site = false;
    char note[96] = "";
    tf_pathval use, pv;
    uint32_t vf = fr->gf;
    if (x->kind != FACT_WRITE || guard_off(P, fr, x, &certain))
        return;
    tf_facts_pathval(&P->files[fr->gf].facts, &x->target, &use);
    if ((use.up > 0) != (pass == 1))
        return; /* the file itself first, then its parent directories (mkdir) */
    if (use.kind == TF_PATH_PARAM) {
        const frame *owner = TF_PARAM_FUNC(use.state) == fr->g ? fr : fr->init;
        if (!owner || TF_PARAM_FUNC(use.state) != owner->g ||
            !param_value(P, owner, TF_PARAM_INDEX(use.state), use.or_default, &pv, &vf, &certain,
                         &from_site, note, sizeof note))
            return;
        below(&pv, &use);
    } else if (P->files[fr->gf].library) {
        pv = use;
    } else {
        return; /* test code's own write: judged where it is */
    }
    if ((through_tests && !from_site) || pv.kind == TF_PATH_UNKNOWN || pv.kind == TF_PATH_PARAM)
        return;
    judged j;
    if (!judge_followed(P, s->file, s->state, vf, &pv, certain, &j) || (s->rules & (1u << j.rule)))
        return;
    s->rules |= 1u << j.rule;
    report_followed(P, s, fr, x, &j, note);
}

static void follow(proj *P, site *s, const frame *fr, int depth, bool through_tests)
{
    if (!grouped(P, fr->gf))
        return;
    /* Test code called with nothing known: its writes to parameters land nowhere known
     * (defaults aside), its own writes are judged where they are, and what it calls with
     * nothing from here is reported at its own calls. Most calls of a suite stop here. */
    bool tests = P->files[fr->gf].collected;
    if (tests && !fr->told && !has_default(P, fr))
        return;
    const fmemo *m = &P->m[fr->gf];
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t k = m->facts.start[fr->g]; k < m->facts.start[fr->g + 1]; k++)
            follow_write(P, s, fr, m->facts.idx[k], through_tests, pass);
    const tf_facts *fa = &P->files[fr->gf].facts;
    for (uint32_t k = m->calls.start[fr->g]; depth < FOLLOW_DEPTH && k < m->calls.start[fr->g + 1];
         k++) {
        const tf_call *c = &fa->calls[m->calls.idx[k]];
        uint32_t hf, h;
        if ((tests && !fr->told) || !callee_of(P, fr->gf, m->calls.idx[k], &hf, &h) ||
            (hf == fr->gf && h == fr->g) || !grouped(P, hf))
            continue;
        frame next;
        bind_frame(P, fr->gf, c, fr, hf, h, &next);
        follow(P, s, &next, depth + 1, through_tests || P->files[fr->gf].collected);
    }
}

/* Every call test code makes into a function of the project, followed; not from a function
 * that patches code (the call may reach a mock, not the project). */
static void follow_calls(proj *P, tf_audit_result *res, uint32_t f)
{
    const tf_facts *fa = &P->files[f].facts;
    for (size_t i = 0; i < fa->n_calls && !P->oom; i++) {
        const tf_call *c = &fa->calls[i];
        uint32_t gf, g, inf, in;
        if ((fa->funcs[c->func].flags & FN_PATCHES) || !callee_of(P, f, i, &gf, &g) ||
            !grouped(P, gf) || !grouped(P, f))
            continue;
        site s = {.file = f, .func = c->func, .state = c->state, .call = c, .res = res};
        frame fr, init;
        bind_frame(P, f, c, NULL, gf, g, &fr);
        const char *dot = strrchr(S(P, f, c->callee), '.');
        if ((c->flags & CALL_CTOR) && i + 1 < fa->n_calls &&
            dot && /* App(x).run(): App(x) is recorded next */
            !strncmp(S(P, f, fa->calls[i + 1].callee), S(P, f, c->callee),
                     (size_t)(dot - S(P, f, c->callee))) &&
            callee_of(P, f, i + 1, &inf, &in) && grouped(P, inf)) {
            bind_frame(P, f, &fa->calls[i + 1], NULL, inf, in, &init);
            fr.init = &init;
        }
        follow(P, &s, &fr, 1, false);
    }
}

static int memo_alloc(proj *P)
{
    if (!(P->m = calloc(P->n ? P->n : 1, sizeof *P->m)))
        return -1;
    for (size_t f = 0; f < P->n; f++) {
        size_t ns = P->files[f].facts.n_states + 1, nf = P->files[f].facts.n_funcs + 1;
        fmemo *m = &P->m[f];
        m->sym = calloc(ns, sizeof *m->sym);
        m->conc = calloc(ns, sizeof *m->conc);
        m->entry = calloc(nf, sizeof *m->entry);
        m->fixture = calloc(nf, sizeof *m->fixture);
        m->sym_m = calloc(ns, 1);
        m->conc_m = calloc(ns, 1);
        m->entry_m = calloc(nf, 1);
        m->fixture_m = calloc(nf, 1);
        if (!m->sym || !m->conc || !m->entry || !m->fixture || !m->sym_m || !m->conc_m ||
            !m->entry_m || !m->fixture_m)
            return -1;
    }
    return 0;
}

static void proj_free(proj *P)
{
    for (size_t f = 0; P->m && f < P->n; f++) {
        fmemo *m = &P->m[f];
        free(m->sym), free(m->conc), free(m->entry), free(m->fixture);
        free(m->sym_m), free(m->conc_m), free(m->entry_m), free(m->fixture_m);
        free(m->facts.start), free(m->facts.idx), free(m->calls.start), free(m->calls.idx);
        free(m->params.start), free(m->params.idx), free(m->callee);
    }
    for (size_t i = 0; i < P->n_dirs; i++)
        free(P->dirs[i]);
    free(P->dirs);
    free(P->m);
    free(P->map);
    free(P->edges);
    free(P->base);
    free(P->first);
}

int tf_audit_project(const tf_audit_cfg *cfg, const tf_audit_lang *lang, tf_audit_file *files,
                     size_t n, tf_audit_result *res, tf_err *err)
{
    proj P = {.cfg = cfg, .files = files, .n = n};
    char joined[PATH_MAX * 2];
    snprintf(joined, sizeof joined, "%s/%s", cfg->root, cfg->tests_dir);
    if (!tf_path_normalise(joined, P.root_tests, sizeof P.root_tests))
        snprintf(P.root_tests, sizeof P.root_tests, "%s", cfg->root);
    int rc = -1;
    if (memo_alloc(&P) == 0 && build_map(&P) == 0 && build_edges(&P) == 0) {
        collect(&P, lang);
        for (uint32_t f = 0; f < n && !P.oom; f++) {
            if (!files[f].collected || files[f].context)
                continue;
            for (size_t i = 0; i < files[f].facts.n_facts; i++)
                judge_fact(&P, res, f, &files[f].facts.facts[i]);
            follow_calls(&P, res, f);
        }
        rc = P.oom ? -1 : 0;
    }
    proj_free(&P);
    return rc < 0 ? tf_errf(err, "audit: out of memory") : 0;
}
