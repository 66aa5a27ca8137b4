#include "farm/progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

double rc_progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void rc_progress_init(rc_progress *p, size_t total, size_t skipped, double cost_total,
                      double interval_s)
{
    *p = (rc_progress){.total = total, .skipped = skipped, .cost_total = cost_total,
                       .interval_s = interval_s > 0 ? interval_s : 10};
    p->start = p->last = rc_progress_now();
    p->tty = isatty(STDERR_FILENO);
}

static void fmt_duration(double s, char *buf, size_t n)
{
    if (s < 0 || s > 1e9) {
        snprintf(buf, n, "?");
        return;
    }
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(buf, n, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else if (t >= 60) snprintf(buf, n, "%ldm%02lds", t / 60, t % 60);
    else snprintf(buf, n, "%lds", t);
}

void rc_progress_tick(rc_progress *p, int inflight, int force)
{
    double now = rc_progress_now();
    double every = p->tty ? 0.5 : p->interval_s;
    if (!force && now - p->last < every) return;
    p->last = now;
    double el = now - p->start;
    double jps = el > 0 ? (double)(p->done + p->failed) / el : 0;
    double eps = el > 0 ? (double)p->events / el : 0;
    double eta = -1;
    if (p->cost_done > 0) eta = (p->cost_total - p->cost_done) * el / p->cost_done;
    if (p->done + p->failed + p->skipped >= p->total) eta = 0;
    char etab[32], elb[32];
    fmt_duration(eta, etab, sizeof etab);
    fmt_duration(el, elb, sizeof elb);
    char line[256];
    snprintf(line, sizeof line,
             "progress: %zu/%zu jobs done (%zu skipped), %zu failed, %d running, %.2f jobs/s, "
             "%.3g events/s, elapsed %s, ETA %s",
             p->done + p->skipped, p->total, p->skipped, p->failed, inflight, jps, eps, elb, etab);
    if (p->tty) {
        fprintf(stderr, "\r%s\033[K", line);
        p->live = 1;
    } else {
        fprintf(stderr, "%s\n", line);
    }
    fflush(stderr);
}

void rc_progress_break(rc_progress *p)
{
    if (p->live) fputc('\n', stderr);
    p->live = 0;
}
