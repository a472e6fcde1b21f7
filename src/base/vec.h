/* vec: the one way testfence grows an array: doubling, with the overflow checked.
 * Callers keep their own pointer, count and capacity; nothing here owns memory. */
#ifndef TESTFENCE_VEC_H
#define TESTFENCE_VEC_H

#include <stddef.h>

/* Room for element N of an array V holding *CAP elements of SIZE bytes: returns V when
 * it already fits, else a larger copy (and updates *CAP). Returns NULL when out of
 * memory; V is then untouched and still the caller's. */
void *vec_grow(void *v, size_t *cap, size_t n, size_t size);

#endif
