/* bench_evq: benchmark of the pending-event set.
 *
 * Linked with the whole simulator core around the engine's queue
 * (src/core/evq.c) as bench_evq_heap2b (bench/bench.cmake); the study's other
 * queues, each linked in its place, are gone (docs/performance.md, "The
 * event-queue study").  Two modes:
 *
 *   bench_evq_X hold [--sizes 100,1000,...] [--ops N] [--repeat R]
 *       the classic hold model: fill the queue with N events, then time
 *       pop-min + push(min + Exp(1 s)) pairs; prints ns per hold (best of R)
 *       and a checksum of the popped (time, key) sequence, which must be the
 *       same for every implementation (same order, same ties).
 *   bench_evq_X job [--repeat R] [--PARAM VALUE ...]
 *       the real workload: runs the job (rcsim run's parameters) through
 *       rc_run_job R times in this process and prints events, events/s (best
 *       wall and CPU time) and the results that must not depend on the queue.
 *
 * Exit codes: 0 ok, 2 bad usage, 1 a job failed.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "core/evq.h"
#include "core/err.h"
#include "exp/job.h"
#include "exp/param.h"
#include "exp/run.h"

#ifndef BENCH_EVQ_NAME
#define BENCH_EVQ_NAME "heap4"
#endif

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* xorshift64*: the benchmark's own stream, so every variant sees the same
 * inputs and the generator costs little next to the queue. */
static uint64_t rng_state;
static inline uint64_t rng_next(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}
static inline rc_time rng_exp_us(double mean_us)
{
    double u = ((double)(rng_next() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
    return (rc_time)(-log(u) * mean_us);
}

static int hold(size_t size, size_t ops, int repeat, double *ns_best, uint64_t *checksum)
{
    *ns_best = INFINITY;
    for (int r = 0; r < repeat; r++) {
        rng_state = 0x9E3779B97F4A7C15ULL ^ size;
        rc_evq q;
        rc_evq_init(&q, 1024);
        for (size_t i = 0; i < size; i++)
            rc_evq_push(&q, rng_exp_us(1e6), (unsigned)(rng_next() >> 62), 0, (uint32_t)i, 0);
        rc_event ev;
        /* warm-up: the hold model's steady-state distribution needs ~size holds */
        for (size_t i = 0; i < size; i++) {
            rc_evq_pop(&q, &ev);
            rc_evq_push(&q, ev.t + rng_exp_us(1e6), (unsigned)(rng_next() >> 62), 0, ev.obj, 0);
        }
        uint64_t h = 1469598103934665603ULL;
        double t0 = now_s();
        for (size_t i = 0; i < ops; i++) {
            rc_evq_pop(&q, &ev);
            h = (h ^ (uint64_t)ev.t ^ (ev.key2 >> 56) ^ ((uint64_t)ev.obj << 32)) * 1099511628211ULL;
            rc_evq_push(&q, ev.t + rng_exp_us(1e6), (unsigned)(rng_next() >> 62), 0, ev.obj, 0);
        }
        double ns = (now_s() - t0) * 1e9 / (double)ops;
        if (ns < *ns_best) *ns_best = ns;
        *checksum = h;
        rc_evq_free(&q);
    }
    return 0;
}

static int mode_hold(int argc, char **argv)
{
    const char *sizes = "100,1000,10000,100000,1000000";
    long ops = 1000000;
    int repeat = 3;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) sizes = argv[++i];
        else if (!strcmp(argv[i], "--ops") && i + 1 < argc) ops = strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = atoi(argv[++i]);
        else {
            fprintf(stderr, "bench_evq hold: bad argument '%s'\n", argv[i]);
            return RC_EXIT_USAGE;
        }
    }
    if (ops < 1 || repeat < 1) {
        fprintf(stderr, "bench_evq hold: --ops and --repeat must be positive\n");
        return RC_EXIT_USAGE;
    }
    /* what the hold loop costs without the queue (the generator and log()),
     * to subtract when comparing absolute numbers */
    {
        rng_state = 1;
        rc_time acc = 0;
        double t0 = now_s();
        for (long i = 0; i < ops; i++) acc += rng_exp_us(1e6) + (rc_time)(rng_next() >> 62);
        double ns = (now_s() - t0) * 1e9 / (double)ops;
        printf("hold %-8s baseline (generator only)  %7.1f ns/hold  (sum %lld)\n", BENCH_EVQ_NAME, ns,
               (long long)(acc & 0xff));
    }
    char buf[256];
    snprintf(buf, sizeof buf, "%s", sizes);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *end;
        double v = strtod(tok, &end);
        if (end == tok || *end || v < 1 || v > 1e8) {
            fprintf(stderr, "bench_evq hold: bad size '%s'\n", tok);
            return RC_EXIT_USAGE;
        }
        double ns;
        uint64_t sum = 0;
        hold((size_t)v, (size_t)ops, repeat, &ns, &sum);
        printf("hold %-8s size %8zu  %7.1f ns/hold  checksum %016llx\n", BENCH_EVQ_NAME, (size_t)v,
               ns, (unsigned long long)sum);
        fflush(stdout);
    }
    return 0;
}

