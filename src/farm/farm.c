#include "farm/farm.h"

#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
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

/* ---- rank 0 state shared by the serial and the master loop ---- */

typedef struct master {
    const rc_sweep *sw;
    const rc_farm_opts *o;
    rc_store *store;
    rc_progress prog;
    size_t *todo; /* sweep indices, most expensive first; failed ones re-appended */
    size_t n_todo, next;
    unsigned char *attempts;
    char host[64];
    bool stopping;
    double deadline;
    int inflight;
    int rc; /* first runtime error from the store */
    rc_err *err;
} master;

static const rc_sweep *sort_sweep; /* qsort has no context argument */

static int cmp_cost_desc(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    double cx = rc_job_cost_estimate(rc_sweep_job(sort_sweep, x));
    double cy = rc_job_cost_estimate(rc_sweep_job(sort_sweep, y));
    if (cx != cy) return cx > cy ? -1 : 1;
    return x < y ? -1 : x > y; /* stable: sweep order among equals */
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

static void job_done(master *m, size_t index, int rank, const char *host, const void *image,
                     size_t len, uint64_t events, double wall_s)
{
    rc_journal_meta meta = {.rank = rank, .finished = now_unix()};
    snprintf(meta.host, sizeof meta.host, "%s", host);
    if (m->rc == 0) m->rc = rc_store_add(m->store, index, image, len, &meta, m->err);
    /* Not journalled (e.g. the disk is full): the job is not done, it counts
     * as "not run" and the next run reruns it. */
    if (m->rc != 0) return;
    m->prog.done++;
    m->prog.events += events;
    m->prog.cost_done += rc_job_cost_estimate(rc_sweep_job(m->sw, index));
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
    fprintf(stderr, "rcsim sweep: job %s FAILED on rank %d (%s): %s\n  parameters: %s\n", hex,
            rank, host, msg, canon);
    m->attempts[index]++;
    if (m->o->retry_failed && m->attempts[index] == 1 && !m->stopping) {
        fprintf(stderr, "rcsim sweep: job %s will be retried once at the end\n", hex);
        m->todo[m->n_todo++] = index;
        return;
    }
    m->prog.failed++;
    m->prog.cost_done += rc_job_cost_estimate(rc_sweep_job(m->sw, index));
    rc_journal_meta meta = {.rank = rank, .finished = now_unix()};
    snprintf(meta.host, sizeof meta.host, "%s", host);
    rc_store_failed(m->store, index, msg, &meta);
}

/* Housekeeping between messages: a signal, one HDF5 write step, progress. */
static void housekeeping(master *m, bool force_flush)
{
    check_signal(m);
    if (m->rc == 0) m->rc = rc_store_step(m->store, force_flush, m->err);
    rc_progress_tick(&m->prog, m->inflight, 0);
}

/* ---- -np 1: the master runs the jobs itself ---- */

static int serial_tick(void *ctx)
{
    master *m = ctx;
    housekeeping(m, false);
    while (m->rc == 0 && rc_store_busy(m->store)) m->rc = rc_store_step(m->store, false, m->err);
    return m->stopping && rc_progress_now() > m->deadline;
}

static void serial_loop(master *m)
{
    while (m->next < m->n_todo && !m->stopping && m->rc == 0) {
        size_t index = m->todo[m->next++];
        rc_job job;
        job_for(m, index, &job);
        rc_exec_out r;
        m->inflight = 1;
        rc_exec_job(&job, m->o->isolate, serial_tick, m, 0.25, &r);
        m->inflight = 0;
        if (r.status == 0)
            job_done(m, index, 0, m->host, r.image, r.len, r.events, r.wall_s);
        else
            job_failed(m, index, 0, m->host, r.status, r.msg);
        free(r.image);
        housekeeping(m, false);
    }
}

/* ---- -np N: request-driven master ---- */

static bool master_loop(master *m, MPI_Comm comm, int size)
{
    int active = size - 1;
    char *buf = NULL;
    size_t cap = 0;
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
            if (!rc_store_busy(m->store)) {
                idle_us = idle_us < 50 ? 50 : (idle_us * 2 > 1000 ? 1000 : idle_us * 2);
                struct timespec ts = {0, idle_us * 1000L};
                nanosleep(&ts, NULL);
            }
            continue;
        }
        idle_us = 0;
        int src = st.MPI_SOURCE;
        rc_farm_report rep;
        RC_MPI_CHECK(MPI_Recv(&rep, (int)sizeof rep, MPI_BYTE, src, RC_TAG_REPORT, comm,
                              MPI_STATUS_IGNORE));
        rep.host[sizeof rep.host - 1] = '\0';
        rep.msg[sizeof rep.msg - 1] = '\0';
        if (rep.kind == RC_REPORT_DONE) {
            RC_ASSERT(rep.len < (uint64_t)1 << 31 && rep.index < rc_sweep_count(m->sw));
            if (rep.len > cap) {
                cap = rep.len;
                buf = rc_xrealloc(buf, cap);
            }
            RC_MPI_CHECK(MPI_Recv(buf, (int)rep.len, MPI_BYTE, src, RC_TAG_DATA, comm,
                                  MPI_STATUS_IGNORE));
            m->inflight--;
            job_done(m, (size_t)rep.index, src, rep.host, buf, rep.len, rep.events, rep.wall_s);
        } else if (rep.kind == RC_REPORT_FAILED) {
            RC_ASSERT(rep.index < rc_sweep_count(m->sw));
            m->inflight--;
            job_failed(m, (size_t)rep.index, src, rep.host, rep.status, rep.msg);
        }
        if (!m->stopping && m->rc == 0 && m->next < m->n_todo) {
            rc_farm_job_msg msg;
            memset(&msg, 0, sizeof msg);
            msg.index = m->todo[m->next++];
            job_for(m, (size_t)msg.index, &msg.job);
            RC_MPI_CHECK(MPI_Send(&msg, (int)sizeof msg, MPI_BYTE, src, RC_TAG_JOB, comm));
            m->inflight++;
        } else {
            RC_MPI_CHECK(MPI_Send(NULL, 0, MPI_BYTE, src, RC_TAG_STOP, comm));
            active--;
        }
    }
    free(buf);
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

