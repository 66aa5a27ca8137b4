/* results_bench: writes a synthetic results file of N jobs through the real
 * writer (io/h5out.h) and journal (io/journal.h), and prints what that cost.
 *
 *   bench_results N OUT.h5 [NONZERO]
 *
 * Each job is a row of a plausible sweep (users, strategy, trace and seed
 * vary; summaries and counters are random) with NONZERO nonzero histogram
 * buckets in each of its two histograms (default 200; a near-empty job has
 * a handful, a 24 h paper job a few thousand).  The rows are added and
 * flushed the way the sweep master does (rc_h5out_add, a flush every 4096
 * rows; journal records group-committed every 256).  Prints one line
 *
 *   results_bench jobs=N nonzero=K add_us=... flush_us=... journal_us=... h5_bytes_per_job=...
 *   journal_bytes_per_job=...
 *
 * (CPU microseconds per job).  bench/ingest.sh uses the files to time the
 * Python loader on 10^4..10^6 jobs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exp/job.h"
#include "exp/result.h"
#include "io/h5out.h"
#include "io/journal.h"

static double cpu_s(void)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return (double)r.ru_utime.tv_sec + 1e-6 * (double)r.ru_utime.tv_usec +
           (double)r.ru_stime.tv_sec + 1e-6 * (double)r.ru_stime.tv_usec;
}

static uint64_t rng_state = 88172645463325252ULL;
static uint64_t xorshift(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static double unif(void) { return (double)(xorshift() >> 11) / 9007199254740992.0; }

static off_t size_of(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 ? st.st_size : 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_results N OUT.h5 [NONZERO]\n");
        return 2;
    }
    size_t n = strtoull(argv[1], NULL, 10), nonzero = argc > 3 ? strtoull(argv[3], NULL, 10) : 200;
    const char *out = argv[2];
    char *jpath = rc_journal_path(out);
    unlink(out);
    unlink(jpath);
    static const char *strategies[] = {"unicast", "rc-k2-p2", "rc-k2-p2-ft", "rc-k4-p1-ft-dropoffline"};
    static const int users[] = {16, 32, 64, 128, 256};
    rc_h5out_sweep sw = {"synthetic", "bench/results_bench.c", "name: synthetic\n", 0x5eed, n, ""};
    rc_err err = {0};
    rc_h5out *h = rc_h5out_open(out, &sw, 1024, &err);
    rc_journal *j = h ? rc_journal_open(jpath, sw.hash, 0, rc_h5out_build(), &err) : NULL;
    if (h == NULL || j == NULL) {
        fprintf(stderr, "bench_results: %s\n", err.msg);
        return 1;
    }
    rc_result r;
    rc_result_init(&r);
    double t_add = 0, t_flush = 0, t_journal = 0;
    for (size_t i = 0; i < n; i++) {
        rc_job job;
        rc_job_defaults(&job);
        job.users = users[i % 5];
        snprintf(job.strategy, sizeof job.strategy, "%s", strategies[(i / 5) % 4]);
        snprintf(job.trace, sizeof job.trace, "%s", (i / 20) % 2 ? "gen_os15" : "online");
        job.seed = i / 40 + 1;
        rc_job_resolve(&job);
        /* results */
        memset(r.hist_online, 0, RC_HIST_BINS * sizeof(uint32_t));
        memset(r.hist_all, 0, RC_HIST_BINS * sizeof(uint32_t));
        size_t first = rc_hist_bin(1.0);
        for (size_t k = 0; k < nonzero; k++) {
            r.hist_online[first + 3 * k] = 1 + (uint32_t)(xorshift() % 7);
            r.hist_all[first + 3 * k] = 1 + (uint32_t)(xorshift() % 9);
        }
        r.job_id = rc_job_id(&job);
        memset(&r.c, 0, sizeof r.c);
        r.c.events = xorshift() % 100000000;
        r.c.deliveries = xorshift() % 1000000;
        r.c.deliveries_online = r.c.deliveries / 2;
        r.c.payload_packets = xorshift() % 10000000;
        r.c.wall_s = 10 * unif();
        r.c.sim_s = 86400;
        r.c.peak_rss_kb = 20000 + xorshift() % 1000;
        r.online.count = r.c.deliveries_online;
        r.online.mean_s = 10 * unif();
        r.online.sd_s = unif();
        r.online.min_s = unif();
        r.online.max_s = 1000 * unif();
        for (int q = 0; q < RC_SUMMARY_QUANTILES; q++) r.online.q[q] = (q + 1) * unif();
        r.all = r.online;
        r.all.count = r.c.deliveries;
        /* what a worker does: the image (not timed: workers pay it) */
        void *img;
        size_t len;
        rc_result_pack(&r, &img, &len);
        rc_result_deflate(&img, &len);
        char canon[8192];
        rc_job_canonical(&job, canon, sizeof canon);
        rc_h5out_prov prov = {"node017", (int)(i % 64) + 1, 1.7e9 + (double)i};
        /* what the master does */
        double t0 = cpu_s();
        rc_journal_meta meta = {.rank = prov.rank, .finished = prov.finished};
        snprintf(meta.host, sizeof meta.host, "%s", prov.host);
        rc_journal_append(j, r.job_id, &meta, img, len);
        if (rc_journal_uncommitted(j) >= RC_JOURNAL_COMMIT_RECORDS && rc_journal_commit(j, &err) != 0)
            break;
        double t1 = cpu_s();
        if (rc_h5out_add(h, &job, img, len, canon, &prov, &err) != 0) break;
        double t2 = cpu_s();
        bool locked;
        if (rc_h5out_pending(h) >= 4096 && rc_h5out_flush(h, &locked, &err) != 0) break;
        double t3 = cpu_s();
        t_journal += t1 - t0;
        t_add += t2 - t1;
        t_flush += t3 - t2;
        free(img);
    }
    double t0 = cpu_s();
    bool locked;
    int rc = err.code == 0 ? rc_journal_commit(j, &err) : err.code;
    double t1 = cpu_s();
    if (rc == 0) rc = rc_h5out_flush(h, &locked, &err);
    double t2 = cpu_s();
    t_journal += t1 - t0;
    t_flush += t2 - t1;
    rc_journal_close(j);
    rc_h5out_close(h);
    rc_result_free(&r);
    if (rc != 0) {
        fprintf(stderr, "bench_results: %s\n", err.msg);
        return 1;
    }
    printf("results_bench jobs=%zu nonzero=%zu add_us=%.2f flush_us=%.2f journal_us=%.2f "
           "h5_bytes_per_job=%.1f journal_bytes_per_job=%.1f\n",
           n, nonzero, 1e6 * t_add / (double)n, 1e6 * t_flush / (double)n,
           1e6 * t_journal / (double)n, (double)size_of(out) / (double)n,
           (double)size_of(jpath) / (double)n);
    free(jpath);
    return 0;
}