static int mode_job(int argc, char **argv)
{
    rc_job job;
    rc_job_defaults(&job);
    const char *dir = getenv("RCSIM_DATA_DIR");
    if (dir && strlen(dir) < sizeof job.data_dir) strcpy(job.data_dir, dir);
    int repeat = 3;
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "--", 2) != 0 || i + 1 >= argc) {
            fprintf(stderr, "bench_evq job: want --PARAM VALUE pairs, got '%s'\n", argv[i]);
            return RC_EXIT_USAGE;
        }
        if (!strcmp(argv[i], "--repeat")) {
            repeat = atoi(argv[++i]);
            if (repeat < 1) repeat = 1;
            continue;
        }
        rc_err err = {0};
        if (rc_param_set_by_name(&job, argv[i] + 2, argv[i + 1], &err) != 0) {
            fprintf(stderr, "bench_evq job: --%s\n", err.msg);
            return RC_EXIT_USAGE;
        }
        i++;
    }
    double best_wall = INFINITY, best_cpu = INFINITY;
    rc_result res;
    for (int r = 0; r < repeat; r++) {
        rc_err err = {0};
        double w0 = now_s(), c0 = cpu_s();
        int rc = rc_run_job(&job, &res, NULL, NULL, &err);
        if (rc != 0) {
            fprintf(stderr, "bench_evq job: %s\n", err.msg);
            return rc;
        }
        double w = now_s() - w0, c = cpu_s() - c0;
        if (w < best_wall) best_wall = w;
        if (c < best_cpu) best_cpu = c;
        if (r + 1 < repeat) rc_result_free(&res);
    }
    printf("job %-8s events %llu  wall %.3f s  cpu %.3f s  %.3f Mevents/cpu-s  "
           "deliveries %llu  mean %.6f s  p99 %.6f s\n",
           BENCH_EVQ_NAME, (unsigned long long)res.c.events, best_wall, best_cpu,
           (double)res.c.events / best_cpu / 1e6, (unsigned long long)res.online.count,
           res.online.mean_s, res.online.q[8]);
    rc_result_free(&res);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "hold")) return mode_hold(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "job")) return mode_job(argc - 2, argv + 2);
    fprintf(argc >= 2 && strcmp(argv[1], "--help") ? stderr : stdout,
            "usage: bench_evq_%s hold [--sizes 100,1000,...] [--ops N] [--repeat R]\n"
            "       bench_evq_%s job [--repeat R] [--PARAM VALUE ...]   (rcsim run's parameters)\n"
            "Pending-event set benchmark; bench/run_evq.sh compares every variant.\n",
            BENCH_EVQ_NAME, BENCH_EVQ_NAME);
    return argc >= 2 && !strcmp(argv[1], "--help") ? 0 : RC_EXIT_USAGE;
}
