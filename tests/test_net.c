/* The Loopix net: per-hop delays, payload slots, pulls, offline clients.
 * Statistical tests use explicit tolerances (several sigma) with fixed seeds. */
#include <criterion/criterion.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sim.h"
#include "exp/job.h"
#include "loopix/net.h"
#include "trace/avail.h"

typedef struct obs {
    double *net_s;     /* emitted -> postbox */
    size_t n_net;
    rc_time *sent_t;
    size_t n_sent;
    rc_time *deliver_t;
    rc_time *arrive_t;
    bool *labels;
    size_t n_deliver;
    rc_net *net;
    uint32_t offline_checks_failed;
} obs;

static obs O;

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void h_sent(void *c, uint32_t u, uint32_t b, rc_time now)
{
    (void)c, (void)u, (void)b;
    O.sent_t[O.n_sent++] = now;
}
static void h_deliver(void *c, uint32_t u, uint32_t b, bool online, rc_time now)
{
    (void)c;
    if (!rc_net_online(O.net, u)) O.offline_checks_failed++;
    O.deliver_t[O.n_deliver] = now;
    O.arrive_t[O.n_deliver] = (rc_time)b; /* tests put the send time in the body */
    O.labels[O.n_deliver++] = online;
}
static void h_online(void *c, uint32_t u, bool on, rc_time now) { (void)c, (void)u, (void)on, (void)now; }
static void h_arrived(void *c, uint32_t u, uint32_t b, rc_time emitted, rc_time now)
{
    (void)c, (void)u, (void)b;
    O.net_s[O.n_net++] = (double)(now - emitted) / 1e6;
}

static void obs_reset(size_t cap)
{
    free(O.net_s), free(O.sent_t), free(O.deliver_t), free(O.arrive_t), free(O.labels);
    memset(&O, 0, sizeof O);
    O.net_s = calloc(cap, sizeof(double));
    O.sent_t = calloc(cap, sizeof(rc_time));
    O.deliver_t = calloc(cap, sizeof(rc_time));
    O.arrive_t = calloc(cap, sizeof(rc_time));
    O.labels = calloc(cap, sizeof(bool));
}

/* A net of the job (resolved here) in population model `model` (1: as a
 * job outside population mode; 2: aggregate cover; 3: and direct pulls; 4:
 * direct pulls handed over in the order they arrived),
 * which a job outside population mode never asks for. */
static rc_net *make_model(rc_sim *sim, rc_job *job, const rc_trace *tr, double seconds,
                          int model, rc_net_hooks h)
{
    rc_job_resolve(job);
    rc_sim_init(sim, (rc_time)(seconds * 1e6));
    rc_net_cfg cfg;
    rc_job_net_cfg(job, &cfg);
    cr_assert(!cfg.aggregate_cover && !cfg.direct_pull && !cfg.direct_arrival_order,
              "models 2 to 4 are for populations only");
    cfg.aggregate_cover = model >= 2;
    cfg.direct_pull = model >= 3;
    cfg.direct_arrival_order = model >= 4;
    rc_net *n = rc_net_new(sim, &cfg, tr, 1, NULL, h);
    O.net = n;
    return n;
}

static rc_net *make_with(rc_sim *sim, rc_job *job, const rc_trace *tr, double seconds,
                         bool model2)
{
    rc_net_hooks h = {NULL, h_sent, h_deliver, h_online, h_arrived, NULL, NULL, NULL};
    return make_model(sim, job, tr, seconds, model2 ? 2 : 1, h);
}

static rc_net *make(rc_sim *sim, rc_job *job, const rc_trace *tr, double seconds)
{
    return make_with(sim, job, tr, seconds, false);
}

/* Kolmogorov-Smirnov distance of x[0..m) (sorted here) from Gamma(shape, scale);
 * shape 1 is the exponential law. */
static double ks_gamma(double *x, size_t m, double shape, double scale)
{
    qsort(x, m, sizeof *x, cmp);
    double d = 0;
    for (size_t i = 0; i < m; i++) {
        double F = gsl_cdf_gamma_P(x[i], shape, scale);
        double a = fabs(F - (double)i / m), b = fabs(F - (double)(i + 1) / m);
        if (a > d) d = a;
        if (b > d) d = b;
    }
    return d;
}

