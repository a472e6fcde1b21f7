/* audit_pathval: the abstract path values the audit's data flow computes.
 * Language front ends build them from expressions; the engine judges where they point. */
#ifndef TESTFENCE_AUDIT_PATHVAL_H
#define TESTFENCE_AUDIT_PATHVAL_H

#include <stdbool.h>
#include <stddef.h>

typedef enum tf_path_kind {
    TF_PATH_UNKNOWN, /* not statically known (a fixture, a parameter, a call): never a finding */
    TF_PATH_LITERAL, /* text is the path as written ("config.toml", "/home/x", "~/x"); a
                        relative one resolves against the working directory of its use */
    TF_PATH_FILE,    /* derived from the source file's own location (__file__) */
    /* Paths below a base the front end cannot place; text and up as for FILE: */
    TF_PATH_CWD,    /* the working directory as it was at state `state` (os.getcwd()) */
    TF_PATH_TEMP,   /* the system temp directory (tempfile.gettempdir()) */
    TF_PATH_EXTERN, /* a module constant of another module (ext: its dotted name) */
    TF_PATH_PARAM,  /* a function's parameter (state: TF_PARAM_REF(func, index)); up and text
                       as for FILE, below the value the caller passes */
    TF_PATH_KIND_COUNT
} tf_path_kind;

typedef struct tf_pathval {
    tf_path_kind kind;
    bool object;     /* a path object whose methods write (pathlib.Path), not a plain string */
    bool wild;       /* text holds '*' where a part is not known (f"{name}.log") */
    int up;          /* FILE/CWD/TEMP/EXTERN: levels above the base; -1 = the file itself */
    unsigned state;  /* TF_PATH_CWD: the state; TF_PATH_PARAM: TF_PARAM_REF(func, index) */
    bool or_default; /* PARAM: "p or DEFAULT": the function's fallback when the argument is falsy */
    bool home_early; /* "~" read when the module was imported (a module constant's
                        Path.home()): a HOME the test points elsewhere later does not move it */
    char ext[96];    /* TF_PATH_EXTERN: "module.NAME" */
    char text[256];  /* LITERAL: the path; others: components below the climbed-to base */
} tf_pathval;

/* A parameter: INDEX (its place among the named parameters, < 256) of function FUNC. */
#define TF_PARAM_REF(func, index) ((unsigned)(func) << 8 | (unsigned)(index))
#define TF_PARAM_FUNC(ref) ((unsigned)(ref) >> 8)
#define TF_PARAM_INDEX(ref) ((unsigned)(ref)&0xffu)

void tf_pv_unknown(tf_pathval *pv);
/* A literal path; falls back to unknown when it does not fit. */
void tf_pv_literal(tf_pathval *pv, const char *s, size_t len, bool object);
/* The source file itself (__file__). */
void tf_pv_file(tf_pathval *pv, bool object);
/* The base of KIND (CWD, TEMP, EXTERN, PARAM) itself, with nothing below it. */
void tf_pv_based(tf_pathval *pv, tf_path_kind kind, bool object);

/* Append one relative or absolute component string ("a/b", "..", "/abs").
 * An absolute component replaces the path, as os.path.join and Path / do. */
void tf_pv_join(tf_pathval *pv, const char *comp, size_t len);
/* The directory containing pv (Path.parent, os.path.dirname). */
void tf_pv_parent(tf_pathval *pv);
/* Replace the last component (Path.with_name). */
void tf_pv_set_name(tf_pathval *pv, const char *name, size_t len);
/* Replace the suffix of the last component (Path.with_suffix). */
void tf_pv_set_suffix(tf_pathval *pv, const char *suffix, size_t len);

/* Is S an absolute path on some OS: "/x", "~", "~/x", "C:/x", "C:\\x", "\\\\server"? */
bool tf_path_is_absolute(const char *s);

/* Normalise S lexically into out: '\\' kept, "." dropped, ".." applied where
 * possible (leading ".." kept for relative paths). Returns false if it does not fit. */
bool tf_path_normalise(const char *s, char *out, size_t outlen);

/* Is PATH (normalised) equal to DIR or beneath it? */
bool tf_path_within(const char *path, const char *dir);

#endif
