/* audit_facts: what a front end learns from one source file, before any judgement.
 * Writes with the working-directory state they run in, functions, fixtures, calls, imports and
 * module constants; compact, position-independent, and serialisable for the per-file cache. */
#ifndef TESTFENCE_AUDIT_FACTS_H
#define TESTFENCE_AUDIT_FACTS_H

#include "audit_pathval.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a fact is in the source: 1-based line, 1-based character column, and the last line
 * of the construct (a suppression comment on any of its lines applies). */
typedef struct tf_pos {
    int line, col, end_line;
} tf_pos;

/* A path value as stored: its text lives in the facts' string pool. */
typedef struct tf_fpath {
    uint8_t kind;  /* tf_path_kind */
    uint8_t wild;  /* the text holds '*' for parts that are not known */
    uint8_t obj;   /* a path object (pathlib), not a string */
    uint8_t flags; /* FP_OR_DEFAULT, FP_HOME_EARLY */
    int16_t up;
    uint32_t text; /* string pool offset */
    uint32_t ref;  /* CWD: the state; EXTERN: the dotted name (pool offset); PARAM: its ref */
} tf_fpath;

enum { FP_OR_DEFAULT = 1, FP_HOME_EARLY = 2 }; /* tf_pathval's or_default, home_early */

/* Kinds of facts that become findings once judged. */
enum tf_fact_kind {
    FACT_WRITE,     /* op writes to target */
    FACT_TEMP,      /* a unique temp file or dir in the system temp dir (style) */
    FACT_ARTIFACTS, /* a literal naming the artifacts dir (style) */
    FACT_PYCACHE,   /* a subprocess whose environment lost the bytecode settings */
    FACT_SYNTAX,    /* the first syntax error */
    FACT_GIT,       /* git config that writes: the scope in flags (FF_GIT_*), target the -C or
                       cwd= directory (repository scope), op the command as shown */
    FACT_SHDEL,     /* a shell deletion whose operand starts with a variable that may be
                       empty: op "VAR|command", target the path when VAR is empty */
    FACT_SCRIPT,    /* a shell script the test runs: target its path (read by the project phase) */
    FACT_KIND_COUNT
};

enum {
    FF_LIKELY = 1,     /* the write itself is only likely (a shell redirection, ...) */
    FF_DELETE = 2,     /* FACT_WRITE: a recursive deletion (rmtree, rm -r, removedirs) */
    FF_GIT_SYSTEM = 2, /* FACT_GIT: --system */
    FF_GIT_REPO = 4,   /* FACT_GIT: the repository of its directory (no scope, --local) */
};
/* FACT_GIT, FACT_SCRIPT: the TF_SH_ENV_* bits the child's own environment redirects (env=,
 * HOME=x in the command) sit in flags from this bit on. */
#define TF_FF_ENV_SHIFT 3

typedef struct tf_fact {
    uint8_t kind, flags;
    uint8_t guard; /* under "if p:" for parameter p - 1 of its function (0: none) */
    tf_pos pos;
    uint32_t op; /* pool: what writes ("open", "shell redirection", ...) or the message text */
    tf_fpath target;
    uint32_t state; /* the working-directory state the fact happens in */
} tf_fact;

/* The working directory at a point of a function, symbolically. */
enum tf_state_kind {
    ST_ENTRY,   /* whatever the function was entered with; a = the function */
    ST_SET,     /* os.chdir(value) and the like; value UNKNOWN: somewhere else */
    ST_EFFECT,  /* after calling (a plain call) or inside (a with block of) callee; a = before */
    ST_JOIN,    /* either a or b (branches) */
    ST_INHERIT, /* a nested function: the enclosing function's state a */
};

typedef struct tf_state {
    uint8_t kind, in_with;
    uint32_t func; /* the function the state belongs to */
    uint32_t a, b;
    uint32_t callee; /* ST_EFFECT: pool, canonical dotted name ("os_helper.change_cwd") */
    tf_fpath value;  /* ST_SET: the new directory; ST_EFFECT: the first argument */
} tf_state;