/* A single exponential hop: exact model, one mix layer, no ingress delay; the
 * network time of a message is then exactly one per-hop delay.  KS test. */
Test(net, per_hop_delay_is_exponential_with_the_set_mean)
{
    rc_job job;
    rc_job_defaults(&job);
    job.users = 4;
    job.mix_layers = 1;
    job.quirks.ingress_delay = 0;
    job.rate_delay = 3;
    job.seed = 11;
    obs_reset(200000);
    rc_sim sim;
    rc_net *n = make(&sim, &job, NULL, 1e5);
    rc_net_start(n);
    for (int i = 0; i < 20000; i++) rc_net_send(n, 0, 1, 0);
    rc_sim_run(&sim, NULL, NULL, 0);
    cr_assert_gt(O.n_net, 19000, "only %zu messages arrived", O.n_net);
    double *x = O.net_s;
    size_t m = O.n_net;
    double d = ks_gamma(x, m, 1, 1.0 / 3.0);
    /* KS critical value at alpha = 0.001: 1.95 / sqrt(m); allow for the
     * microsecond rounding. */
    cr_assert_lt(d, 1.95 / sqrt((double)m) + 1e-5, "KS distance %g over %zu samples", d, m);
    double mean = gsl_stats_mean(x, 1, m);
    cr_assert(fabs(mean - 1.0 / 3.0) < 5 * (1.0 / 3.0) / sqrt((double)m), "mean %g", mean);
    rc_net_free(n);
    rc_sim_free(&sim);
}

/* Model 2: one client sends `sends` messages through `layers` mix layers (and
 * the ingress provider), at mu = 3; returns the net after the run. */
static rc_net *model2_sender(rc_sim *sim, int layers, uint64_t seed, int sends)
{
    rc_job job;
    rc_job_defaults(&job);
    job.users = 4;
    job.mix_layers = layers;
    job.rate_delay = 3;
    job.seed = seed;
    obs_reset((size_t)sends * 10);
    rc_net *n = make_with(sim, &job, NULL, 1e5, true);
    rc_net_start(n);
    for (int i = 0; i < sends; i++) rc_net_send(n, 0, 1, 0);
    rc_sim_run(sim, NULL, NULL, 0);
    return n;
}

/* The network times observed are Gamma(hops, 1/3) (KS, alpha = 0.001). */
static void assert_gamma_net_times(double hops)
{
    size_t m = O.n_net;
    double d = ks_gamma(O.net_s, m, hops, 1.0 / 3.0);
    cr_assert_lt(d, 1.95 / sqrt((double)m) + 1e-5, "KS distance %g over %zu samples", d, m);
}

/* Population model 2 (rc_net_cfg.aggregate_cover): with p = 1 a packet's four
 * delayed hops (ingress + 3 layers) are one Gamma(4, mu) draw, and the drop and
 * loop firings of the busy client are counted in aggregate: their count must
 * keep its expectation, (lambda_D + lambda_L) / lambda_P per payload slot. */
Test(net, model2_hops_are_gamma_and_covers_keep_their_rate)
{
    rc_sim sim;
    rc_net *n = model2_sender(&sim, 3, 12, 20000);
    cr_assert_gt(O.n_net, 19000, "only %zu messages arrived", O.n_net);
    assert_gamma_net_times(4);
    const rc_net_counters *c = rc_net_counts(n);
    cr_assert_eq(c->bundles, c->payload_slots + c->cover_packets,
                 "p = 1: every firing is a bundle (%llu != %llu + %llu)",
                 (unsigned long long)c->bundles, (unsigned long long)c->payload_slots,
                 (unsigned long long)c->cover_packets);
    /* covers: drop + loop firings over ~10^4 busy seconds (Poisson, sd ~ 140) plus
     * the payload slots that found the queue empty (none while busy) */
    double per_slot = (double)c->cover_packets / (double)c->payload_slots;
    cr_assert(fabs(per_slot - 2.0) < 0.03, "cover per payload slot %g, expected 2", per_slot);
    rc_net_free(n);
    rc_sim_free(&sim);
}

