#include "vec.h"

#include <stdint.h>
#include <stdlib.h>

void *vec_grow(void *v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return v;
    size_t ncap = *cap ? *cap * 2 : 16;
    if (ncap <= n)
        ncap = n + 1;
    if (size && ncap > SIZE_MAX / size)
        return NULL;
    void *nv = realloc(v, ncap * size);
    if (nv)
        *cap = ncap;
    return nv;
}
