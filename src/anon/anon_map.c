/* anon_map: the observer's small maps, u64 -> u32 (anon/anon_internal.h): a
 * packet id to its slot, a message body to its tracked message.  Linear
 * probing, deletion by backward shift (no tombstones: the maps see as many
 * deletes as inserts); an empty map has cap 0 and no arrays. */
#include <stdlib.h>

#include "anon/anon_internal.h"

static uint32_t hslot(uint64_t k, uint32_t cap)
{
    return (uint32_t)((k * 0x9E3779B97F4A7C15ULL) >> 32) & (cap - 1);
}

static void map_grow(uint64_t **key, uint32_t **val, uint32_t *cap, uint32_t *n)
{
    uint64_t *ok = *key;
    uint32_t *ov = *val, oc = *cap;
    *cap = oc ? oc * 2 : 1024;
    *key = rc_xmalloc(*cap * sizeof **key);
    *val = rc_xmalloc(*cap * sizeof **val);
    for (uint32_t i = 0; i < *cap; i++) (*key)[i] = UINT64_MAX;
    *n = 0;
    for (uint32_t i = 0; i < oc; i++)
        if (ok[i] != UINT64_MAX) rc_anon__map_put(key, val, cap, n, ok[i], ov[i]);
    free(ok);
    free(ov);
}

void rc_anon__map_put(uint64_t **key, uint32_t **val, uint32_t *cap, uint32_t *n, uint64_t k,
                      uint32_t v)
{
    if ((*n + 1) * 2 > *cap) map_grow(key, val, cap, n);
    uint32_t i = hslot(k, *cap);
    while ((*key)[i] != UINT64_MAX && (*key)[i] != k) i = (i + 1) & (*cap - 1);
    if ((*key)[i] == UINT64_MAX) (*n)++;
    (*key)[i] = k;
    (*val)[i] = v;
}

uint32_t rc_anon__map_get(const uint64_t *key, const uint32_t *val, uint32_t cap, uint64_t k)
{
    if (cap == 0) return NONE32;
    for (uint32_t i = hslot(k, cap);; i = (i + 1) & (cap - 1)) {
        if (key[i] == k) return val[i];
        if (key[i] == UINT64_MAX) return NONE32;
    }
}

void rc_anon__map_del(uint64_t *key, uint32_t *val, uint32_t cap, uint32_t *n, uint64_t k)
{
    if (cap == 0) return;
    uint32_t i = hslot(k, cap);
    while (key[i] != k) {
        if (key[i] == UINT64_MAX) return;
        i = (i + 1) & (cap - 1);
    }
    (*n)--;
    for (uint32_t j = (i + 1) & (cap - 1); key[j] != UINT64_MAX; j = (j + 1) & (cap - 1)) {
        uint32_t h = hslot(key[j], cap);
        /* move j back to i when its home is not in (i, j] (cyclically) */
        if ((j > i && (h <= i || h > j)) || (j < i && (h <= i && h > j))) {
            key[i] = key[j];
            val[i] = val[j];
            i = j;
        }
    }
    key[i] = UINT64_MAX;
}