/* Model 2 with more than 16 delayed hops (one log per 16, rc_net__hops_delay):
 * 20 layers and the ingress provider make Gamma(21, mu). */
Test(net, model2_long_paths_are_gamma)
{
    rc_sim sim;
    rc_net *n = model2_sender(&sim, 20, 13, 5000);
    cr_assert_eq(O.n_net, 5000);
    assert_gamma_net_times(21);
    rc_net_free(n);
    rc_sim_free(&sim);
}

/* Population models 3 and 4 (rc_net_cfg.direct_pull) against model 2: they
 * draw nothing of their own, so with the same seed every message must reach
 * the same recipient at the same pull with the same label, and the pulls and
 * what a provider sees of them must count the same.  Model 4 must also hand
 * each pull's messages over in model 2's order, the order they arrived; model
 * 3 hands them over in the order they left, and does differ from model 2
 * there (what model 4 corrects).  With clients going offline and back (a trace,
 * forced-offline windows set before and during the run), where a message's
 * pull finds its recipient offline or back from offline and it falls back to
 * the postbox; with every cover packet simulated (--cover full); and with
 * 5,000 clients, whose pulls go through the calendar and its far ring (a
 * sender's look-ahead files a minute ahead). */
typedef struct dtuple {
    rc_time t;
    uint32_t user, body;
    bool online;
    size_t i; /* the delivery's place in the run */
} dtuple;

static dtuple *D;
static size_t n_D;
static rc_net *D_net;
static rc_time D_stop;
static uint32_t D_forced; /* forced-offline windows set during the run */
static char *write_trace(const char *const *lines, size_t n);

static void d_deliver(void *c, uint32_t u, uint32_t b, bool online, rc_time now)
{
    (void)c;
    cr_assert(rc_net_online(D_net, u), "client %u took a message while offline", u);
    D[n_D] = (dtuple){now, u, b, online, n_D};
    n_D++;
    /* every 13th message sends its recipient offline for 20 s from 5 s on:
     * messages already scheduled for its pulls find it away */
    if (b % 13 == 0 && now + 5000000 < D_stop) {
        rc_net_force_offline(D_net, u, now + 5000000, now + 25000000);
        D_forced++;
    }
}
static void d_sent(void *c, uint32_t u, uint32_t b, rc_time now) { (void)c, (void)u, (void)b, (void)now; }

