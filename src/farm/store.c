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
    void *image;
    size_t len;
    char *canonical;
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
    pending *unc;  /* appended to the journal, not yet committed */
    size_t n_unc, cap_unc;
    size_t done;   /* committed in this run */
    double last_flush;
    double lock_wait_s;
    bool warned_locked;
    bool broken; /* a commit failed: nothing more is journalled in this run */
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

size_t rc_store_canonical_width(const rc_sweep *sw)
{
    /* A sample is enough: texts differ only in their values, and the column
     * widens itself if a longer one arrives. */
    size_t n = rc_sweep_count(sw), longest = 0;
    size_t step = n > 256 ? n / 256 : 1;
    for (size_t i = 0; i < n; i += step) {
        char canon[8192];
        size_t len = rc_job_canonical(rc_sweep_job(sw, i), canon, sizeof canon);
        if (len > longest) longest = len;
    }
    size_t w = 1024;
    while (w < longest + longest / 4 + 1) w *= 2;
    return w;
}

/* ---- what the files hold, before anything is changed ---- */

typedef struct inspect {
    rc_h5out_info info;
    bool damaged;          /* the results file exists and HDF5 cannot read it */
    rc_journal_scan scan;
    bool *in_journal;      /* per sweep job */
    bool *in_file;         /* per sweep job */
    size_t n_file;         /* rows of the file */
    size_t file_not_journal;
    /* finished jobs that are not jobs of this run */
    uint64_t orphan[4];
    size_t n_orphan;       /* orphans noted (journal, then table) */
    size_t n_orphan_journal, n_orphan_file, n_other_shard;
} inspect;

typedef struct scan_ctx {
    const id_index *ids;
    size_t n;
    const bool *in_run;
    inspect *in;
} scan_ctx;

static void note_orphan(inspect *in, uint64_t id, bool other_shard)
{
    if (in->n_orphan < 4) in->orphan[in->n_orphan] = id;
    in->n_orphan++;
    if (other_shard) in->n_other_shard++;
}

static int on_scan(void *ctx, uint64_t job_id, const rc_journal_meta *meta, const void *image,
                   size_t len)
{
    (void)meta, (void)image, (void)len;
    scan_ctx *c = ctx;
    const id_index *e = find_id(c->ids, c->n, job_id);
    bool run = e != NULL && (c->in_run == NULL || c->in_run[e->index]);
    if (!run) {
        note_orphan(c->in, job_id, e != NULL);
        c->in->n_orphan_journal++;
        return 0;
    }
    c->in->in_journal[e->index] = true;
    return 0;
}

/* "key=value" lines of a canonical text, compared key by key. */
static const char *line_value(const char *text, const char *key, size_t klen, size_t *vlen)
{
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len > klen && p[klen] == '=' && strncmp(p, key, klen) == 0) {
            *vlen = len - klen - 1;
            return p + klen + 1;
        }
        p = nl ? nl + 1 : NULL;
    }
    return NULL;
}

/* Writes "key (finished A, now B), ..." for the keys whose values differ
 * between two canonical texts; returns the number of differing keys. */
static int canon_diff(const char *old, const char *now, char *out, size_t n)
{
    int diffs = 0;
    size_t used = 0;
    out[0] = '\0';
    for (const char *p = now; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (eq != NULL) {
            size_t klen = (size_t)(eq - p), vl_old = 0;
            const char *vold = line_value(old, p, klen, &vl_old);
            size_t vl_now = len - klen - 1;
            if (vold == NULL || vl_old != vl_now || strncmp(vold, eq + 1, vl_now) != 0) {
                if (diffs < 4 && used < n)
                    used += (size_t)snprintf(out + used, n - used, "%s%.*s (finished %.*s, now %.*s)",
                                             diffs ? ", " : "", (int)klen, p,
                                             vold ? (int)vl_old : 6, vold ? vold : "absent",
                                             (int)vl_now, eq + 1);
                diffs++;
            }
        }
        p = nl ? nl + 1 : NULL;
    }
    /* keys the finished job had and the sweep's jobs no longer have */
    for (const char *p = old; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        size_t vl;
        if (eq != NULL && line_value(now, p, (size_t)(eq - p), &vl) == NULL) {
            if (diffs < 4 && used < n)
                used += (size_t)snprintf(out + used, n - used, "%s%.*s (finished %.*s, now absent)",
                                         diffs ? ", " : "", (int)(eq - p), p,
                                         (int)(len - (size_t)(eq - p) - 1), eq + 1);
            diffs++;
        }
        p = nl ? nl + 1 : NULL;
    }
    if (diffs > 4 && used < n) snprintf(out + used, n - used, " and %d more", diffs - 4);
    return diffs;
}

