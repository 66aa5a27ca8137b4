#include "trace/trace_id.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/log.h"

void rc_trace_id_name(const char *path, char *out, size_t n)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    static const char *const suffixes[] = {".txt.gz", ".gz"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t sl = strlen(suffixes[i]);
        if (len > sl && !strcmp(base + len - sl, suffixes[i])) {
            len -= sl;
            break;
        }
    }
    static const char prefix[] = "schedules_";
    if (len > sizeof prefix - 1 && !strncmp(base, prefix, sizeof prefix - 1)) {
        base += sizeof prefix - 1;
        len -= sizeof prefix - 1;
    }
    if (len >= n) len = n - 1;
    memcpy(out, base, len);
    out[len] = '\0';
}

rc_trace *rc_trace_id_load(const char *trace, const char *data_dir, size_t min_lines,
                           rc_trace_id *id, rc_err *err)
{
    memset(id, 0, sizeof *id);
    if (!strcmp(trace, "online")) {
        rc_err_set(err, RC_EXIT_USAGE, "trace 'online' is not a file");
        return NULL;
    }
    char path[RC_TRACE_PATH_MAX];
    if (rc_trace_resolve(trace, data_dir, path, sizeof path, err) != 0) return NULL;
    rc_trace *t = rc_trace_load(path, min_lines, err);
    if (t == NULL) return NULL;
    /* The absolute path, so a message or the manifest says which file even
     * when the trace was found relative to the working directory. */
    char abs[PATH_MAX];
    snprintf(id->path, sizeof id->path, "%s", realpath(path, abs) ? abs : path);
    rc_trace_id_name(path, id->name, sizeof id->name);
    rc_trace_sha256(t, id->sha256);
    id->lines = (uint32_t)rc_trace_lines(t);
    return t;
}

/* ---------- the per-process cache (rc_trace_id_get) ---------- */

/* A cached trace is reused only when the file's bytes (gzip-compressed,
 * about 60 kB for a paper trace) are still exactly the ones it was loaded
 * from: reading and comparing them costs microseconds, and unlike a size and
 * mtime check it cannot be fooled by a rewrite within the clock's
 * granularity.  Larger files (plain text) are not cached. */
enum { CACHE_SLOTS = 8 };
#define CACHE_MAX_BYTES ((size_t)16 << 20)

typedef struct cached {
    char path[RC_TRACE_PATH_MAX]; /* as resolved */
    unsigned char *bytes;         /* the file as it was loaded */
    size_t n_bytes;
    rc_trace *t;
    rc_trace_id id;
    uint64_t used; /* the call that last returned it, for eviction */
} cached;

static cached *cache[CACHE_SLOTS];
static uint64_t cache_clock;
static rc_trace *loose; /* the last trace that could not be cached */

/* The whole file if it is at most CACHE_MAX_BYTES long, else NULL. */
static unsigned char *read_small(const char *path, size_t *n)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > CACHE_MAX_BYTES)
        return NULL;
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    size_t cap = (size_t)st.st_size + 1; /* +1: a file that grew is seen as different */
    unsigned char *b = rc_xmalloc(cap);
    *n = fread(b, 1, cap, f);
    bool ok = !ferror(f) && *n < cap;
    fclose(f);
    if (!ok) {
        free(b);
        return NULL;
    }
    return b;
}

const rc_trace *rc_trace_id_get(const char *trace, const char *data_dir, size_t min_lines,
                                rc_trace_id *id, rc_err *err)
{
    char path[RC_TRACE_PATH_MAX];
    size_t n = 0;
    unsigned char *bytes = NULL;
    if (strcmp(trace, "online") != 0 &&
        rc_trace_resolve(trace, data_dir, path, sizeof path, NULL) == 0)
        bytes = read_small(path, &n);
    cache_clock++;
    rc_trace_free(loose); /* valid until this call */
    loose = NULL;
    if (bytes != NULL)
        for (int i = 0; i < CACHE_SLOTS; i++) {
            cached *c = cache[i];
            if (c != NULL && !strcmp(c->path, path) && c->n_bytes == n &&
                !memcmp(c->bytes, bytes, n) && rc_trace_lines(c->t) >= min_lines) {
                free(bytes);
                c->used = cache_clock;
                *id = c->id;
                return c->t;
            }
        }
    /* A miss (or a trace with too few lines: the full load reports that). */
    rc_trace *t = rc_trace_id_load(trace, data_dir, min_lines, id, err);
    if (t == NULL || bytes == NULL) {
        free(bytes);
        return loose = t;
    }
    int slot = 0;
    for (int i = 0; i < CACHE_SLOTS; i++) {
        if (cache[i] != NULL && !strcmp(cache[i]->path, path)) { /* the file changed */
            slot = i;
            break;
        }
        if (cache[i] == NULL || (cache[slot] != NULL && cache[i]->used < cache[slot]->used))
            slot = i;
    }
    if (cache[slot] == NULL) {
        cache[slot] = rc_xcalloc(1, sizeof *cache[slot]);
    } else {
        rc_trace_free(cache[slot]->t);
        free(cache[slot]->bytes);
    }
    cached *c = cache[slot];
    snprintf(c->path, sizeof c->path, "%s", path);
    c->bytes = bytes;
    c->n_bytes = n;
    c->t = t;
    c->id = *id;
    c->used = cache_clock;
    return t;
}
