/* vec: a typed growable array, the one way the layers grow an array one
 * element at a time.
 *
 *   RC_VEC_DEFINE(u32vec, uint32_t, 256)
 *   u32vec a = {0};          // empty; no allocation yet
 *   u32vec_push(&a, 7);      // a.v[0] == 7, a.n == 1
 *   u32vec_free(&a);         // back to empty
 *
 * The type is a plain value struct {v, n, cap}: read a.v[i] and a.n
 * directly; anything may reset a.n to 0 to reuse the storage.  Growth
 * doubles the capacity, starting at FIRST elements, so n pushes cost O(n)
 * and the storage moves only on growth (pointers into v are valid until the
 * next push).  Memory: the vector owns v (rc_vec_free-style _free).  Errors:
 * out of memory or a size that overflows aborts with file:line, as
 * rc_xmalloc does (core/log.h).
 */
#ifndef RCSIM_CORE_VEC_H
#define RCSIM_CORE_VEC_H

#include <stddef.h>
#include <stdlib.h>

/* Grows storage v of *cap elements of `size` bytes to at least one more
 * element (doubling, or `first` when empty); returns the new storage. */
void *rc_vec_grow(void *v, size_t *cap, size_t size, size_t first);

#define RC_VEC_DEFINE(name, T, first)                                               \
    typedef struct name {                                                           \
        T *v;                                                                       \
        size_t n, cap;                                                              \
    } name;                                                                         \
    static inline T *name##_push_slot(name *a)                                      \
    {                                                                               \
        if (a->n == a->cap) a->v = rc_vec_grow(a->v, &a->cap, sizeof *a->v, first); \
        return &a->v[a->n++];                                                       \
    }                                                                               \
    static inline void name##_push(name *a, T x) { *name##_push_slot(a) = x; }     \
    static inline void name##_free(name *a)                                         \
    {                                                                               \
        free(a->v);                                                                 \
        a->v = NULL;                                                                \
        a->n = a->cap = 0;                                                          \
    }

#endif