enum {
    FN_TEST = 1,        /* collected as a test (test* function, or method of a test class) */
    FN_FIXTURE = 2,     /* @pytest.fixture */
    FN_AUTOUSE = 4,     /* @pytest.fixture(autouse=True) */
    FN_CM = 8,          /* @contextmanager: its effect holds inside a with block */
    FN_YIELDS = 16,     /* a generator: fixtures and context managers act at the yield */
    FN_NESTED = 32,     /* defined inside another function */
    FN_MAIN = 64,       /* under if __name__ == "__main__": never run by a test runner */
    FN_SETUP = 128,     /* setUp, setup_method, setUpClass, setup_class, setup_module, ... */
    FN_SETS_HOME = 256, /* points HOME elsewhere: monkeypatch.setenv("HOME", ...) */
    /* ... and the other places git reads its configuration from (issue 29): */
    FN_SETS_XDG = 512,     /* XDG_CONFIG_HOME */
    FN_SETS_GITCFG = 1024, /* GIT_CONFIG_GLOBAL (or GIT_CONFIG) */
    FN_SETS_GITSYS = 2048, /* GIT_CONFIG_SYSTEM (or GIT_CONFIG) */
    FN_MAY_NONE = 4096,    /* may return None (return, return None, os.environ.get(...)) */
    FN_PATCHES = 8192,     /* replaces something (monkeypatch.setattr, mock.patch): what its
                              calls reach is not what the project's code does */
};

typedef struct tf_func {
    uint32_t name;        /* pool: the function's name */
    uint32_t cls;         /* pool: the enclosing class's name, 0 when none */
    uint32_t fixture;     /* pool: the fixture name (name= or the function's) */
    uint32_t params;      /* pool: parameter names, comma-separated (fixture requests) */
    uint32_t usefixtures; /* pool: @pytest.mark.usefixtures names, comma-separated */
    uint16_t flags;
    uint32_t entry;       /* its ST_ENTRY (or ST_INHERIT) state */
    uint32_t yield_state; /* the state at its first yield (FN_YIELDS) */
    uint32_t exit_state;  /* the state where it returns */
} tf_func;

typedef struct tf_class {
    uint32_t name, bases; /* pool: name; canonical base names, comma-separated */
    uint32_t usefixtures;
} tf_class;

/* A call to a function that may be the project's (helpers), or a function passed as a value. */
typedef struct tf_call {
    uint32_t callee; /* pool: canonical dotted name, "self.x" and "cls.x" kept as such */
    uint32_t func;   /* the calling function (0 = module level) */
    uint32_t state;
    uint32_t line; /* where the call is (a finding through it is reported there) */
    uint16_t col;
    uint8_t n_pos; /* how many positional arguments it has (before any *args) */
    uint8_t flags; /* CALL_STAR, CALL_CTOR */
    uint32_t arg0; /* its known arguments: args[arg0 .. arg0 + n_args) */
    uint32_t n_args;
} tf_call;

enum {
    CALL_STAR = 1, /* a *args or **kwargs: which parameter gets what is not known */
    CALL_CTOR = 2, /* the receiver is Class(): a method call on a new instance */
};

/* The argument is the literal None; None, False, 0 or ""; True or another number. */
enum { ARG_NONE = 1, ARG_FALSY = 2, ARG_TRUE = 4 };

/* One argument of a call whose value is known (a path, a parameter passed on, a literal
 * None): positional (kw 0, at pos) or keyword. Arguments not known are not stored. */
typedef struct tf_arg {
    uint32_t kw; /* pool: the keyword, 0 for a positional argument */
    uint16_t pos;
    uint8_t flags;
    tf_fpath value;
} tf_arg;

enum {
    PA_DEFAULT = 1,  /* has a default value */
    PA_FALSY = 2,    /* its default is None, False, 0 or "" */
    PA_FALLBACK = 4, /* "p or X", "if p is None: p = X": X replaces a falsy argument */
    PA_KWONLY = 8,   /* after * or *args: only a keyword reaches it */
    PA_STAR = 16,    /* *args or **kwargs */
};

/* A named parameter of a function: its default and its fallback, for calls to follow. */
typedef struct tf_param {
    uint32_t func, name; /* name: pool */
    uint16_t index;      /* its place among the function's named parameters */
    uint8_t flags;
    tf_fpath dflt, fallback;
} tf_param;