/* Why an orphan is not a job of this sweep: its canonical text (from the
 * results file) against the nearest job of the sweep. */
static void explain_orphan(const char *out, const rc_sweep *sw, uint64_t id, char *why, size_t n)
{
    char hex[17];
    rc_job_id_hex(id, hex);
    snprintf(why, n, "e.g. finished job %s", hex);
    rc_err err = {0};
    rc_h5in *in = rc_h5in_open(out, &err);
    if (in == NULL) return;
    const char *canon = NULL;
    for (size_t r = 0; r < rc_h5in_info(in)->rows && canon == NULL; r++) {
        uint64_t jid;
        const char *c;
        rc_h5out_prov prov;
        void *image;
        size_t len;
        if (rc_h5in_row(in, r, &jid, &c, &prov, &image, &len, &err) != 0) break;
        free(image);
        if (jid == id) canon = c;
    }
    if (canon != NULL) {
        char *old = rc_xstrdup(canon);
        size_t nj = rc_sweep_count(sw), step = nj > 20000 ? nj / 20000 : 1;
        int best = -1;
        char best_text[1024] = "";
        for (size_t i = 0; i < nj; i += step) {
            char now[8192], diff[1024];
            rc_job_canonical(rc_sweep_job(sw, i), now, sizeof now);
            int d = canon_diff(old, now, diff, sizeof diff);
            if (best < 0 || d < best) {
                best = d;
                snprintf(best_text, sizeof best_text, "%s", diff);
            }
        }
        if (best > 0)
            snprintf(why, n, "finished job %s differs from the nearest job of this sweep in: %s",
                     hex, best_text);
        free(old);
    }
    rc_h5in_close(in);
}

