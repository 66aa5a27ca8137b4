#include "farm/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/log.h"
#include "exp/result.h"
#include "io/h5out.h"

typedef struct pending {
    size_t index;
    void *image; /* NULL for a failed job */
    size_t len;
    char *msg;
    rc_journal_meta meta;
} pending;

typedef struct id_index {
    uint64_t id;
    size_t index;
} id_index;

struct rc_store {
    const rc_sweep *sw;
    char *out;
    rc_h5out *h5;
    rc_journal *journal;
    id_index *ids; /* sorted by id, for journal lookups */
    pending *queue;
    size_t head, n_queue, cap_queue; /* FIFO: queue[head..n_queue) pending */
    bool batch_open;                  /* the HDF5 file is open for a batch */
    double last_flush;
    bool warned_locked;
};

static double now_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_id(const void *a, const void *b)
{
    uint64_t x = ((const id_index *)a)->id, y = ((const id_index *)b)->id;
    return x < y ? -1 : x > y;
}

static id_index *build_ids(const rc_sweep *sw)
{
    size_t n = rc_sweep_count(sw);
    id_index *ids = rc_xmalloc((n ? n : 1) * sizeof *ids);
    for (size_t i = 0; i < n; i++) ids[i] = (id_index){rc_sweep_job_id(sw, i), i};
    qsort(ids, n, sizeof *ids, cmp_id);
    return ids;
}

static const id_index *find_id(const id_index *ids, size_t n, uint64_t id)
{
    id_index key = {id, 0};
    return bsearch(&key, ids, n, sizeof *ids, cmp_id);
}

typedef struct scan_ctx {
    const id_index *ids;
    size_t n;
    bool *done;
    size_t unknown;
    /* rewrite mode: write journal jobs that the HDF5 file lacks */
    rc_store *store;
    const bool *in_h5;
    size_t rewritten;
    rc_err *err;
} scan_ctx;

static int h5_write_image(rc_store *s, size_t index, const void *image, size_t len,
                          const rc_journal_meta *meta, rc_err *err)
{
    rc_result r;
    int rc = rc_result_unpack(&r, image, len, err);
    if (rc != 0) return rc;
    rc_h5out_prov prov = {.host = meta->host, .rank = meta->rank, .finished = meta->finished};
    rc = rc_h5out_write_job(s->h5, rc_sweep_job(s->sw, index), &r, &prov, err);
    rc_result_free(&r);
    return rc;
}

static int on_record(void *ctx, uint64_t job_id, const rc_journal_meta *meta, const void *image,
                     size_t len)
{
    scan_ctx *c = ctx;
    const id_index *e = find_id(c->ids, c->n, job_id);
    if (e == NULL) {
        c->unknown++; /* cannot happen for a journal of this sweep hash */
        return 0;
    }
    if (c->done != NULL) c->done[e->index] = true;
    if (c->store != NULL && !c->in_h5[e->index]) {
        int rc = h5_write_image(c->store, e->index, image, len, meta, c->err);
        if (rc != 0) return rc;
        c->rewritten++;
    }
    return 0;
}

int rc_store_scan(const char *out, const rc_sweep *sw, bool *done, rc_journal_scan *scan,
                  rc_err *err)
{
    size_t n = rc_sweep_count(sw);
    memset(done, 0, n * sizeof *done);
    id_index *ids = build_ids(sw);
    scan_ctx c = {.ids = ids, .n = n, .done = done};
    char *jpath = rc_journal_path(out);
    int rc = rc_journal_read(jpath, rc_sweep_hash(sw), on_record, &c, scan, err);
    free(jpath);
    free(ids);
    return rc;
}

static void move_aside(const char *path)
{
    char stamp[32], *dst = rc_xmalloc(strlen(path) + 64);
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", &tm);
    sprintf(dst, "%s.damaged-%s", path, stamp);
    if (rename(path, dst) == 0)
        fprintf(stderr,
                "rcsim sweep: %s could not be read (killed while writing?); moved it to %s and "
                "rebuilding it from the journal\n",
                path, dst);
    else
        fprintf(stderr, "rcsim sweep: cannot move damaged %s aside: %s\n", path, strerror(errno));
    free(dst);
}

