/* The dictionary codec: string columns are stored as uint32 codes into a `levels`
 * attribute (reading a million fixed-width strings costs seconds in h5py;
 * codes cost milliseconds).  Level 0 is always "". */
#include "io/h5out_internal.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"

static uint64_t fnv(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static void dict_rehash(dict *d)
{
    free(d->slot);
    d->nslot = d->nslot ? 2 * d->nslot : 64;
    d->slot = rc_xcalloc(d->nslot, sizeof *d->slot);
    for (size_t i = 0; i < d->n; i++) {
        size_t k = fnv(d->s[i]) & (d->nslot - 1);
        while (d->slot[k] != 0) k = (k + 1) & (d->nslot - 1);
        d->slot[k] = (uint32_t)i + 1;
    }
}

uint32_t h5_dict_code(dict *d, const char *s)
{
    if (2 * (d->n + 1) > d->nslot) dict_rehash(d);
    size_t k = fnv(s) & (d->nslot - 1);
    while (d->slot[k] != 0) {
        if (strcmp(d->s[d->slot[k] - 1], s) == 0) return d->slot[k] - 1;
        k = (k + 1) & (d->nslot - 1);
    }
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 16;
        d->s = rc_xrealloc(d->s, d->cap * sizeof *d->s);
    }
    d->s[d->n] = rc_xstrdup(s);
    d->slot[k] = (uint32_t)d->n + 1;
    d->dirty = true;
    return (uint32_t)d->n++;
}

void h5_dict_free(dict *d)
{
    for (size_t i = 0; i < d->n; i++) free(d->s[i]);
    free(d->s);
    free(d->slot);
    memset(d, 0, sizeof *d);
}

/* Reads a column's `levels` attribute into a fresh dict (level 0 = ""). */
int h5_dict_load(dict *d, hid_t ds)
{
    memset(d, 0, sizeof *d);
    int rc = 0;
    if (H5Aexists(ds, "levels") > 0) {
        hid_t a = H5Aopen(ds, "levels", H5P_DEFAULT);
        hid_t s = a >= 0 ? H5Aget_space(a) : -1;
        hssize_t n = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
        if (n < 0) {
            rc = -1;
        } else {
            char **v = rc_xcalloc((size_t)n + 1, sizeof *v);
            hid_t t = h5_vlen_str_type();
            if (H5Aread(a, t, v) < 0) {
                rc = -1;
            } else {
                for (hssize_t i = 0; i < n; i++) {
                    /* Codes are positions: insert in order, keeping duplicates
                     * (there are none in files we wrote) at their position. */
                    if (d->n == d->cap) {
                        d->cap = d->cap ? 2 * d->cap : 16;
                        d->s = rc_xrealloc(d->s, d->cap * sizeof *d->s);
                    }
                    d->s[d->n++] = rc_xstrdup(v[i] ? v[i] : "");
                }
                H5Dvlen_reclaim(t, s, H5P_DEFAULT, v);
            }
            H5Tclose(t);
            free(v);
        }
        if (s >= 0) H5Sclose(s);
        if (a >= 0) H5Aclose(a);
    }
    if (rc == 0 && d->n == 0) h5_dict_code(d, "");
    d->nslot = 0;
    dict_rehash(d);
    while (2 * d->n > d->nslot) dict_rehash(d);
    d->dirty = false;
    return rc;
}
