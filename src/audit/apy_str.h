/* apy_str: the text of Python string literals, escapes decoded, f-string fields as their
 * value when known and '*' when not; a literal argument's text. */
#ifndef TESTFENCE_APY_STR_H
#define TESTFENCE_APY_STR_H

#include "apy_node.h"

typedef struct apy_str {
    char text[512];
    size_t len;
    bool wild; /* parts not known (f-string fields) are '*' */
    bool truncated;
} apy_str;

/* N bytes at P added to S (S is truncated, and says so, when they do not fit). */
void apy_str_put(apy_str *s, const char *p, size_t n);

/* A string or an implicit concatenation ("a" "b"). */
void apy_strings_value(apy *P, uint32_t n, apy_str *s, int depth);

/* The literal text of a string argument, or NULL. */
const char *apy_literal_arg(apy *P, uint32_t a, apy_str *s);

#endif