rc_store *rc_store_open(const char *out, const rc_sweep *sw, bool *done, rc_err *err)
{
    size_t n = rc_sweep_count(sw);
    rc_journal_scan scan;
    char *jpath = rc_journal_path(out);
    rc_store *s = NULL;
    bool *in_h5 = NULL;
    rc_h5out_sweep meta = {rc_sweep_name(sw), rc_sweep_path(sw), rc_sweep_text(sw),
                           rc_sweep_hash(sw)};
    rc_err cerr = {0};
    int crc = rc_h5out_check(out, &meta, &cerr);
    if (crc == RC_EXIT_USAGE) {
        rc_err_set(err, crc, "%s", cerr.msg);
        goto fail;
    }
    if (rc_store_scan(out, sw, done, &scan, err) != 0) goto fail;
    if (scan.dropped_bytes > 0)
        fprintf(stderr,
                "rcsim sweep: %s: dropped a torn last record (%zu bytes; the job will be rerun)\n",
                jpath, scan.dropped_bytes);
    if (crc != 0) {
        /* Not HDF5-readable.  Only a file we can rebuild is ours to move. */
        if (!scan.exists) {
            rc_err_set(err, RC_EXIT_USAGE,
                       "%s: exists but is not a readable HDF5 file and there is no journal "
                       "(%s) to rebuild it from; refusing to overwrite it",
                       out, jpath);
            goto fail;
        }
        move_aside(out);
    }
    s = rc_xcalloc(1, sizeof *s);
    s->sw = sw;
    s->out = rc_xstrdup(out);
    s->ids = build_ids(sw);
    s->last_flush = now_mono();
    s->h5 = rc_h5out_open(out, &meta, err);
    uint64_t *h5ids = NULL;
    size_t n_h5 = 0;
    if (s->h5 != NULL && rc_h5out_list(s->h5, &h5ids, &n_h5, err) != 0) {
        rc_h5out_close(s->h5, NULL);
        s->h5 = NULL;
    }
    if (s->h5 == NULL && err->code == RC_EXIT_RUNTIME && scan.exists) {
        /* Opened but unreadable inside: same treatment as above. */
        rc_err_clear(err);
        move_aside(out);
        s->h5 = rc_h5out_open(out, &meta, err);
        if (s->h5 != NULL && rc_h5out_list(s->h5, &h5ids, &n_h5, err) != 0) goto fail;
    }
    if (s->h5 == NULL) goto fail;
    in_h5 = rc_xcalloc(n ? n : 1, sizeof *in_h5);
    size_t stale = 0;
    for (size_t i = 0; i < n_h5; i++) {
        const id_index *e = find_id(s->ids, n, h5ids[i]);
        if (e == NULL) continue;
        in_h5[e->index] = true;
        if (!done[e->index]) stale++;
    }
    free(h5ids);
    if (stale > 0)
        fprintf(stderr,
                "rcsim sweep: %zu job(s) in %s are not in the journal; they will be rerun and "
                "replaced\n",
                stale, out);
    /* Journal jobs the file lacks (killed between journal and HDF5 batch). */
    bool missing = false;
    for (size_t i = 0; i < n; i++)
        if (done[i] && !in_h5[i]) missing = true;
    if (missing) {
        if (rc_h5out_begin(s->h5, err) != 0) goto fail;
        scan_ctx c = {.ids = s->ids, .n = n, .store = s, .in_h5 = in_h5, .err = err};
        rc_journal_scan again;
        int rc = rc_journal_read(jpath, rc_sweep_hash(sw), on_record, &c, &again, err);
        if (rc_h5out_end(s->h5, rc == 0 ? err : NULL) != 0 || rc != 0) goto fail;
        fprintf(stderr, "rcsim sweep: wrote %zu job(s) from the journal into %s\n", c.rewritten,
                out);
    }
    s->journal = rc_journal_open(jpath, rc_sweep_hash(sw), scan.valid_bytes, err);
    if (s->journal == NULL) goto fail;
    free(in_h5);
    free(jpath);
    return s;
fail:
    free(in_h5);
    free(jpath);
    rc_store_close(s, NULL);
    return NULL;
}