/* By pull (instant, client), then in the order the pull handed them over */
static int dtuple_cmp(const void *a, const void *b)
{
    const dtuple *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    if (x->user != y->user) return x->user < y->user ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* ... or by body within a pull: what a pull took, whatever the order */
static int dtuple_cmp_body(const void *a, const void *b)
{
    const dtuple *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    if (x->user != y->user) return x->user < y->user ? -1 : 1;
    return (x->body > y->body) - (x->body < y->body);
}

typedef struct drun {
    dtuple *d;
    size_t n;
    uint64_t pulls, backlog;
    uint32_t forced;
    rc_net_traffic tr;
} drun;

static drun direct_run(uint32_t users, uint32_t per_user, const rc_trace *tr, bool cover_full,
                       int model)
{
    rc_job job;
    rc_job_defaults(&job);
    job.users = (int)users;
    job.cover = cover_full ? RC_COVER_FULL : RC_COVER_SKIP;
    job.quirks.trace16 = 1;
    job.seed = 21;
    D = calloc((size_t)users * per_user, sizeof *D);
    n_D = 0;
    D_forced = 0;
    rc_sim sim;
    rc_net_hooks h = {NULL, d_sent, d_deliver, h_online, NULL, NULL, NULL, NULL};
    rc_net *n = make_model(&sim, &job, tr, 400, model, h);
    D_net = n;
    D_stop = sim.stop;
    rc_net_start(n);
    rc_net_force_offline(n, 2, 40000000, 70000000);
    uint32_t body = 0;
    for (uint32_t u = 0; u < users; u++)
        for (uint32_t j = 0; j < per_user; j++)
            rc_net_send(n, u, (u * 7 + j * 13 + 1) % users, body++);
    rc_sim_run(&sim, NULL, NULL, 0);
    drun r = {.d = D, .n = n_D, .pulls = rc_net_counts(n)->pulls, .backlog = rc_net_backlog(n),
              .forced = D_forced};
    rc_net_traffic_summary(n, &r.tr);
    rc_net_check_conservation(n);
    qsort(r.d, r.n, sizeof *r.d, dtuple_cmp);
    rc_net_free(n);
    rc_sim_free(&sim);
    return r;
}

/* Model `model` (3 or 4) against model 2. */
static void direct_matches_model2(uint32_t users, uint32_t per_user, const rc_trace *tr,
                                  bool cover_full, int model)
{
    drun a = direct_run(users, per_user, tr, cover_full, 2),
         b = direct_run(users, per_user, tr, cover_full, model);
    cr_assert_gt(a.n, users * per_user / 2, "%zu of %u messages taken", a.n, users * per_user);
    cr_assert_gt(a.forced, 5, "%u forced-offline windows", a.forced);
    cr_assert_eq(a.n, b.n, "model 2 took %zu messages, model %d %zu", a.n, model, b.n);
    /* model 4: the same messages in the same order within each pull; model
     * 3: the same messages in another order within some pulls */
    size_t reordered = 0;
    for (size_t i = 0; i < a.n; i++) reordered += a.d[i].body != b.d[i].body;
    if (model >= 4) {
        cr_assert_eq(reordered, 0, "model 4 handed %zu messages over in another place of their "
                                   "pull than model 2", reordered);
    } else {
        cr_assert_gt(reordered, 10, "model 3 reordered only %zu messages within their pulls",
                     reordered);
        qsort(a.d, a.n, sizeof *a.d, dtuple_cmp_body);
        qsort(b.d, b.n, sizeof *b.d, dtuple_cmp_body);
    }
    size_t offline = 0;
    for (size_t i = 0; i < a.n; i++) {
        cr_assert(a.d[i].t == b.d[i].t && a.d[i].user == b.d[i].user &&
                      a.d[i].body == b.d[i].body && a.d[i].online == b.d[i].online,
                  "delivery %zu: model 2 body %u to %u at %lld (%s), model %d body %u to %u at "
                  "%lld (%s)", i, a.d[i].body, a.d[i].user, (long long)a.d[i].t,
                  a.d[i].online ? "online" : "offline", model, b.d[i].body, b.d[i].user,
                  (long long)b.d[i].t, b.d[i].online ? "online" : "offline");
        offline += !a.d[i].online;
    }
    if (tr != NULL) cr_assert_gt(offline, 10, "only %zu messages arrived while offline", offline);
    cr_assert_eq(a.pulls, b.pulls, "pulls: %llu against %llu", (unsigned long long)a.pulls,
                 (unsigned long long)b.pulls);
    cr_assert_eq(a.backlog, b.backlog);
    if (tr != NULL) cr_assert_gt(a.backlog, 0, "nothing still in flight at the end");
    cr_assert_eq(a.tr.unobs_pulls_nonempty, b.tr.unobs_pulls_nonempty);
    cr_assert_eq(a.tr.unobs_real_per_pull_max, b.tr.unobs_real_per_pull_max);
    cr_assert_eq(a.tr.unobs_real_per_pull_mean, b.tr.unobs_real_per_pull_mean);
    cr_assert_gt(a.tr.unobs_real_per_pull_max, 1, "no pull took two messages");
    free(a.d);
    free(b.d);
}

static void direct_models_match_model2(int model)
{
    /* 16 clients, each online and offline in turns of its own length */
    enum { U = 16, L = 400 };
    char *lines[U];
    for (size_t u = 0; u < U; u++) {
        lines[u] = malloc(L + 1);
        size_t on = 20 + 7 * u, off = 5 + 3 * u;
        for (size_t i = 0; i < L; i++) lines[u][i] = i % (on + off) < on ? '1' : '0';
        lines[u][L] = '\0';
    }
    char *path = write_trace((const char *const *)lines, U);
    rc_err err = {0};
    rc_trace *tr = rc_trace_load(path, U, &err);
    cr_assert_not_null(tr, "%s", err.msg);
    direct_matches_model2(U, 900, tr, false, model);
    /* every cover packet simulated (model 2 is model 1 there) */
    direct_matches_model2(U, 300, tr, true, model);
    direct_matches_model2(5000, 60, NULL, false, model);
    rc_trace_free(tr);
    unlink(path);
    for (size_t u = 0; u < U; u++) free(lines[u]);
}

Test(net, model3_takes_every_message_at_model2s_pull) { direct_models_match_model2(3); }

Test(net, model4_takes_every_message_at_model2s_pull_in_its_order)
{
    direct_models_match_model2(4);
}

/* Paper model: 5 hand-off ticks plus four lifted delays, ~1.40 s (docs/spec.md §1.6). */
Test(net, paper_network_time_matches_the_lattice_formula)
{
    rc_job job;
    rc_job_defaults(&job);
    job.users = 4;
    job.model = RC_MODEL_PAPER;
    job.seed = 5;
    obs_reset(100000);
    rc_sim sim;
    rc_net *n = make(&sim, &job, NULL, 2e4);
    rc_net_start(n);
    for (int i = 0; i < 20000; i++) rc_net_send(n, 0, 1, 0);
    rc_sim_run(&sim, NULL, NULL, 0);
    double mean = gsl_stats_mean(O.net_s, 1, O.n_net);
    /* E[ceil(floor(1000 X)/10)*10] ms for X ~ Exp(3), per hop, by summation. */
    double hop = 0;
    for (int ms = 0; ms < 20000; ms++) {
        double pms = exp(-3.0 * ms / 1000.0) - exp(-3.0 * (ms + 1) / 1000.0);
        hop += pms * ceil(ms / 10.0) * 10.0;
    }
    double want = (5 * 10.0 + 4 * hop) / 1000.0;
    double sd = sqrt(4.0) * (1.0 / 3.0) / sqrt((double)O.n_net);
    cr_assert(fabs(mean - want) < 5 * sd, "mean network time %g s, want %g +- %g", mean, want,
              5 * sd);
    for (size_t i = 0; i < O.n_net; i++) {
        double t_ms = O.net_s[i] * 1000;
        cr_assert(fabs(t_ms / 10 - round(t_ms / 10)) < 1e-6, "not on the 10 ms lattice: %g", t_ms);
        cr_assert(t_ms >= 50 - 1e-9, "faster than 5 hand-offs: %g ms", t_ms);
    }
    rc_net_free(n);
    rc_sim_free(&sim);
}

/* A client with a full queue sends at its payload rate: lambda_P in the exact
 * model, (1 - exp(-lambda dt))/dt on the lattice (docs/spec.md §1.4). */
static void check_rate(rc_model model, double want)
{
    rc_job job;
    rc_job_defaults(&job);
    job.users = 4;
    job.model = model;
    job.seed = 3;
    double T = 5000;
    obs_reset(40000);
    rc_sim sim;
    rc_net *n = make(&sim, &job, NULL, T);
    rc_net_start(n);
    for (int i = 0; i < 30000; i++) rc_net_send(n, 0, 1, 0);
    rc_sim_run(&sim, NULL, NULL, 0);
    double rate = (double)O.n_sent / T, sd = sqrt(want * T) / T;
    cr_assert(fabs(rate - want) < 5 * sd, "payload rate %g/s, want %g +- %g", rate, want, 5 * sd);
    rc_net_free(n);
    rc_sim_free(&sim);
}

Test(net, payload_slots_have_the_configured_rate)
{
    check_rate(RC_MODEL_EXACT, 2.0);
    check_rate(RC_MODEL_PAPER, (1 - exp(-2.0 * 0.01)) / 0.01);
}

static char *write_trace(const char *const *lines, size_t n)
{
    static char path[256];
    snprintf(path, sizeof path, "/tmp/rcsim-test-trace-%d.txt.gz", (int)getpid());
    rc_err err = {0};
    cr_assert_eq(rc_trace_write(path, lines, n, &err), 0, "%s", err.msg);
    return path;
}

static char *pattern(size_t len, size_t on_from, size_t on_to)
{
    char *s = malloc(len + 1);
    for (size_t i = 0; i < len; i++) s[i] = (i >= on_from && i < on_to) ? '1' : '0';
    s[len] = '\0';
    return s;
}

/* Four trace lines of 600 s: user `gapped` is offline during [100, 300) s,
 * the others always online.  Written to a temporary file and loaded. */
static rc_trace *gap_trace(size_t gapped, char **path_out)
{
    size_t L = 600;
    char *on = pattern(L, 0, L), *gap = malloc(L + 1);
    for (size_t i = 0; i < L; i++) gap[i] = (i < 100 || i >= 300) ? '1' : '0';
    gap[L] = '\0';
    const char *lines[4];
    for (size_t u = 0; u < 4; u++) lines[u] = u == gapped ? gap : on;
    *path_out = write_trace(lines, 4);
    rc_err err = {0};
    rc_trace *tr = rc_trace_load(*path_out, 4, &err);
    cr_assert_not_null(tr, "%s", err.msg);
    free(on);
    free(gap);
    return tr;
}

/* Four users, trace line i for user i. */
static void gap_job(rc_job *job, rc_model model, uint64_t seed)
{
    rc_job_defaults(job);
    job->users = 4;
    job->model = model;
    job->quirks.trace16 = 1; /* lines by user index */
    job->seed = seed;
}

/* Pulls happen every second of online time and never offline; a message to
 * an offline user waits at its provider (docs/spec.md §1.4, §1.7). */
static void pulls_case(rc_model model)
{
    /* user 1 online [0,100) s, offline [100,300) s, online [300,600) s */
    char *path;
    rc_trace *tr = gap_trace(1, &path);
    rc_job job;
    gap_job(&job, model, 2);
    obs_reset(100000);
    rc_sim sim;
    rc_net *n = make(&sim, &job, tr, 590);
    rc_net_start(n);
    /* user 0 sends to user 1 continuously from t=0; the body is unused here */
    for (int i = 0; i < 1000; i++) rc_net_send(n, 0, 1, 0);
    rc_sim_run(&sim, NULL, NULL, 0);
    cr_assert_eq(O.offline_checks_failed, 0, "%u deliveries while offline",
                 O.offline_checks_failed);
    cr_assert_gt(O.n_deliver, 500);
    bool saw_after_gap = false;
    for (size_t i = 0; i < O.n_deliver; i++) {
        double t = (double)O.deliver_t[i] / 1e6;
        cr_assert(t < 100 || t >= 300, "delivery at %g s while user 1 was offline", t);
        if (model == RC_MODEL_PAPER) {
            /* Paper: pulls at whole seconds of online time; the 200 s gap
             * shifts nothing because it is a whole number of seconds. */
            cr_assert(fabs(t - round(t)) < 1e-9, "paper pull off the 1 s grid: %g", t);
        }
        if (t >= 300 && !saw_after_gap) {
            saw_after_gap = true;
            cr_assert(t <= 301.0 + 1e-9, "first pull after the gap at %g s", t);
        }
    }
    cr_assert(saw_after_gap, "messages sent during the gap were never delivered");
    /* consecutive pulls while online are one period apart or more */
    size_t distinct = 0;
    rc_time prev = -1;
    for (size_t i = 0; i < O.n_deliver; i++) {
        if (O.deliver_t[i] == prev) continue;
        if (prev >= 0 && !(prev < 100000000 && O.deliver_t[i] >= 300000000))
            cr_assert_geq(O.deliver_t[i] - prev, 1000000, "pulls %lld and %lld closer than 1 s",
                          (long long)prev, (long long)O.deliver_t[i]);
        prev = O.deliver_t[i];
        distinct++;
    }
    cr_assert_gt(distinct, 200, "only %zu distinct pulls delivered something", distinct);
    rc_net_free(n);
    rc_sim_free(&sim);
    rc_trace_free(tr);
    unlink(path);
}

Test(net, pulls_every_second_only_while_online_paper) { pulls_case(RC_MODEL_PAPER); }
Test(net, pulls_every_second_only_while_online_exact) { pulls_case(RC_MODEL_EXACT); }

/* Bundles of p: a user with split 2 emits [m1 m2], [m3 m4], ... one bundle
 * per tick at most (docs/spec.md §9.4). */
Test(net, split_two_emits_pairs)
{
    rc_job job;
    rc_job_defaults(&job);
    job.users = 4;
    job.model = RC_MODEL_PAPER;
    job.rate_drop = 0;
    job.rate_loop = 0;
    job.rate_payload = 1000; /* fires every tick */
    job.seed = 1;
    rc_job_resolve(&job);
    obs_reset(1000);
    rc_sim sim;
    rc_sim_init(&sim, 100000);
    rc_net_hooks h = {NULL, h_sent, h_deliver, h_online, h_arrived, NULL, NULL, NULL};
    rc_net_cfg cfg;
    rc_job_net_cfg(&job, &cfg);
    rc_net *n = rc_net_new(&sim, &cfg, NULL, 2, NULL, h);
    O.net = n;
    rc_net_start(n);
    for (int i = 0; i < 6; i++) rc_net_send(n, 0, 1, (uint32_t)i);
    rc_sim_run(&sim, NULL, NULL, 0);
    /* Sent after the user's turn at t=0, the first bundle may be [cover, m1];
     * after that the messages pair up in order, one bundle per tick. */
    cr_assert_eq(O.n_sent, 6);
    size_t bundles = 1, in_bundle = 1;
    for (size_t i = 1; i < O.n_sent; i++) {
        cr_assert_geq(O.sent_t[i], O.sent_t[i - 1], "out of order");
        if (O.sent_t[i] == O.sent_t[i - 1]) {
            in_bundle++;
            cr_assert_leq(in_bundle, 2, "more than p sub-messages in a bundle");
        } else {
            cr_assert_geq(O.sent_t[i] - O.sent_t[i - 1], 10000, "two bundles in one tick");
            bundles++;
            in_bundle = 1;
        }
    }
    cr_assert(bundles == 3 || bundles == 4, "%zu bundles for 6 messages at p=2", bundles);
    rc_net_free(n);
    rc_sim_free(&sim);
}

/* A busy sender that goes offline sends nothing until it is back, whatever
 * is queued (regression: the look-ahead through a long queue once ignored
 * the trace).  Sender: online [0,100) s, offline [100,300), online after. */
static void sender_offline_case(rc_model model)
{
    char *path;
    rc_trace *tr = gap_trace(0, &path);
    rc_job job;
    gap_job(&job, model, 8);
    obs_reset(100000);
    rc_sim sim;
    rc_net *n = make(&sim, &job, tr, 590);
    rc_net_start(n);
    for (int i = 0; i < 1000; i++) rc_net_send(n, 0, 1, 0); /* ~500 s of queue at 2/s */
    rc_sim_run(&sim, NULL, NULL, 0);
    size_t before = 0, after = 0;
    for (size_t i = 0; i < O.n_sent; i++) {
        double t = (double)O.sent_t[i] / 1e6;
        cr_assert(t < 100 || t >= 300, "sent at %.3f s while the sender was offline", t);
        before += t < 100;
        after += t >= 300;
    }
    cr_assert_gt(before, 150, "only %zu sent before the gap", before);
    cr_assert_gt(after, 400, "only %zu sent after the gap", after);
    rc_net_free(n);
    rc_sim_free(&sim);
    rc_trace_free(tr);
    unlink(path);
}

Test(net, busy_sender_sends_nothing_while_offline_paper) { sender_offline_case(RC_MODEL_PAPER); }
Test(net, busy_sender_sends_nothing_while_offline_exact) { sender_offline_case(RC_MODEL_EXACT); }
