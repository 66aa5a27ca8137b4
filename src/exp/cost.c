/* The cost model: a relative estimate of what a job costs to run (exp/cost.h). */
#include "exp/cost.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "anon/anonymity.h"
#include "exp/param.h"
#include "multicast/population.h"
#include "multicast/strategy_table.h"

double rc_job_cost_estimate(const rc_job *in)
{
    /* Calibration (log least squares, bench/fit_cost.py) to the 2,289 jobs of
     * the paper figure set (24 h, --model paper, every seed), run with
     * `scripts/reproduce.sh --np 3` on 2 idle cores of this machine; per-job
     * wall time from the results file.  Fitted on 2026-12-04 (main fa60545),
     * then SEC_PER_COPY and SEC_PER_TIMEOUT scaled by 1/1.30 after the job
     * processes began to keep their freed memory (main 8ff5dc9, the set's jobs
     * 23 % faster): estimate / measured has median 1.09, 10-90 % range
     * 0.70-1.49, and the set's total is within 1 %.
     *  - SEC_PER_COPY: the whole cost of one sub-message copy (its send,
     *    bundle, delivery and its share of the sender's stream firings);
     *    each strategy family states its copies per recipient and per
     *    multicast (multicast/strategy_table.h, rc_strategy_cost): gs - 1 per
     *    multicast for unicast, twice that with Rollercoaster's ACKs;
     *    provider-injected copies are costed as client ones (not fitted);
     *  - SEC_PER_TIMEOUT: per timeout armed (RC-FT: one per member and multicast);
     *  - large p costs more per copy (bundling work): x(1 + (p/12)^3.4);
     *  - a saturated network (utilisation rho near 1, docs/spec.md §6 Fig. 8)
     *    keeps long queues: x(1 + 1.2 rho^2);
     *  - a trace costs about what the same job online costs (fit: x1.04, not
     *    used); loading it is done once per process (trace cache), SEC_PER_TRACE;
     *  - --cover full routes every cover packet: SEC_PER_COVER_HOP per packet
     *    hop and sub-message slot (a bundle of p splits into p packets at the
     *    last layer, each delivered and pulled: the cost is linear in p, 1.2 CPU
     *    s an hour at 128 users for p = 1, 2.65 for 2, 5.1 for 4, 9.6 for 8),
     *    times (users / 128)^0.09 (larger tables, fewer cache hits: 0.090 us
     *    at 128 users, 0.10 at 10^3, 0.12-0.14 at 10^4, 0.16 at 10^5).  Fitted
     *    on 2026-12-07 (main c81abfa) to 18 --cover full jobs of 128 users to
     *    10^5 (docs/performance.md, "fourteenth round"); the constant before
     *    (0.4 us a hop, never fitted) overestimated them 1.4-4.4x.
     *  - --anonymity on (docs/spec.md §10, docs/performance.md "fourteenth
     *    round"): the observer mirrors every link, OBS_PER_HOP times a hop's
     *    cost at one slot; and each tracked message costs SEC_PER_TRACKED plus
     *    TRACKED_SPAN_S times a second of the network's hops at one slot each
     *    (its probabilities follow it through every departure of the pools it
     *    is in, and its sender sweep reads every pool event of about a warm-up
     *    back).  Fitted on the same day to population jobs (zipf:1.5:3:200,
     *    RC-FT, 1 min) of 10^4 and 10^5 users tracking 1 to 1,000 messages:
     *    the observer alone was 1.23-1.25x the --cover full job, a tracked
     *    message 22 ms at 10^4 users and 259 ms at 10^5; SEC_PER_TRACKED from
     *    smaller jobs (about 1 ms a message at 128 users).  Tracked messages:
     *    anon_targets, or the candidates the window [W, T - W) brings if fewer
     *    (the real copies, of the target group's size with anon_group).  On 13
     *    other observed jobs of 128 to 5 x 10^4 users, estimate / measured
     *    0.44-1.54 (median 0.83): one group's tracked count varies with the
     *    seed (7 to 501 at 10^4 users).
     * Checked on the exact model before the rescale (Figs 5, 8, 9, 16 with
     * --model exact, 6 h, seed 1; 114 jobs, one core shared): median ratio
     * 1.35, 10-90 % 0.73-1.75, but saturated exact-model jobs (Fig 8,
     * b >= 16) run up to 5x longer than estimated.  Population mode (groups
     * of the distribution's mean size, not the population's): six 30-min jobs
     * of 2,000-10,000 users (zipf:1.5:3:100, model 3, one seed), CPU seconds
     * measured against estimated on 2026-12-06: unicast 0.10/0.10 and
     * 0.68/0.50, rc-k2-p2 1.58/0.99, but RC-FT 0.63/0.24, 2.16/0.60 and
     * 5.97/1.20 (k3, 2,000 groups): FT's timeouts are underestimated 2.6-5x
     * there (before, groups of the whole population: 250-2,400x over).  The
     * estimate only ranks jobs and sizes runs. */
    static const double SEC_PER_COPY = 0.273e-6;
    static const double SEC_PER_TIMEOUT = 0.1015e-6;
    static const double SEC_PER_JOB = 0.005;
    static const double SEC_PER_TRACE = 0.02;
    static const double SEC_PER_COVER_HOP = 0.090e-6;
    static const double OBS_PER_HOP = 0.48;
    static const double SEC_PER_TRACKED = 1.5e-3;
    static const double TRACKED_SPAN_S = 0.53;

    rc_job job = *in;
    rc_job_resolve(&job);
    rc_strategy_spec s;
    if (rc_strategy_parse(job.strategy, &s, NULL) != 0) rc_strategy_parse("unicast", &s, NULL);
    rc_strategy_cost c;
    rc_strategy_cost_of(&s, &c);
    double m = job.users, gs = rc_job_group_size(&job), g = job.groups;
    if (job.population > 0 && job.group_size_dist[0] != '\0') {
        /* Population mode: groups have the distribution's sizes, not the whole
         * population's (which rc_job_group_size reports when group_size is 0). */
        rc_sizedist d;
        if (rc_sizedist_parse(job.group_size_dist, (uint32_t)job.population, &d, NULL) == 0) {
            gs = rc_sizedist_mean(&d);
            rc_sizedist_free(&d);
        }
    }
    double p = c.p > 0 ? c.p : 1;
    double div = job.lambda_div > 0 ? job.lambda_div : 1;
    bool traced = strcmp(job.trace, "online") != 0;

    double multicasts = g * job.app_rate * job.burst * job.duration_s;
    /* client copies take their senders' payload slots; provider copies do not */
    double client = multicasts * (gs - 1) * c.client_copies_per_recipient;
    if (c.client_copies_per_multicast > 0) client += multicasts * c.client_copies_per_multicast;
    double copies = client;
    if (c.provider_copies_per_recipient > 0)
        copies += multicasts * (gs - 1) * c.provider_copies_per_recipient;
    double work = copies * SEC_PER_COPY;
    if (c.timeouts_per_member > 0)
        work += multicasts * gs * SEC_PER_TIMEOUT * c.timeouts_per_member;

    /* Utilisation: real sub-messages per second against the payload slots of
     * all clients (lambda_P * p / div each), docs/spec.md §6 "Load check". */
    double slots = m * job.rate_payload * p / div;
    double rho = job.duration_s > 0 && slots > 0 ? client / job.duration_s / slots : 0;
    if (rho > 2) rho = 2;
    double load = 1 + 1.2 * rho * rho;
    double wide = 1 + pow(p / 12.0, 3.4);

    double hops = 0, hop_s = 0; /* packet hops routed, and what one costs */
    if (job.cover == RC_COVER_FULL) {
        double packets = m * (job.rate_payload + job.rate_drop + job.rate_loop) / div;
        double mixes = (double)job.mix_layers * rc_job_mixes_per_layer(&job);
        hops = (packets + mixes * job.mix_rate_loop / div) * (job.mix_layers + 2) *
               job.duration_s;
        hop_s = SEC_PER_COVER_HOP * pow(fmax(m, 1) / 128, 0.09);
    }
    double cover = hops * hop_s * p;
    double observer = 0;
    if (job.anonymity && job.duration_s > 0) {
        /* the warm-up and cool-down W (docs/spec.md §10.2) */
        double w = job.rate_delay > 0
                       ? RC_ANON_SETTLE_PATHS * (job.mix_layers + 1) / job.rate_delay
                       : 0;
        double share = job.duration_s > 2 * w ? (job.duration_s - 2 * w) / job.duration_s : 0;
        double candidates = copies * share; /* provider fan-out's copies are tracked too */
        rc_anon_group_kind gk;
        uint32_t gv;
        if (rc_job_anon_group(job.anon_group, &gk, &gv, NULL) == 0 && gk != RC_ANON_GROUP_ALL &&
            g > 0) {
            /* one group's copies: its size against the mean's */
            double size = gk == RC_ANON_GROUP_SIZE ? gv : gs;
            candidates *= gs > 1 ? (size - 1) / (gs - 1) / g : 1 / g;
        }
        double tracked = fmin(job.anon_targets, candidates);
        observer = OBS_PER_HOP * hops * hop_s +
                   tracked * (SEC_PER_TRACKED + TRACKED_SPAN_S * hops * hop_s / job.duration_s);
    }
    return SEC_PER_JOB + (traced ? SEC_PER_TRACE : 0) + work * wide * load + cover + observer;
}