static int do_inspect(const rc_store_opts *o, const rc_sweep *sw, const id_index *ids,
                      inspect *in, rc_err *err)
{
    size_t n = rc_sweep_count(sw);
    memset(in, 0, sizeof *in);
    in->in_journal = rc_xcalloc(n ? n : 1, sizeof *in->in_journal);
    in->in_file = rc_xcalloc(n ? n : 1, sizeof *in->in_file);
    rc_err cerr = {0};
    int crc = rc_h5out_check(o->out, &in->info, &cerr);
    if (crc == RC_EXIT_USAGE) return rc_err_set(err, crc, "%s", cerr.msg);
    in->damaged = crc != 0;
    const char *shard = o->shard ? o->shard : "";
    if (in->info.exists && !in->damaged) {
        if (in->info.converted_from[0])
            return rc_err_set(err, RC_EXIT_USAGE,
                              "%s was converted from %s; it keeps that layout's histogram bins "
                              "and is read-only: run sweeps into another --out",
                              o->out, in->info.converted_from);
        if (strcmp(in->info.shard, shard) != 0)
            return rc_err_set(err, RC_EXIT_USAGE, "%s holds %s%s, not %s%s; choose another --out",
                              o->out, in->info.shard[0] ? "shard " : "the whole sweep",
                              in->info.shard, shard[0] ? "shard " : "the whole sweep", shard);
    }
    char *jpath = rc_journal_path(o->out);
    scan_ctx c = {.ids = ids, .n = n, .in_run = o->in_run, .in = in};
    int rc = rc_journal_read(jpath, on_scan, &c, &in->scan, err);
    free(jpath);
    if (rc != 0) return rc;
    if (in->info.exists && !in->damaged) {
        /* The table's rows, read-only. */
        rc_h5out_sweep none = {0};
        rc_h5out *h = rc_h5out_open(o->out, &none, 256, &cerr);
        uint64_t *fids = NULL;
        size_t nf = 0;
        if (h == NULL || rc_h5out_list(h, &fids, &nf, &cerr) != 0) {
            if (cerr.code == RC_EXIT_USAGE) {
                rc_h5out_close(h);
                return rc_err_set(err, RC_EXIT_USAGE, "%s", cerr.msg);
            }
            in->damaged = true;
        }
        rc_h5out_close(h);
        in->n_file = nf;
        for (size_t i = 0; i < nf; i++) {
            const id_index *e = find_id(ids, n, fids[i]);
            bool run = e != NULL && (o->in_run == NULL || o->in_run[e->index]);
            if (!run) {
                note_orphan(in, fids[i], e != NULL);
                in->n_orphan_file++;
                continue;
            }
            in->in_file[e->index] = true;
            if (!in->in_journal[e->index]) in->file_not_journal++;
        }
        free(fids);
    }
    if (in->n_orphan == 0) {
        /* A results file names its sweep (attributes, manifest); another name over
         * it would leave the two naming different sweeps, so it is refused. */
        if (in->info.exists && !in->damaged && strcmp(in->info.sweep_name, rc_sweep_name(sw)) != 0)
            return rc_err_set(err, RC_EXIT_USAGE,
                              "%s holds sweep '%s'; the sweep file names it '%s'.  A results "
                              "file keeps the name its sweep started with (its attributes, "
                              "manifest and recorded command name it): give the sweep file its "
                              "name back, or choose another --out",
                              o->out, in->info.sweep_name, rc_sweep_name(sw));
        return 0;
    }
    /* Finished jobs that this sweep does not have: refuse, and say why. */
    char why[1400] = "";
    if (in->n_other_shard == in->n_orphan) {
        snprintf(why, sizeof why, "they belong to other shards of this sweep");
    } else {
        uint64_t probe = in->orphan[0];
        explain_orphan(o->out, sw, probe, why, sizeof why);
    }
    char hex[17];
    rc_job_id_hex(in->orphan[0], hex);
    size_t known = 0;
    for (size_t i = 0; i < n; i++) known += in->in_journal[i] || in->in_file[i];
    const char *was = in->info.exists ? in->info.sweep_name : "?";
    unsigned long long was_hash =
        (unsigned long long)(in->info.exists ? in->info.sweep_hash : in->scan.sweep_hash);
    if (known == 0 && strcmp(was, rc_sweep_name(sw)) != 0)
        return rc_err_set(err, RC_EXIT_USAGE,
                          "results file %s belongs to sweep '%s' (hash %016llx), not '%s' (hash "
                          "%016llx): none of its finished jobs is a job of this sweep (%s); "
                          "choose another --out",
                          o->out, was, was_hash, rc_sweep_name(sw),
                          (unsigned long long)rc_sweep_hash(sw), why);
    if (known == 0)
        return rc_err_set(err, RC_EXIT_USAGE,
                          "results file %s belongs to sweep '%s' as it was (hash %016llx), not "
                          "as it is now (hash %016llx): none of its finished jobs is a job of "
                          "this sweep (%s).  A sweep may grow (more seeds or axis values) into "
                          "the same --out; a change of a default, the model or a trace changes "
                          "what finished jobs mean: restore the sweep file or choose another "
                          "--out",
                          o->out, was, was_hash, (unsigned long long)rc_sweep_hash(sw), why);
    return rc_err_set(err, RC_EXIT_USAGE,
                      "%s holds finished jobs that are not jobs of this sweep as it is now (%zu "
                      "in the journal, %zu in the table; %zu are): %s.  A sweep may grow (more "
                      "seeds or axis values) into the same --out; dropping jobs, or changing what "
                      "finished jobs mean (a default, the model, a trace), is refused: restore "
                      "the sweep file or choose another --out",
                      o->out, in->n_orphan_journal, in->n_orphan_file, known, why);
}

static void inspect_free(inspect *in)
{
    free(in->in_journal);
    free(in->in_file);
}

int rc_store_scan(const rc_store_opts *o, const rc_sweep *sw, bool *done, rc_journal_scan *scan,
                  rc_err *err)
{
    size_t n = rc_sweep_count(sw);
    id_index *ids = build_ids(sw);
    inspect in;
    int rc = do_inspect(o, sw, ids, &in, err);
    if (rc == 0) {
        for (size_t i = 0; i < n; i++) done[i] = in.in_journal[i];
        *scan = in.scan;
    }
    inspect_free(&in);
    free(ids);
    return rc;
}

