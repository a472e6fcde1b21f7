/* json: a strict JSON (RFC 8259) reader into a small tree whose values know their line and
 * column, for the files testfence reads back as untrusted input (a run's report.json). */
#ifndef TESTFENCE_JSON_H
#define TESTFENCE_JSON_H

#include "err.h"

#include <stdbool.h>
#include <stddef.h>

/* Arrays and objects nest at most this deep, so neither the reader nor a recursive consumer
 * can run out of stack. */
#define JSON_MAX_DEPTH 64

enum json_type { JSON_NULL = 1, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json_member;

struct json_value {
    enum json_type type;
    unsigned line, col; /* 1-based; col counts bytes */
    bool b;             /* JSON_BOOL */
    bool is_int;        /* JSON_NUMBER: an integer that fits a long long, in i */
    long long i;
    double num;                  /* JSON_NUMBER */
    char *str;                   /* JSON_STRING: NUL-terminated, may hold NULs (\u0000) */
    size_t len;                  /* JSON_STRING: bytes; JSON_ARRAY, JSON_OBJECT: items or members */
    struct json_value *items;    /* JSON_ARRAY */
    struct json_member *members; /* JSON_OBJECT, in document order */
};

struct json_member {
    char *key;
    size_t key_len;
    struct json_value value;
};

/* Parse LEN bytes of DATA (UTF-8, no NUL outside strings' escapes) into a tree, *OUT, freed
 * with json_free. NAME is used in errors: "report.json:3:14: expected ',' or '}'". */
int json_parse(const char *name, const char *data, size_t len, struct json_value **out,
               tf_err *err);

void json_free(struct json_value *v);

/* The first member KEY of the object OBJ, or NULL (also when OBJ is not an object). */
const struct json_value *json_get(const struct json_value *obj, const char *key);

/* V's text when V is a string without a NUL, else NULL (V may be NULL). */
const char *json_text(const struct json_value *v);

/* V as a whole number from LO to HI into *OUT: true, or false (not one, or V NULL). */
bool json_whole(const struct json_value *v, long long lo, long long hi, long long *out);

#endif
