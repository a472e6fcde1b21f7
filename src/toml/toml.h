/* toml: a strict TOML 1.0 parser (plus the cheap TOML 1.1 additions) for the config loader.
 * Parses into a read-only tree where every value and key knows its line and column. */
#ifndef TESTFENCE_TOML_H
#define TESTFENCE_TOML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* Containers nest at most this deep (tables, arrays, dotted keys and headers alike), so
 * neither the parser nor a recursive consumer can run out of stack. */
#define TOML_MAX_DEPTH 128

/* toml_parse flags. The default accepts TOML 1.1 (newer pyproject.toml files use it). */
enum { TOML_STRICT_1_0 = 1 }; /* reject the TOML 1.1 additions */

typedef enum toml_type {
    TOML_TABLE = 1,
    TOML_ARRAY,
    TOML_STRING,
    TOML_INTEGER,
    TOML_FLOAT,
    TOML_BOOL,
    TOML_DATETIME,       /* offset date-time: 1979-05-27T07:32:00Z */
    TOML_DATETIME_LOCAL, /* 1979-05-27T07:32:00 */
    TOML_DATE_LOCAL,     /* 1979-05-27 */
    TOML_TIME_LOCAL,     /* 07:32:00 */
} toml_type;

/* 1-based; col counts Unicode characters, so it matches what an editor shows. */
typedef struct toml_pos {
    unsigned line, col;
} toml_pos;

/* Fields a type does not have are 0 (a local date has no time, a local time no date). */
typedef struct toml_datetime {
    int year, month, day;
    int hour, minute, second, nanosecond;
    int offset_minutes; /* TOML_DATETIME only: east of UTC, Z is 0 */
} toml_datetime;

/* A key as written in the document: str is NUL-terminated but may contain NULs ("\u0000"). */
typedef struct toml_key {
    const char *str;
    size_t len;
    toml_pos pos;
} toml_key;

typedef struct toml_doc toml_doc;
typedef struct toml_value toml_value;

/* Parse len bytes of data; name is used in error messages ("pyproject.toml:14:1: ...").
 * On success *out owns everything and is freed with toml_free(). */
int toml_parse(const char *name, const char *data, size_t len, unsigned flags, toml_doc **out,
               tf_err *err);
int toml_parse_file(const char *path, unsigned flags, toml_doc **out, tf_err *err);
void toml_free(toml_doc *doc);

const toml_value *toml_root(const toml_doc *doc);
const char *toml_doc_name(const toml_doc *doc);

toml_type toml_type_of(const toml_value *v);
const char *toml_type_name(toml_type t); /* "string", "array", "local date"... */
toml_pos toml_pos_of(const toml_value *v);

/* Tables. toml_get follows a dotted path ("tool.testfence.writable", a segment may be
 * double-quoted: "a.\"b.c\""); NULL if any part is missing or not a table. */
const toml_value *toml_get(const toml_value *table, const char *path);
const toml_value *toml_get_key(const toml_value *table, const char *key, size_t len);
size_t toml_table_len(const toml_value *table);
const toml_key *toml_table_key(const toml_value *table, size_t i); /* document order */
const toml_value *toml_table_value(const toml_value *table, size_t i);

/* Arrays (also arrays of tables). */
size_t toml_array_len(const toml_value *array);
const toml_value *toml_array_at(const toml_value *array, size_t i);

/* Scalars; the caller checks the type first (a wrong type yields NULL / 0). */
const char *toml_string(const toml_value *v, size_t *len);
int64_t toml_int(const toml_value *v);
double toml_float(const toml_value *v);
bool toml_bool(const toml_value *v);
const toml_datetime *toml_datetime_of(const toml_value *v);

/* Typed getters for config loaders: look up path under table and return 1 with *out set,
 * 0 if absent (*out untouched, so it can hold the default), -1 on a wrong type with err set
 * to "FILE:LINE:COL: "path" must be a string, not an integer". Strings holding a NUL are
 * refused too. The string array is NULL-terminated and owned by doc. */
int toml_get_string(const toml_doc *doc, const toml_value *table, const char *path,
                    const char **out, tf_err *err);
int toml_get_bool(const toml_doc *doc, const toml_value *table, const char *path, bool *out,
                  tf_err *err);
int toml_get_int(const toml_doc *doc, const toml_value *table, const char *path, int64_t *out,
                 tf_err *err);
int toml_get_table(const toml_doc *doc, const toml_value *table, const char *path,
                   const toml_value **out, tf_err *err);
int toml_get_string_array(const toml_doc *doc, const toml_value *table, const char *path,
                          const char *const **out, size_t *n, tf_err *err);

/* Format "FILE:LINE:COL: message" into err for a position in doc; returns -1. */
int toml_errf(const toml_doc *doc, toml_pos pos, tf_err *err, const char *fmt, ...)
    __attribute__((format(TF_PRINTF, 4, 5)));

#endif