static void move_aside(const char *path, const char *why)
{
    char stamp[32], *dst = rc_xmalloc(strlen(path) + 64);
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", &tm);
    sprintf(dst, "%s.damaged-%s", path, stamp);
    if (rename(path, dst) == 0)
        fprintf(stderr, "rcsim sweep: %s %s; moved it to %s and rebuilding it from the journal\n",
                path, why, dst);
    else
        fprintf(stderr, "rcsim sweep: cannot move %s aside: %s\n", path, strerror(errno));
    free(dst);
}

typedef struct rebuild_ctx {
    rc_store *s;
    const bool *in_file;
    size_t added;
    rc_err *err;
} rebuild_ctx;

static int on_rebuild(void *ctx, uint64_t job_id, const rc_journal_meta *meta, const void *image,
                      size_t len)
{
    rebuild_ctx *c = ctx;
    rc_store *s = c->s;
    const id_index *e = find_id(s->ids, rc_sweep_count(s->sw), job_id);
    if (e == NULL || c->in_file[e->index]) return 0;
    rc_h5out_prov prov = {.host = meta->host, .rank = meta->rank, .finished = meta->finished};
    int rc = rc_h5out_add(s->h5, rc_sweep_job(s->sw, e->index), image, len, NULL, &prov, c->err);
    if (rc != 0) return rc;
    c->added++;
    return 0;
}

static rc_h5out_sweep sweep_meta(const rc_sweep *sw, const char *shard)
{
    return (rc_h5out_sweep){rc_sweep_name(sw), rc_sweep_path(sw), rc_sweep_text(sw),
                            rc_sweep_hash(sw), rc_sweep_count(sw), shard ? shard : ""};
}

/* A damaged journal before a run appends to it: says where and how much, keeps a
 * copy of what is cut and cuts only that (io/journal.h, rc_journal_repair); the
 * jobs whose records were cut are not done and run again. */
static int report_and_repair(const char *jpath, rc_journal_scan *scan, rc_err *err)
{
    if (scan->gaps == 0 && scan->dropped_bytes == 0) return 0;
    size_t tail_at = scan->valid_bytes, tail = scan->dropped_bytes;
    size_t gaps = scan->gaps, gap_bytes = scan->gap_bytes, first = scan->gap_at[0];
    if (rc_journal_repair(jpath, scan, err) != 0) return err->code ? err->code : RC_EXIT_RUNTIME;
    if (gaps > 0) {
        char *cut = rc_journal_cut_path(jpath, first);
        fprintf(stderr,
                "rcsim sweep: %s is damaged in the middle: %zu byte(s) at byte offset %zu%s "
                "are not whole records (the other %zu record(s) are whole and kept); cut them "
                "(a copy is in %s%s), their job(s) will be rerun\n",
                jpath, gap_bytes, first, gaps > 1 ? " and elsewhere" : "", scan->records, cut,
                gaps > 1 ? " and the other .cut-at-* files" : "");
        free(cut);
    }
    if (tail > 0) {
        char *cut = rc_journal_cut_path(jpath, tail_at);
        fprintf(stderr,
                "rcsim sweep: %s: dropped a torn last record at byte offset %zu (%zu bytes, "
                "kept in %s; its jobs will be rerun)\n",
                jpath, tail_at, tail, cut);
        free(cut);
    }
    return 0;
}

