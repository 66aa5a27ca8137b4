#include "farm/farm.h"

#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/build.h"
#include "core/log.h"
#include "exp/cost.h"
#include "farm/exec.h"
#include "farm/progress.h"
#include "farm/proto.h"
#include "farm/store.h"

const char *const rc_farm_tag_names[RC_TAG_COUNT] = {"?", "REPORT", "DATA", "JOB", "STOP"};

/* Set by the handler on rank 0; read by the master loop. */
static volatile sig_atomic_t stop_signal = 0;

static void on_stop(int sig) { stop_signal = sig; }

void rc_farm_signals(int rank)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    /* Workers ignore the signal: srun sends SIGTERM to every task, and a
     * worker must live to deliver the job it is running; rank 0 decides when
     * the sweep ends. */
    sa.sa_handler = rank == 0 ? on_stop : SIG_IGN;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
}

_Noreturn void rc_farm_mpi_fail(const char *file, int line, const char *call, int code)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(code, msg, &len);
    rc_die(file, line, "MPI call failed: %s: %s", call, msg);
}

/* ---- builds of the ranks ---- */

static void describe_rank_build(const rc_farm_build *b, char *buf, size_t n)
{
    snprintf(buf, n, "build %s (git %s%s, sources sha256 %.12s..., %s)", b->id, b->revision,
             b->dirty == 1 && !strstr(b->revision, "dirty") ? ", dirty" : "", b->sources_sha256,
             b->config);
}

/* "3 ranks: 0 (master) on a, 1-2 on b": consecutive ranks on one host merged. */
static char *rank_layout(const rc_farm_build *all, int size)
{
    size_t cap = 64 + (size_t)size * 80, used = 0;
    char *s = rc_xmalloc(cap);
    used += (size_t)snprintf(s, cap, "%d rank%s: 0 (master) on %s", size, size > 1 ? "s" : "",
                             all[0].host);
    for (int r = 1; r < size;) {
        int e = r;
        while (e + 1 < size && !strcmp(all[e + 1].host, all[r].host)) e++;
        if (e > r) used += (size_t)snprintf(s + used, cap - used, ", %d-%d on %s", r, e, all[r].host);
        else used += (size_t)snprintf(s + used, cap - used, ", %d on %s", r, all[r].host);
        r = e + 1;
    }
    return s;
}

int rc_farm_check_builds(MPI_Comm comm, bool allow, rc_farm_build **others, size_t *n_others,
                         char **layout, rc_err *err)
{
    *others = NULL;
    *n_others = 0;
    *layout = NULL;
    int rank, size;
    RC_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    RC_MPI_CHECK(MPI_Comm_size(comm, &size));
    rc_farm_build mine;
    memset(&mine, 0, sizeof mine);
    const rc_build_info *bi = rc_build();
    snprintf(mine.id, sizeof mine.id, "%s", bi->id);
    snprintf(mine.revision, sizeof mine.revision, "%s", bi->revision);
    mine.dirty = bi->dirty;
    snprintf(mine.sources_sha256, sizeof mine.sources_sha256, "%s", bi->sources_sha256);
    snprintf(mine.config, sizeof mine.config, "%s", bi->config);
    gethostname(mine.host, sizeof mine.host - 1);
    mine.rank = rank;
    rc_farm_build *all = rank == 0 ? rc_xcalloc((size_t)size, sizeof *all) : NULL;
    RC_MPI_CHECK(MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0,
                            comm));
    int status = 0;
    if (rank == 0) {
        for (int r = 1; r < size && status == 0; r++) {
            rc_farm_build *b = &all[r];
            b->id[sizeof b->id - 1] = b->revision[sizeof b->revision - 1] = '\0';
            b->sources_sha256[sizeof b->sources_sha256 - 1] = b->config[sizeof b->config - 1] = '\0';
            b->host[sizeof b->host - 1] = '\0';
            if (!strcmp(b->id, mine.id)) continue;
            char was[800], is[800];
            describe_rank_build(&mine, was, sizeof was);
            describe_rank_build(b, is, sizeof is);
            if (!allow) {
                status = rc_err_set(err, RC_EXIT_USAGE,
                                    "rank %d (host %s) runs %s, but rank 0 (host %s) runs %s: "
                                    "its rows would be stored under the master's build.  Launch "
                                    "the same rcsim on every rank (check PATH and modules on "
                                    "the nodes), or pass --allow-other-build (each job records "
                                    "the build that ran it)",
                                    r, b->host, is, mine.host, was);
                break;
            }
            bool seen = false;
            for (size_t k = 0; k < *n_others && !seen; k++) seen = !strcmp((*others)[k].id, b->id);
            if (seen) continue;
            fprintf(stderr,
                    "rcsim sweep: warning: rank %d (host %s) runs %s, rank 0 runs build %s; "
                    "allowed by --allow-other-build (each job records the build that ran it)\n",
                    r, b->host, is, mine.id);
            *others = rc_xrealloc(*others, (*n_others + 1) * sizeof **others);
            (*others)[(*n_others)++] = *b;
        }
        all[0] = mine;
        *layout = rank_layout(all, size);
        free(all);
        if (status != 0) {
            free(*others);
            *others = NULL;
            *n_others = 0;
        }
    }
    RC_MPI_CHECK(MPI_Bcast(&status, 1, MPI_INT, 0, comm));
    return status;
}

