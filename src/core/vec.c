/* vec: growth of the typed arrays of vec.h. */
#include "core/vec.h"

#include <stdint.h>

#include "core/log.h"

void *rc_vec_grow(void *v, size_t *cap, size_t size, size_t first)
{
    size_t ncap = *cap ? *cap * 2 : (first ? first : 1);
    RC_ASSERTF(ncap > *cap && ncap <= SIZE_MAX / size, "vector of %zu elements of %zu bytes",
               *cap, size);
    v = rc_xrealloc(v, ncap * size);
    *cap = ncap;
    return v;
}