static int dry_run(const rc_sweep *sw, const rc_farm_opts *o, rc_farm_stats *st, rc_err *err)
{
    size_t n = rc_sweep_count(sw);
    bool *done = rc_xcalloc(n ? n : 1, sizeof *done);
    rc_journal_scan scan;
    int rc = rc_store_scan(o->out, sw, done, &scan, err);
    if (rc == 0) {
        double cost = 0;
        for (size_t i = 0; i < n; i++)
            if (done[i]) st->skipped++;
            else cost += rc_job_cost_estimate(rc_sweep_job(sw, i));
        printf("sweep %s (%s): %zu jobs, %zu already done in %s.journal, %zu to run, estimated "
               "cost %.3g core-seconds\n",
               rc_sweep_name(sw), rc_sweep_path(sw), n, st->skipped, o->out, n - st->skipped,
               cost);
        for (size_t i = 0; i < n; i++) {
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
    st->total = n;
    master m;
    memset(&m, 0, sizeof m);
    m.sw = sw;
    m.o = o;
    m.err = err;
    gethostname(m.host, sizeof m.host - 1);
    int go = 0;
    if (o->dry_run) {
        int rc = dry_run(sw, o, st, err);
        go = rc != 0 ? rc : -1;
        RC_MPI_CHECK(MPI_Bcast(&go, 1, MPI_INT, 0, comm));
        RC_MPI_CHECK(MPI_Comm_free(&comm));
        return rc;
    }
    bool *done = rc_xcalloc(n ? n : 1, sizeof *done);
    m.store = rc_store_open(o->out, sw, done, err);
    if (m.store == NULL) {
        free(done);
        go = err->code ? err->code : RC_EXIT_RUNTIME;
        RC_MPI_CHECK(MPI_Bcast(&go, 1, MPI_INT, 0, comm));
        RC_MPI_CHECK(MPI_Comm_free(&comm));
        return go;
    }
    RC_MPI_CHECK(MPI_Bcast(&go, 1, MPI_INT, 0, comm));
    /* Room for every job twice: the first pass plus one retry each. */
    m.todo = rc_xmalloc((2 * n + 1) * sizeof *m.todo);
    m.attempts = rc_xcalloc(n ? n : 1, 1);
    double cost = 0;
    for (size_t i = 0; i < n; i++) {
        if (done[i]) {
            st->skipped++;
            continue;
        }
        m.todo[m.n_todo++] = i;
        cost += rc_job_cost_estimate(rc_sweep_job(sw, i));
    }
    free(done);
    sort_sweep = sw;
    qsort(m.todo, m.n_todo, sizeof *m.todo, cmp_cost_desc);
    rc_progress_init(&m.prog, n, st->skipped, cost, o->progress_s);
    fprintf(stderr,
            "rcsim sweep %s: %zu jobs, %zu already done, %zu to run on %d worker(s)%s; master pid "
            "%d; results %s\n",
            rc_sweep_name(sw), n, st->skipped, m.n_todo, size > 1 ? size - 1 : 1,
            size > 1 ? "" : " (serial, this process)", (int)getpid(), o->out);
    bool clean = true;
    if (size == 1) serial_loop(&m);
    else clean = master_loop(&m, comm, size);
    if (m.rc == 0) m.rc = rc_store_close(m.store, err);
    else rc_store_close(m.store, NULL);
    st->run = m.prog.done;
    st->failed = m.prog.failed;
    st->terminated = m.stopping;
    size_t unique_left = n - st->skipped - st->run - st->failed;
    st->left = unique_left;
    st->wall_s = rc_progress_now() - t0;
    rc_progress_tick(&m.prog, m.inflight, 1);
    print_summary(&m, st);
    free(m.todo);
    free(m.attempts);
    int rc = m.rc != 0 ? m.rc : st->terminated ? RC_EXIT_TERMINATED : st->failed ? RC_EXIT_RUNTIME : 0;
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