/* ---- rank 0 state shared by the serial and the master loop ---- */

typedef struct master {
    const rc_sweep *sw;
    const rc_farm_opts *o;
    rc_store *store;
    rc_progress prog;
    size_t *todo; /* sweep indices, most expensive first; failed ones re-appended */
    double *cost; /* per sweep index */
    double cost_left; /* estimated work not yet handed out */
    size_t n_todo, next;
    unsigned char *attempts;
    char host[64];
    int workers;
    bool stopping;
    double deadline;
    /* A job found its trace changed since the sweep started (RC_JOB_TRACE_CHANGED):
     * no more jobs are handed out, later jobs failing the same way are counted,
     * not reported one by one. */
    bool trace_changed;
    size_t trace_changed_more;
    int inflight;
    size_t received; /* results received in this run (journalled or about to be) */
    size_t chunks;   /* chunks handed out */
    int rc; /* first runtime error from the store */
    rc_err *err;
} master;

static const double *sort_cost; /* qsort has no context argument */

static int cmp_cost_desc(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    double cx = sort_cost[x], cy = sort_cost[y];
    if (cx != cy) return cx > cy ? -1 : 1;
    return x < y ? -1 : x > y; /* stable: sweep order among equals */
}

void rc_farm_shard(const rc_sweep *sw, unsigned index, unsigned count, bool *in_shard)
{
    for (size_t i = 0; i < rc_sweep_count(sw); i++)
        in_shard[i] = count == 0 || rc_sweep_job_id(sw, i) % count == index;
}

static void job_for(const master *m, size_t index, rc_job *job)
{
    *job = *rc_sweep_job(m->sw, index);
    if (m->o->data_dir != NULL && m->o->data_dir[0] != '\0')
        snprintf(job->data_dir, sizeof job->data_dir, "%s", m->o->data_dir);
}