static pending *push(rc_store *s)
{
    if (s->n_queue == s->cap_queue) {
        s->cap_queue = s->cap_queue ? 2 * s->cap_queue : 64;
        s->queue = rc_xrealloc(s->queue, s->cap_queue * sizeof *s->queue);
    }
    pending *p = &s->queue[s->n_queue++];
    memset(p, 0, sizeof *p);
    return p;
}

int rc_store_add(rc_store *s, size_t index, const void *image, size_t len,
                 const rc_journal_meta *meta, rc_err *err)
{
    int rc = rc_journal_append(s->journal, rc_sweep_job_id(s->sw, index), meta, image, len, err);
    if (rc != 0) return rc;
    pending *p = push(s);
    p->index = index;
    p->image = rc_xmalloc(len ? len : 1);
    memcpy(p->image, image, len);
    p->len = len;
    p->meta = *meta;
    return 0;
}

void rc_store_failed(rc_store *s, size_t index, const char *msg, const rc_journal_meta *meta)
{
    pending *p = push(s);
    p->index = index;
    p->msg = rc_xstrdup(msg);
    p->meta = *meta;
}

/* Opens a batch when one is due; -1 if the file is locked (retry later). */
static int batch_begin(rc_store *s, bool force, rc_err *err)
{
    double now = now_mono();
    /* The queue bound keeps memory flat when results arrive faster than the
     * interval (many tiny jobs). */
    if (!force && now - s->last_flush < RC_STORE_FLUSH_S && s->n_queue - s->head < 256)
        return -1;
    s->last_flush = now;
    rc_err berr = {0};
    if (rc_h5out_begin(s->h5, &berr) == 0) {
        s->batch_open = true;
        return 0;
    }
    if (force) return rc_err_set(err, berr.code, "%s", berr.msg);
    if (!s->warned_locked)
        fprintf(stderr, "rcsim sweep: %s; will retry (results are safe in the journal)\n",
                berr.msg);
    s->warned_locked = true;
    return -1;
}

int rc_store_step(rc_store *s, bool force, rc_err *err)
{
    if (s->head == s->n_queue && !s->batch_open) return 0;
    if (!s->batch_open) {
        int rc = batch_begin(s, force, err);
        if (rc != 0) return rc < 0 ? 0 : rc;
    }
    int rc = 0;
    if (s->head < s->n_queue) {
        pending *p = &s->queue[s->head++];
        if (p->image != NULL) {
            rc = h5_write_image(s, p->index, p->image, p->len, &p->meta, err);
        } else {
            rc_h5out_prov prov = {p->meta.host, p->meta.rank, p->meta.finished};
            rc = rc_h5out_write_failed(s->h5, rc_sweep_job(s->sw, p->index), p->msg, &prov, err);
        }
        free(p->image);
        free(p->msg);
        p->image = NULL;
        p->msg = NULL;
    }
    if (rc != 0 || s->head == s->n_queue) {
        /* Batch drained: close the file so it is complete on disk again. */
        int erc = rc_h5out_end(s->h5, rc == 0 ? err : NULL);
        s->batch_open = false;
        s->head = s->n_queue = 0;
        if (rc == 0) rc = erc;
    }
    return rc;
}

bool rc_store_busy(const rc_store *s) { return s->batch_open; }

int rc_store_flush(rc_store *s, bool force, rc_err *err)
{
    if (!force && !s->batch_open && s->n_queue == s->head) return 0;
    do {
        int rc = rc_store_step(s, force, err);
        if (rc != 0) return rc;
    } while (s->batch_open);
    return 0;
}

int rc_store_close(rc_store *s, rc_err *err)
{
    if (s == NULL) return 0;
    int rc = 0;
    if (s->h5 != NULL) rc = rc_store_flush(s, true, err);
    for (size_t i = s->head; i < s->n_queue; i++) {
        free(s->queue[i].image);
        free(s->queue[i].msg);
    }
    free(s->queue);
    int crc = rc_h5out_close(s->h5, rc == 0 ? err : NULL);
    if (rc == 0) rc = crc;
    rc_journal_close(s->journal);
    free(s->ids);
    free(s->out);
    free(s);
    return rc;
}