rc_store *rc_store_open(const rc_store_opts *o, const rc_sweep *sw, bool *done, rc_err *err)
{
    size_t n = rc_sweep_count(sw);
    rc_store *s = rc_xcalloc(1, sizeof *s);
    s->sw = sw;
    s->out = rc_xstrdup(o->out);
    s->ids = build_ids(sw);
    s->lock_wait_s = o->lock_wait_s;
    s->last_flush = now_mono();
    char *jpath = rc_journal_path(o->out);
    inspect in;
    int rc = do_inspect(o, sw, s->ids, &in, err);
    if (rc != 0) goto fail;
    if (report_and_repair(jpath, &in.scan, err) != 0) goto fail;
    for (size_t i = 0; i < n; i++) done[i] = in.in_journal[i];
    if (in.info.exists && in.damaged) {
        /* Not HDF5-readable.  Only a file we can rebuild is ours to move. */
        if (!in.scan.exists) {
            rc_err_set(err, RC_EXIT_USAGE,
                       "%s: exists but is not a readable HDF5 file and there is no journal "
                       "(%s) to rebuild it from; refusing to overwrite it",
                       o->out, jpath);
            goto fail;
        }
        move_aside(o->out, "could not be read (killed while writing?)");
        memset(in.in_file, 0, n * sizeof *in.in_file);
    } else if (in.info.exists && in.file_not_journal > 0) {
        char why[128];
        snprintf(why, sizeof why, "holds %zu job(s) that the journal does not (the journal "
                 "decides; they will be rerun)", in.file_not_journal);
        move_aside(o->out, why);
        memset(in.in_file, 0, n * sizeof *in.in_file);
    }
    rc_h5out_sweep meta = sweep_meta(sw, o->shard);
    s->h5 = rc_h5out_open(o->out, &meta, rc_store_canonical_width(sw), err);
    if (s->h5 != NULL) {
        /* What this run runs: the parameters after --set, the command, the ranks. */
        char *effective = rc_sweep_effective(sw);
        rc_h5out_run run = {effective, o->overrides, o->command, o->layout};
        rc_h5out_set_run(s->h5, &run);
        free(effective);
    }
    if (s->h5 == NULL) goto fail;
    bool missing = false;
    for (size_t i = 0; i < n; i++)
        if (in.in_journal[i] && !in.in_file[i]) missing = true;
    if (missing) {
        /* Killed between a journal commit and the next table flush. */
        rebuild_ctx c = {.s = s, .in_file = in.in_file, .err = err};
        rc_journal_scan again;
        if (rc_journal_read(jpath, on_rebuild, &c, &again, err) != 0) goto fail;
        bool locked;
        rc_err ferr = {0};
        if (rc_h5out_flush(s->h5, &locked, &ferr) != 0 && !locked) {
            rc_err_set(err, ferr.code, "%s", ferr.msg);
            goto fail;
        }
        fprintf(stderr, "rcsim sweep: %s %zu job(s) from the journal into %s\n",
                locked ? "will write" : "wrote", c.added, o->out);
    }
    s->journal = rc_journal_open(jpath, rc_sweep_hash(sw),
                                 in.scan.exists ? in.scan.valid_bytes : 0, rc_h5out_build(), err);
    if (s->journal == NULL) goto fail;
    inspect_free(&in);
    free(jpath);
    return s;
fail:
    inspect_free(&in);
    free(jpath);
    rc_journal_close(s->journal);
    s->journal = NULL;
    rc_store_close(s, NULL);
    return NULL;
}

void rc_store_add(rc_store *s, size_t index, const void *image, size_t len,
                  const char *canonical, const rc_journal_meta *meta)
{
    /* After a failed commit (a full disk) nothing may become durable behind
     * the master's back: the summary counts committed jobs only. */
    if (s->broken) return;
    rc_journal_append(s->journal, rc_sweep_job_id(s->sw, index), meta, image, len);
    if (s->n_unc == s->cap_unc) {
        s->cap_unc = s->cap_unc ? 2 * s->cap_unc : 64;
        s->unc = rc_xrealloc(s->unc, s->cap_unc * sizeof *s->unc);
    }
    pending *p = &s->unc[s->n_unc++];
    p->index = index;
    p->image = rc_xmalloc(len ? len : 1);
    memcpy(p->image, image, len);
    p->len = len;
    p->canonical = canonical != NULL ? rc_xstrdup(canonical) : NULL;
    p->meta = *meta;
    p->meta.build = NULL;
}

void rc_store_failed(rc_store *s, size_t index, const char *msg, const rc_journal_meta *meta)
{
    rc_h5out_prov prov = {.host = meta->host, .rank = meta->rank, .finished = meta->finished};
    rc_h5out_add_failed(s->h5, rc_sweep_job(s->sw, index), msg, &prov);
}