static double now_unix(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void check_signal(master *m)
{
    if (stop_signal == 0 || m->stopping) return;
    m->stopping = true;
    m->deadline = rc_progress_now() + m->o->grace_s;
    rc_progress_break(&m->prog);
    fprintf(stderr,
            "rcsim sweep: %s received: no new jobs; waiting up to %g s for %d running job(s)\n",
            strsignal(stop_signal), m->o->grace_s, m->inflight);
}

/* Guided self-scheduling by estimated cost: the next chunk takes jobs (most
 * expensive first) while it stays within its share of the work left --
 * half the remaining estimate per worker, at most RC_FARM_CHUNK_S -- and
 * within the remaining jobs per worker.  Long jobs therefore go one by one;
 * near-empty ones go hundreds at a time, so they do not pay a round trip
 * (and a fork) each.  Returns the chunk's size (0: nothing left). */
static size_t next_chunk(master *m, size_t *idx, size_t max)
{
    size_t left = m->n_todo - m->next;
    if (left == 0) return 0;
    double share = m->cost_left / (2.0 * (m->workers > 0 ? m->workers : 1));
    if (share > RC_FARM_CHUNK_S) share = RC_FARM_CHUNK_S;
    size_t cap = (left + (size_t)m->workers - 1) / (size_t)(m->workers > 0 ? m->workers : 1);
    if (cap > max) cap = max;
    if (cap < 1) cap = 1;
    size_t k = 0;
    double c = 0;
    while (k < cap && m->next < m->n_todo) {
        size_t j = m->todo[m->next];
        if (k > 0 && c + m->cost[j] > share) break;
        idx[k++] = j;
        c += m->cost[j];
        m->next++;
    }
    m->cost_left -= c;
    if (m->cost_left < 0) m->cost_left = 0;
    if (k > 0) m->chunks++;
    return k;
}

static void job_done(master *m, size_t index, int rank, const char *host, const void *image,
                     size_t len, const char *canon, uint64_t events, double wall_s)
{
    rc_journal_meta meta = {.rank = rank, .finished = now_unix()};
    snprintf(meta.host, sizeof meta.host, "%s", host);
    /* After a runtime error (a full disk) results are not saved: they count
     * as not run and the next run reruns them. */
    if (m->rc == 0) rc_store_add(m->store, index, image, len, canon, &meta);
    m->received++;
    m->prog.events += events;
    m->prog.cost_done += m->cost[index];
    if (m->o->verbose) {
        char hex[17];
        rc_job_id_hex(rc_sweep_job_id(m->sw, index), hex);
        rc_progress_break(&m->prog);
        fprintf(stderr, "rcsim sweep: job %s done on rank %d (%.2f s, %llu events)\n", hex, rank,
                wall_s, (unsigned long long)events);
    }
}

static void job_failed(master *m, size_t index, int rank, const char *host, int status,
                       const char *msg)
{
    char hex[17], canon[8192];
    rc_job_id_hex(rc_sweep_job_id(m->sw, index), hex);
    rc_job_canonical(rc_sweep_job(m->sw, index), canon, sizeof canon);
    for (char *p = canon; *p; p++)
        if (*p == '\n') *p = ' ';
    rc_progress_break(&m->prog);
    if (status < 0) {
        /* Abandoned at the end of the grace period: not a failure, just not done. */
        fprintf(stderr, "rcsim sweep: job %s abandoned (grace period over)\n", hex);
        return;
    }
    if (status == RC_JOB_TRACE_CHANGED) {
        /* Every remaining job of this trace would fail the same way: one
         * message, no new jobs, and the jobs stay not done (not /failed). */
        if (!m->trace_changed)
            fprintf(stderr,
                    "rcsim sweep: job %s on rank %d (%s): %s\nrcsim sweep: stopping: no further "
                    "job is started (the others would fail the same way); the finished jobs are "
                    "saved. Put the original trace back and run the same command to resume, or "
                    "start again with another --out\n",
                    hex, rank, host, msg);
        else
            m->trace_changed_more++;
        m->trace_changed = true;
        return;
    }
    fprintf(stderr, "rcsim sweep: job %s FAILED on rank %d (%s): %s\n  parameters: %s\n", hex,
            rank, host, msg, canon);
    m->attempts[index]++;
    if (m->o->retry_failed && m->attempts[index] == 1 && !m->stopping) {
        fprintf(stderr, "rcsim sweep: job %s will be retried once at the end\n", hex);
        m->todo[m->n_todo++] = index;
        m->cost_left += m->cost[index];
        return;
    }
    m->prog.failed++;
    m->prog.cost_done += m->cost[index];
    rc_journal_meta meta = {.rank = rank, .finished = now_unix()};
    snprintf(meta.host, sizeof meta.host, "%s", host);
    rc_store_failed(m->store, index, msg, &meta);
}

/* Housekeeping between messages: a signal, the journal and table, progress. */
static void housekeeping(master *m, bool force)
{
    check_signal(m);
    if (m->rc == 0) m->rc = rc_store_step(m->store, force, m->err);
    m->prog.done = rc_store_done(m->store);
    rc_progress_tick(&m->prog, m->inflight, 0);
}

/* ---- -np 1: the master runs the chunks itself ---- */

typedef struct serial_chunk {
    master *m;
    const size_t *idx;
    const rc_job *jobs;
} serial_chunk;

static int serial_tick(void *ctx)
{
    master *m = ((serial_chunk *)ctx)->m;
    housekeeping(m, false);
    return m->stopping && rc_progress_now() > m->deadline;
}

static void serial_done(void *ctx, size_t i, rc_exec_out *out)
{
    serial_chunk *c = ctx;
    master *m = c->m;
    m->inflight--;
    if (out->status == 0) {
        char canon[8192];
        rc_job_canonical(&c->jobs[i], canon, sizeof canon);
        job_done(m, c->idx[i], 0, m->host, out->image, out->len, canon, out->events, out->wall_s);
    } else {
        job_failed(m, c->idx[i], 0, m->host, out->status, out->msg);
    }
    /* Results of a chunk stream in without pauses: commit as they come, or
     * the journal's loss window would be the whole chunk. */
    housekeeping(m, false);
}

static void serial_loop(master *m)
{
    size_t *idx = rc_xmalloc(RC_FARM_CHUNK_MAX * sizeof *idx);
    rc_job *jobs = rc_xmalloc(RC_FARM_CHUNK_MAX * sizeof *jobs);
    while (!m->stopping && !m->trace_changed && m->rc == 0) {
        size_t k = next_chunk(m, idx, RC_FARM_CHUNK_MAX);
        if (k == 0) break;
        for (size_t i = 0; i < k; i++) job_for(m, idx[i], &jobs[i]);
        m->inflight = (int)k;
        serial_chunk c = {m, idx, jobs};
        rc_exec_chunk(jobs, k, m->o->isolate, serial_tick, &c, 0.25, serial_done, &c);
        m->inflight = 0;
        housekeeping(m, false);
    }
    free(idx);
    free(jobs);
}

/* ---- -np N: request-driven master ---- */

static void take_results(master *m, int src, const char *host, const char *buf, size_t len,
                         uint32_t n)
{
    size_t off = 0;
    for (uint32_t i = 0; i < n; i++) {
        rc_farm_frame f;
        RC_ASSERTF(len - off >= sizeof f, "master: truncated results from rank %d", src);
        memcpy(&f, buf + off, sizeof f);
        off += sizeof f;
        size_t need = (size_t)f.msg_len + f.canon_len + f.image_len;
        RC_ASSERTF(len - off >= need && f.index < rc_sweep_count(m->sw),
                   "master: bad result frame from rank %d", src);
        char msg[600], canon[8192];
        snprintf(msg, sizeof msg, "%.*s", (int)(f.msg_len < 599 ? f.msg_len : 599), buf + off);
        off += f.msg_len;
        snprintf(canon, sizeof canon, "%.*s", (int)(f.canon_len < 8191 ? f.canon_len : 8191),
                 buf + off);
        off += f.canon_len;
        m->inflight--;
        if (f.status == 0)
            job_done(m, (size_t)f.index, src, host, buf + off, f.image_len, canon, f.events,
                     f.wall_s);
        else
            job_failed(m, (size_t)f.index, src, host, f.status, msg);
        off += f.image_len;
    }
}

static bool master_loop(master *m, MPI_Comm comm, int size)
{
    int active = size - 1;
    char *buf = NULL, *out = rc_xmalloc(sizeof(rc_farm_chunk) +
                                        RC_FARM_CHUNK_MAX * sizeof(rc_farm_job));
    size_t cap = 0;
    size_t idx[RC_FARM_CHUNK_MAX];
    int idle_us = 0;
    while (active > 0 && m->rc == 0) {
        housekeeping(m, false);
        if (m->stopping && rc_progress_now() > m->deadline) break;
        int flag = 0;
        MPI_Status st;
        RC_MPI_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, RC_TAG_REPORT, comm, &flag, &st));
        if (!flag) {
            /* Sleep rather than spin: with more ranks than cores the master
             * would otherwise steal a core from a worker.  Back off to 1 ms. */
            idle_us = idle_us < 50 ? 50 : (idle_us * 2 > 1000 ? 1000 : idle_us * 2);
            struct timespec ts = {0, idle_us * 1000L};
            nanosleep(&ts, NULL);
            continue;
        }
        idle_us = 0;
        int src = st.MPI_SOURCE;
        rc_farm_report rep;
        RC_MPI_CHECK(MPI_Recv(&rep, (int)sizeof rep, MPI_BYTE, src, RC_TAG_REPORT, comm,
                              MPI_STATUS_IGNORE));
        rep.host[sizeof rep.host - 1] = '\0';
        if (rep.kind == RC_REPORT_RESULTS) {
            RC_ASSERT(rep.len < (uint64_t)1 << 31 && rep.n_jobs <= RC_FARM_CHUNK_MAX);
            if (rep.len > cap) {
                cap = rep.len;
                buf = rc_xrealloc(buf, cap);
            }
            RC_MPI_CHECK(MPI_Recv(buf, (int)rep.len, MPI_BYTE, src, RC_TAG_DATA, comm,
                                  MPI_STATUS_IGNORE));
            take_results(m, src, rep.host, buf, rep.len, rep.n_jobs);
        }
        size_t k = !m->stopping && !m->trace_changed && m->rc == 0
                       ? next_chunk(m, idx, RC_FARM_CHUNK_MAX) : 0;
        if (k > 0) {
            rc_farm_chunk ch = {.n = (uint32_t)k};
            memcpy(out, &ch, sizeof ch);
            rc_farm_job *jobs = (rc_farm_job *)(void *)(out + sizeof ch);
            for (size_t i = 0; i < k; i++) {
                memset(&jobs[i], 0, sizeof jobs[i]);
                jobs[i].index = idx[i];
                job_for(m, idx[i], &jobs[i].job);
            }
            RC_MPI_CHECK(MPI_Send(out, (int)(sizeof ch + k * sizeof(rc_farm_job)), MPI_BYTE, src,
                                  RC_TAG_JOB, comm));
            m->inflight += (int)k;
        } else {
            RC_MPI_CHECK(MPI_Send(NULL, 0, MPI_BYTE, src, RC_TAG_STOP, comm));
            active--;
        }
    }
    free(buf);
    free(out);
    return active == 0;
}

