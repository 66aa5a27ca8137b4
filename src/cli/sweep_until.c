#include "cli/sweep_until.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "exp/result.h"
#include "exp/until.h"
#include "io/h5out.h"
#include "io/journal.h"

typedef struct id_pos {
    uint64_t id;
    size_t index;
} id_pos;

static int cmp_id(const void *a, const void *b)
{
    uint64_t x = ((const id_pos *)a)->id, y = ((const id_pos *)b)->id;
    return x < y ? -1 : x > y;
}

typedef struct reading {
    const rc_until *u;
    const id_pos *ids;
    size_t n;
    bool *done;
    double *value;
} reading;

static int on_record(void *ctx, uint64_t job_id, const rc_journal_meta *meta, const void *image,
                     size_t len)
{
    (void)meta;
    reading *r = ctx;
    id_pos key = {job_id, 0};
    const id_pos *e = bsearch(&key, r->ids, r->n, sizeof key, cmp_id);
    if (e == NULL) return 0; /* the store refuses or explains jobs of another sweep */
    rc_result_view v;
    rc_err err = {0};
    r->done[e->index] = true;
    r->value[e->index] = NAN;
    if (rc_result_view_parse(&v, image, len, &err) == 0) {
        r->value[e->index] = rc_until_value(r->u, &v.online);
        rc_result_view_release(&v);
    }
    return 0;
}

/* Rank 0: the finished jobs (journal) -> the jobs chosen so far (active).
 * Returns 1 when some are still to run, 0 when every configuration has
 * stopped, or minus an exit code. */
static int plan_round(const rc_sweep *sw, const rc_farm_opts *o, bool *active, size_t pass,
                      rc_err *err)
{
    const rc_until *u = rc_sweep_until(sw);
    size_t n = rc_sweep_count(sw);
    id_pos *ids = rc_xmalloc((n ? n : 1) * sizeof *ids);
    for (size_t i = 0; i < n; i++) ids[i] = (id_pos){rc_sweep_job_id(sw, i), i};
    qsort(ids, n, sizeof *ids, cmp_id);
    bool *done = rc_xcalloc(n ? n : 1, sizeof *done);
    double *value = rc_xcalloc(n ? n : 1, sizeof *value);
    reading r = {u, ids, n, done, value};
    char *jpath = rc_journal_path(o->out);
    rc_journal_scan scan;
    int rc = rc_journal_read(jpath, on_record, &r, &scan, err);
    free(jpath);
    size_t nc = 0, todo = 0, narrow = 0, at_max = 0, running = 0;
    rc_until_config *cs = NULL;
    if (rc == 0) {
        cs = rc_until_plan(u, sw, done, value, active, &nc);
        for (size_t i = 0; i < n; i++) todo += active[i] && !done[i];
        /* Seeds finished beyond what the rule now chooses (the rule was made
         * looser) stay in the file: they are jobs of this run, not strangers. */
        for (size_t i = 0; i < n; i++) active[i] = active[i] || done[i];
        for (size_t i = 0; i < nc; i++) {
            narrow += cs[i].state == RC_UNTIL_NARROW;
            at_max += cs[i].state == RC_UNTIL_MAX;
            running += cs[i].state == RC_UNTIL_RUNNING;
        }
        fprintf(stderr,
                "rcsim sweep: seeds until %s (min %u, max %u, step %u), pass %zu: %zu "
                "configuration(s): %zu narrow, %zu at max, %zu need seeds: %zu job(s) to run\n",
                u->rule, u->min, u->max, u->step, pass, nc, narrow, at_max, running, todo);
        /* Why each configuration has the seeds it has, once the file exists (a
         * journal may precede it: a crash before the first table write). */
        if (!o->dry_run && access(o->out, F_OK) == 0) {
            char rule[200];
            snprintf(rule, sizeof rule, "%s; min %u, max %u, step %u", u->rule, u->min, u->max,
                     u->step);
            char *rep = rc_until_report(u, sw, cs, nc);
            rc = rc_h5out_note(o->out, "seeds_until", rule, err);
            if (rc == 0) rc = rc_h5out_note(o->out, "seeds_until_outcome", rep, err);
            free(rep);
            /* Before this run's first pass the file is as a killed run left it
             * (HDF5 may refuse to open it until the store repairs it): the
             * pass that follows writes the note again. */
            if (rc != 0 && pass == 0) {
                if (todo == 0)
                    fprintf(stderr, "rcsim sweep: warning: %s; the outcome is not recorded\n",
                            err->msg);
                rc = 0;
                memset(err, 0, sizeof *err);
            }
        }
    }
    free(cs);
    free(ids);
    free(done);
    free(value);
    if (rc != 0) return -(err->code ? err->code : RC_EXIT_RUNTIME);
    return todo > 0 ? 1 : 0;
}

int rc_sweep_until_run(MPI_Comm comm, const rc_sweep *sw, rc_farm_opts *o, rc_farm_stats *st,
                       rc_err *err)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    int adaptive = rank == 0 && rc_sweep_until(sw) != NULL;
    if (rank == 0 && adaptive && o->shard_count > 0) adaptive = -RC_EXIT_USAGE;
    MPI_Bcast(&adaptive, 1, MPI_INT, 0, comm);
    if (adaptive == 0) return rc_farm_run(comm, sw, o, st, err);
    if (adaptive < 0) {
        if (rank != 0) return 0;
        return rc_err_set(err, RC_EXIT_USAGE,
                          "%s: seeds: until cannot run as a shard (--shard %u/%u): whether a "
                          "configuration needs more seeds depends on all its seeds, which other "
                          "shards run; run it unsharded (one allocation, any number of ranks)",
                          rc_sweep_path(sw), o->shard_index, o->shard_count);
    }
    size_t n = rank == 0 ? rc_sweep_count(sw) : 0;
    bool *active = rc_xcalloc(n ? n : 1, sizeof *active);
    o->subset = active;
    int rc = 0;
    bool stop = false;
    for (size_t pass = 0;; pass++) {
        int go = 0;
        if (rank == 0 && !stop) {
            int p = plan_round(sw, o, active, pass, err);
            if (p < 0) rc = -p;
            else go = p;
        }
        MPI_Bcast(&go, 1, MPI_INT, 0, comm);
        if (!go) break;
        int r = rc_farm_run(comm, sw, o, st, err);
        if (rank != 0) continue;
        if (r != 0) {
            rc = r;
            stop = true;
        } else if (o->dry_run) {
            stop = true; /* shows the jobs of the current pass only */
        } else if (st->run == 0) {
            /* Nothing new finished: the next pass would choose the same jobs. */
            rc = rc_err_set(err, RC_EXIT_RUNTIME, "seeds until: a pass ran no job; stopping");
            stop = true;
        }
    }
    o->subset = NULL;
    free(active);
    return rank == 0 ? rc : 0;
}