static void drop_uncommitted(rc_store *s)
{
    for (size_t i = 0; i < s->n_unc; i++) {
        free(s->unc[i].image);
        free(s->unc[i].canonical);
    }
    s->n_unc = 0;
}

static int commit(rc_store *s, rc_err *err)
{
    if (s->journal == NULL || s->broken || rc_journal_uncommitted(s->journal) == 0) return 0;
    int rc = rc_journal_commit(s->journal, err);
    if (rc != 0) {
        /* Not durable, so not done: the next run reruns these jobs. */
        drop_uncommitted(s);
        s->broken = true;
        return rc;
    }
    for (size_t i = 0; i < s->n_unc && rc == 0; i++) {
        pending *p = &s->unc[i];
        rc_h5out_prov prov = {.host = p->meta.host, .rank = p->meta.rank,
                              .finished = p->meta.finished};
        rc = rc_h5out_add(s->h5, rc_sweep_job(s->sw, p->index), p->image, p->len, p->canonical,
                          &prov, err);
        s->done++;
    }
    drop_uncommitted(s);
    return rc;
}

static int flush(rc_store *s, bool *locked, rc_err *err)
{
    *locked = false;
    s->last_flush = now_mono();
    rc_err ferr = {0};
    int rc = rc_h5out_flush(s->h5, locked, &ferr);
    if (rc == 0) return 0;
    if (*locked) {
        if (!s->warned_locked)
            fprintf(stderr, "rcsim sweep: %s; will retry (results are safe in the journal)\n",
                    ferr.msg);
        s->warned_locked = true;
        return 0;
    }
    return rc_err_set(err, ferr.code, "%s", ferr.msg);
}

int rc_store_step(rc_store *s, bool force, rc_err *err)
{
    if (s->journal != NULL && rc_journal_uncommitted(s->journal) > 0 &&
        (force || rc_journal_due(s->journal))) {
        int rc = commit(s, err);
        if (rc != 0) return rc;
    }
    size_t rows = rc_h5out_pending(s->h5);
    size_t to_boundary = RC_H5OUT_CHUNK_ROWS - rc_h5out_rows(s->h5) % RC_H5OUT_CHUNK_ROWS;
    if (rows > 0 &&
        (force || rows >= to_boundary || now_mono() - s->last_flush >= RC_STORE_FLUSH_S)) {
        bool locked;
        return flush(s, &locked, err);
    }
    return 0;
}

size_t rc_store_done(const rc_store *s) { return s->done; }

size_t rc_store_commits(const rc_store *s)
{
    return s->journal != NULL ? rc_journal_commits(s->journal) : 0;
}

int rc_store_close(rc_store *s, rc_err *err)
{
    if (s == NULL) return 0;
    int rc = 0;
    if (s->journal != NULL) rc = commit(s, err);
    if (s->h5 != NULL && rc_h5out_pending(s->h5) > 0) {
        /* A reader holding the file (h5py keeps a lock while it is open) must
         * not turn a finished sweep into a failed one: wait a bounded time,
         * then leave the rows in the journal, which is the source of truth. */
        double t0 = now_mono();
        int frc = 0;
        bool locked = false;
        rc_err ferr = {0};
        for (;;) {
            frc = rc_h5out_flush(s->h5, &locked, &ferr);
            if (frc == 0 || !locked || now_mono() - t0 >= s->lock_wait_s) break;
            struct timespec ts = {0, 250 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        if (frc != 0 && locked) {
            fprintf(stderr,
                    "rcsim sweep: warning: %s is still held open by another process (a reader?) "
                    "after %.0f s; %zu finished job(s) are safe in %s.journal but not yet in the "
                    "table.  To write them, close the reader and run the same command again "
                    "(it runs nothing and writes the table).\n",
                    s->out, s->lock_wait_s, rc_h5out_pending(s->h5), s->out);
        } else if (frc != 0 && rc == 0) {
            rc = rc_err_set(err, ferr.code, "%s", ferr.msg);
        }
    }
    drop_uncommitted(s);
    free(s->unc);
    rc_h5out_close(s->h5);
    rc_journal_close(s->journal);
    free(s->ids);
    free(s->out);
    free(s);
    return rc;
}