/* ---- entry ---- */

static void print_summary(const master *m, const rc_farm_stats *st)
{
    rc_progress_break((rc_progress *)&m->prog);
    /* The master's own CPU time (jobs in forked children are not in it): shows
     * what dispatching, the journal and HDF5 writing cost. */
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
                 (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    printf("rcsim sweep %s: %zu jobs: %zu run, %zu skipped (already done), %zu failed, %zu not "
           "run; %d worker(s), wall %.1f s, %.2f jobs/s, master cpu %.2f s%s\n",
           rc_sweep_name(m->sw), st->total, st->run, st->skipped, st->failed, st->left,
           st->workers, st->wall_s, st->wall_s > 0 ? (double)st->run / st->wall_s : 0, cpu,
           st->terminated ? " (stopped by a signal; rerun the same command to resume)" : "");
    fflush(stdout);
}

static int dry_run(const rc_sweep *sw, const rc_farm_opts *o, const rc_store_opts *so,
                   rc_farm_stats *st, rc_err *err)
{
    size_t n = rc_sweep_count(sw), in_run = 0;
    bool *done = rc_xcalloc(n ? n : 1, sizeof *done);
    rc_journal_scan scan;
    int rc = rc_store_scan(so, sw, done, &scan, err);
    if (rc == 0) {
        double cost = 0;
        for (size_t i = 0; i < n; i++) {
            if (so->in_run != NULL && !so->in_run[i]) continue;
            in_run++;
            if (done[i]) st->skipped++;
            else cost += rc_job_cost_estimate(rc_sweep_job(sw, i));
        }
        printf("sweep %s (%s)%s%s: %zu jobs, %zu already done in %s.journal, %zu to run, "
               "estimated cost %.3g core-seconds\n",
               rc_sweep_name(sw), rc_sweep_path(sw), so->shard[0] ? " shard " : "", so->shard,
               in_run, st->skipped, o->out, in_run - st->skipped, cost);
        for (size_t i = 0; i < n; i++) {
            if (so->in_run != NULL && !so->in_run[i]) continue;
            char hex[17];
            rc_job_id_hex(rc_sweep_job_id(sw, i), hex);
            printf("  %s %s cost=%.3g\n", hex, done[i] ? "done" : "todo",
                   rc_job_cost_estimate(rc_sweep_job(sw, i)));
        }
    }
    free(done);
    return rc;
}

int rc_farm_run(MPI_Comm world, const rc_sweep *sw, const rc_farm_opts *o, rc_farm_stats *st,
                rc_err *err)
{
    MPI_Comm comm;
    RC_MPI_CHECK(MPI_Comm_dup(world, &comm));
    /* Errors come back to RC_MPI_CHECK, which names the call. */
    RC_MPI_CHECK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    int rank, size;
    RC_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    RC_MPI_CHECK(MPI_Comm_size(comm, &size));
    rc_farm_signals(rank);
    memset(st, 0, sizeof *st);
    st->workers = size > 1 ? size - 1 : 0;
    double t0 = rc_progress_now();
    if (rank != 0) {
        /* Rank 0 says whether there is a sweep to work on (2: bad input). */
        int go = 0;
        RC_MPI_CHECK(MPI_Bcast(&go, 1, MPI_INT, 0, comm));
        int rc = go == 0 ? rc_farm_worker(comm, o) : (go < 0 ? 0 : go);
        RC_MPI_CHECK(MPI_Comm_free(&comm));
        return rc;
    }
    size_t n = rc_sweep_count(sw);
    master m;
    memset(&m, 0, sizeof m);
    m.sw = sw;
    m.o = o;
    m.err = err;
    m.workers = size > 1 ? size - 1 : 1;
    gethostname(m.host, sizeof m.host - 1);
    bool *in_run = NULL;
    char shard[32] = "";
    if (o->shard_count > 0) {
        in_run = rc_xcalloc(n ? n : 1, sizeof *in_run);
        rc_farm_shard(sw, o->shard_index, o->shard_count, in_run);
        snprintf(shard, sizeof shard, "%u/%u", o->shard_index, o->shard_count);
    }
    if (o->subset != NULL) {
        if (in_run == NULL) {
            in_run = rc_xcalloc(n ? n : 1, sizeof *in_run);
            for (size_t i = 0; i < n; i++) in_run[i] = true;
        }
        for (size_t i = 0; i < n; i++) in_run[i] = in_run[i] && o->subset[i];
    }
    size_t total = 0;
    for (size_t i = 0; i < n; i++) total += in_run == NULL || in_run[i];
    st->total = total;
    rc_store_opts so = {.out = o->out, .in_run = in_run, .shard = shard,
                        .lock_wait_s = o->lock_wait_s, .overrides = o->overrides,
                        .command = o->command, .layout = o->layout};
    int go = 0;
    if (o->dry_run) {
        int rc = dry_run(sw, o, &so, st, err);
        free(in_run);
        go = rc != 0 ? rc : -1;
        RC_MPI_CHECK(MPI_Bcast(&go, 1, MPI_INT, 0, comm));
        RC_MPI_CHECK(MPI_Comm_free(&comm));
        return rc;
    }
    bool *done = rc_xcalloc(n ? n : 1, sizeof *done);
    m.store = rc_store_open(&so, sw, done, err);
    if (m.store == NULL) {
        free(done);
        free(in_run);
        go = err->code ? err->code : RC_EXIT_RUNTIME;
        RC_MPI_CHECK(MPI_Bcast(&go, 1, MPI_INT, 0, comm));
        RC_MPI_CHECK(MPI_Comm_free(&comm));
        return go;
    }
    RC_MPI_CHECK(MPI_Bcast(&go, 1, MPI_INT, 0, comm));
    /* Room for every job twice: the first pass plus one retry each. */
    m.todo = rc_xmalloc((2 * n + 1) * sizeof *m.todo);
    m.attempts = rc_xcalloc(n ? n : 1, 1);
    m.cost = rc_xcalloc(n ? n : 1, sizeof *m.cost);
    for (size_t i = 0; i < n; i++) {
        if (in_run != NULL && !in_run[i]) continue;
        if (done[i]) {
            st->skipped++;
            continue;
        }
        m.cost[i] = rc_job_cost_estimate(rc_sweep_job(sw, i));
        m.todo[m.n_todo++] = i;
        m.cost_left += m.cost[i];
    }
    free(done);
    free(in_run);
    sort_cost = m.cost;
    qsort(m.todo, m.n_todo, sizeof *m.todo, cmp_cost_desc);
    rc_progress_init(&m.prog, total, st->skipped, m.cost_left, o->progress_s);
    fprintf(stderr,
            "rcsim sweep %s%s%s: %zu jobs, %zu already done, %zu to run on %d worker(s)%s; "
            "master pid %d; results %s\n",
            rc_sweep_name(sw), shard[0] ? " shard " : "", shard, total, st->skipped, m.n_todo,
            size > 1 ? size - 1 : 1, size > 1 ? "" : " (serial, this process)", (int)getpid(),
            o->out);
    bool clean = true;
    if (size == 1) serial_loop(&m);
    else clean = master_loop(&m, comm, size);
    /* The last journal batch and table rows; the run count is what the
     * journal holds (a batch that could not be committed is not done). */
    if (m.rc == 0) m.rc = rc_store_step(m.store, true, err);
    m.prog.done = rc_store_done(m.store);
    size_t commits = rc_store_commits(m.store);
    if (m.rc == 0) m.rc = rc_store_close(m.store, err);
    else rc_store_close(m.store, NULL);
    free(m.cost);
    st->run = m.prog.done;
    st->failed = m.prog.failed;
    st->terminated = m.stopping;
    size_t unique_left = total - st->skipped - st->run - st->failed;
    st->left = unique_left;
    st->wall_s = rc_progress_now() - t0;
    rc_progress_tick(&m.prog, m.inflight, 1);
    if (m.trace_changed_more > 0)
        fprintf(stderr, "rcsim sweep: %zu more job(s) already running found the same changed "
                "trace\n", m.trace_changed_more);
    if (m.chunks > 0)
        fprintf(stderr, "rcsim sweep: %zu job(s) handed out in %zu chunk(s) (%.1f a chunk); "
                "%zu journal commit(s)\n", m.received, m.chunks,
                (double)m.received / (double)m.chunks, commits);
    print_summary(&m, st);
    free(m.todo);
    free(m.attempts);
    int rc = m.rc != 0            ? m.rc
             : st->terminated     ? RC_EXIT_TERMINATED
             : st->failed || m.trace_changed ? RC_EXIT_RUNTIME
                                  : 0;
    if (!clean) {
        /* Grace period over, or a runtime error (full disk), with workers
         * still busy: everything received is saved and the file is closed;
         * MPI_Finalize would wait for them.  MPI_Abort does not return, so
         * the error is printed here or never. */
        if (m.rc != 0)
            fprintf(stderr, "rcsim sweep: %s\nrcsim sweep: stopping with %d job(s) running; "
                    "aborting them\n", err->msg, m.inflight);
        else
            fprintf(stderr,
                    "rcsim sweep: grace period over with %d job(s) running; aborting them\n",
                    m.inflight);
        fflush(NULL);
        MPI_Abort(comm, rc);
    }
    RC_MPI_CHECK(MPI_Comm_free(&comm));
    return rc;
}