/* A module constant: NAME = value at module level, for other modules' imports. */
typedef struct tf_export {
    uint32_t name;
    tf_fpath value;
} tf_export;

/* An import: the dotted module name and the relative level (from . import x: level 1). */
typedef struct tf_import {
    uint32_t module; /* pool */
    uint16_t level;
} tf_import;

/* A suppression comment: "# testfence: ignore[...]" (its line, the construct it ends, and the
 * next line when it stands alone), "# noqa[: ...]" (its line and the construct it ends, as
 * flake8 and ruff read it) or a file-level "# testfence: noqa" / "# ruff: noqa: TF..." (every
 * line of the file). */
typedef struct tf_supp {
    int line;
    bool own_line;
    bool noqa;  /* a noqa comment: never the next line */
    bool whole; /* file-level: every finding of the file */
    unsigned rules;
} tf_supp;

typedef struct tf_facts {
    char *pool; /* NUL-terminated strings; offset 0 is "" */
    size_t n_pool, cap_pool;
#define TF_FACTS_ARRAY(type, name)                                                                 \
    type *name;                                                                                    \
    size_t n_##name, cap_##name;
    TF_FACTS_ARRAY(tf_fact, facts)
    TF_FACTS_ARRAY(tf_state, states)
    TF_FACTS_ARRAY(tf_func, funcs)
    TF_FACTS_ARRAY(tf_class, classes)
    TF_FACTS_ARRAY(tf_call, calls)
    TF_FACTS_ARRAY(tf_export, exports)
    TF_FACTS_ARRAY(tf_import, imports)
    TF_FACTS_ARRAY(tf_supp, supps)
    TF_FACTS_ARRAY(tf_arg, args)
    TF_FACTS_ARRAY(tf_param, params)
#undef TF_FACTS_ARRAY
    uint32_t module_usefixtures; /* pool: pytestmark = pytest.mark.usefixtures(...) */
    uint32_t *interned;          /* hash set over pool offsets (not saved): one copy a string */
    size_t n_interned, cap_interned;
    bool oom;
} tf_facts;

/* Start empty facts: funcs[0] is the module's own code, states[0] its entry. */
int tf_facts_init(tf_facts *f);
void tf_facts_free(tf_facts *f);

/* Intern S[0..LEN) in the pool (once: the same string gets the same offset); returns its
 * offset (0 for "" or out of memory). */
uint32_t tf_facts_str(tf_facts *f, const char *s, size_t len);
const char *tf_facts_get(const tf_facts *f, uint32_t off);

/* Append one element; the index, or 0 when out of memory (f->oom set). Index 0 of the
 * states and funcs arrays is the module's, so 0 is never a new element of those. */
uint32_t tf_facts_add_fact(tf_facts *f, const tf_fact *x);
uint32_t tf_facts_add_state(tf_facts *f, const tf_state *x);
uint32_t tf_facts_add_func(tf_facts *f, const tf_func *x);
uint32_t tf_facts_add_class(tf_facts *f, const tf_class *x);
uint32_t tf_facts_add_call(tf_facts *f, const tf_call *x);
uint32_t tf_facts_add_export(tf_facts *f, const tf_export *x);
uint32_t tf_facts_add_import(tf_facts *f, const tf_import *x);
uint32_t tf_facts_add_supp(tf_facts *f, const tf_supp *x);
uint32_t tf_facts_add_arg(tf_facts *f, const tf_arg *x);
uint32_t tf_facts_add_param(tf_facts *f, const tf_param *x);

/* Store a working path value / bring one back (texts through the pool). */
tf_fpath tf_facts_path(tf_facts *f, const tf_pathval *pv);
void tf_facts_pathval(const tf_facts *f, const tf_fpath *fp, tf_pathval *out);

/* The facts as one byte string (for the cache), and back. tf_facts_load checks every
 * index, kind and string of untrusted bytes: false means "not usable", never a crash. */
int tf_facts_save(const tf_facts *f, char **out, size_t *len);
bool tf_facts_load(tf_facts *f, const char *data, size_t len);

#endif
