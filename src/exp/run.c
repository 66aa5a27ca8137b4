#include "exp/run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "anon/anonymity.h"
#include "anon/disclosure.h"
#include "core/build.h"
#include "core/log.h"
#include "core/sim.h"
#include "loopix/linkmap.h"
#include "loopix/net.h"
#include "multicast/mc.h"
#include "multicast/strategy_table.h"
#include "trace/avail.h"
#include "workload/app.h"
#include "trace/trace_id.h"

typedef struct progress_ctx {
    rc_run_progress_fn fn;
    void *ctx;
} progress_ctx;

static void progress_hook(void *c, double f)
{
    progress_ctx *p = c;
    p->fn(p->ctx, f);
}

/* anon_group (docs/spec.md §10.2): the tracked messages are one group's. */
typedef struct anon_group_ctx {
    const rc_mc *mc;
    uint32_t group;
} anon_group_ctx;

static bool anon_group_candidate(void *ctx, uint32_t body)
{
    const anon_group_ctx *c = ctx;
    return rc_mc_body_group(c->mc, body) == c->group;
}

/* The group anon_group names (validated by rc_job_validate). */
static uint32_t anon_group_pick(const rc_mc *mc, rc_anon_group_kind kind, uint32_t value)
{
    if (kind == RC_ANON_GROUP_INDEX) return value;
    uint32_t best = 0, n = rc_mc_groups(mc);
    for (uint32_t g = 1; g < n; g++) {
        int64_t s = rc_mc_group_size(mc, g), b = rc_mc_group_size(mc, best);
        bool better = kind == RC_ANON_GROUP_LARGEST
                          ? s > b
                          : llabs(s - (int64_t)value) < llabs(b - (int64_t)value);
        if (better) best = g;
    }
    return best;
}

/* disclosure (docs/spec.md §11): the multicast layer's tap feeds the
 * long-term observer what the adversary sees, and the target group's truth. */
typedef struct disc_ctx {
    rc_disc *d;
    const rc_mc *mc;
    uint32_t group;
    bool link; /* senders are linkable (not provider fan-out's provider-made copies) */
} disc_ctx;

static void disc_online(void *ctx, uint32_t user, bool online, rc_time now)
{
    rc_disc_online(((disc_ctx *)ctx)->d, user, online, now);
}

static void disc_arrived(void *ctx, uint32_t user, uint32_t body, rc_time emitted, rc_time now)
{
    /* The adversary cannot tell one real message from another; the body
     * names its sender, which the observer uses only where the corrupted
     * mixes link the path (anon/disclosure.h). */
    disc_ctx *c = ctx;
    uint32_t from = c->link ? rc_mc_body_sender(c->mc, body) : RC_DISC_UNLINKED;
    rc_disc_arrived(c->d, user, now, from, emitted);
}

static void disc_relay(void *ctx, uint32_t user, uint32_t body, rc_time now)
{
    disc_ctx *c = ctx;
    if (rc_mc_body_group(c->mc, body) == c->group) rc_disc_relay(c->d, user, now);
}

static void disc_multicast(void *ctx, uint32_t group, uint32_t source, rc_time now)
{
    disc_ctx *c = ctx;
    if (group == c->group) rc_disc_multicast(c->d, source, now);
}

static rc_disc *disc_new(const rc_job *job, rc_mc *mc, disc_ctx *c)
{
    rc_net *net = rc_mc_net(mc);
    uint32_t users = rc_net_users(net), upp = (uint32_t)job->users_per_provider;
    uint32_t *prov = rc_xmalloc((users ? users : 1) * sizeof *prov);
    for (uint32_t u = 0; u < users; u++) prov[u] = u / upp; /* loopix/net.c's greedy filling */
    rc_disc_cfg cfg = {job->seed, users, rc_net_providers(net), prov, job->corrupt_providers,
                       (rc_time)llround(job->disclosure_window_s * 1e6), job->corrupt_mixes,
                       rc_net_mix_layers(net), rc_net_mixes_per_layer(net),
                       rc_net_provider_mixes(net)};
    rc_disc *d = rc_disc_new(&cfg);
    free(prov);
    rc_anon_group_kind gk;
    uint32_t gv;
    rc_job_anon_group(job->disclosure_group, &gk, &gv, NULL);
    /* Copies a provider makes (provider fan-out's, by its family's own cost
     * terms) leave the source's provider, not a client: a link through the
     * mixes names the provider, so none is used. */
    rc_strategy_spec spec;
    rc_strategy_cost cost = {0};
    if (rc_strategy_parse(job->strategy, &spec, NULL) == 0) rc_strategy_cost_of(&spec, &cost);
    *c = (disc_ctx){d, mc, anon_group_pick(mc, gk, gv), !(cost.provider_copies_per_recipient > 0)};
    const uint32_t *mem = rc_mc_group_members(mc, c->group);
    for (uint32_t i = 0; i < rc_mc_group_size(mc, c->group); i++) rc_disc_member(d, mem[i]);
    rc_mc_tap tap = {c, disc_online, disc_arrived, disc_relay, disc_multicast};
    rc_mc_set_tap(mc, &tap);
    return d;
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The job itself; rc_run_job sets and restores the checks around it, so that
 * no return path can leave them on for the next job of a chunk. */
static int run_resolved(rc_job job, bool anon_ahead, bool *anon_missed, rc_result *out,
                        rc_run_progress_fn progress, void *ctx, rc_err *err)
{
    int rc = 0;

    const rc_trace *trace = NULL; /* owned by the trace cache (trace/trace_id.h) */
    if (strcmp(job.trace, "online") != 0) {
        rc_trace_id id;
        trace = rc_trace_id_get(job.trace, job.data_dir, rc_job_trace_lines_needed(&job), &id,
                                err);
        if (trace == NULL) return err && err->code ? err->code : RC_EXIT_USAGE;
        /* A bound job (a sweep's) runs only on the content it was bound to; an
         * unbound one (a caller that did not bind) is bound now, so the result's
         * job id always names the content. */
        if (job.trace_sha256[0] != '\0') rc = rc_job_check_trace(&job, &id, err);
        else rc_job_bind_trace(&job, &id);
        if (rc) return rc;
    }

    double t0 = wall_now();
    rc_sim sim;
    rc_sim_init(&sim, (rc_time)llround(job.duration_s * 1e6));
    rc_net_cfg net_cfg;
    rc_mc_cfg mc_cfg;
    rc_job_net_cfg(&job, &net_cfg);
    rc_job_mc_cfg(&job, &mc_cfg);
    rc_linkmap *links = NULL; /* the link latency file, while the net lives */
    if (job.link_latency_file[0] != '\0') {
        links = rc_linkmap_load(job.link_latency_file, err);
        if (links == NULL) {
            rc_sim_free(&sim);
            return err && err->code ? err->code : RC_EXIT_USAGE;
        }
        net_cfg.link_map = links;
    }
    rc_mc *mc = rc_mc_new(&sim, &mc_cfg, &net_cfg, trace, err);
    if (mc == NULL) {
        rc_linkmap_free(links);
        rc_sim_free(&sim);
        return err && err->code ? err->code : RC_EXIT_USAGE;
    }
    rc_anon *anon = NULL;
    anon_group_ctx agc = {mc, 0};
    if (job.anonymity) {
        rc_anon_cfg acfg = {job.seed, job.corrupt_mixes, job.corrupt_providers,
                            (uint32_t)job.anon_targets, job.anon_trace,
                            (rc_anon_sender)job.anon_sender, NULL, NULL, !anon_ahead};
        rc_anon_group_kind gk;
        uint32_t gv;
        if (rc_job_anon_group(job.anon_group, &gk, &gv, NULL) == 0 && gk != RC_ANON_GROUP_ALL) {
            agc.group = anon_group_pick(mc, gk, gv);
            acfg.candidate = anon_group_candidate;
            acfg.candidate_ctx = &agc;
        }
        anon = rc_anon_new(&sim, rc_mc_net(mc), &acfg, err);
        if (anon == NULL) {
            rc_mc_free(mc);
            rc_linkmap_free(links);
            rc_sim_free(&sim);
            return err && err->code ? err->code : RC_EXIT_USAGE;
        }
    }
    disc_ctx dc;
    rc_disc *disc = job.disclosure ? disc_new(&job, mc, &dc) : NULL;
    rc_app_cfg app_cfg;
    rc_job_app_cfg(&job, &app_cfg);
    rc_app *app = rc_app_new(&sim, mc, &app_cfg);
    rc_mc_start(mc);
    rc_app_start(app);
    if (disc != NULL) {
        uint32_t users = rc_mc_users(mc);
        bool *on = rc_xmalloc((users ? users : 1) * sizeof *on);
        for (uint32_t u = 0; u < users; u++) on[u] = rc_mc_online(mc, u);
        rc_disc_start(disc, on);
        free(on);
    }
    progress_ctx pc = {progress, ctx};
    rc_sim_run(&sim, progress ? progress_hook : NULL, &pc, (rc_time)3600 * 1000000);

    rc_result_init(out);
    out->job_id = rc_job_id(&job);
    /* The build that ran the job travels with its result (journal, HDF5). */
    snprintf(out->build_id, sizeof out->build_id, "%s", rc_build()->id);
    snprintf(out->build_revision, sizeof out->build_revision, "%s", rc_build()->revision);
    rc_result_gather(out, mc, job.store_raw);
    if (anon != NULL) {
        rc = rc_anon_finish(anon, err);
        *anon_missed = rc_anon_sample_missed(anon);
        rc_anon_summary as;
        rc_anon_summarize(anon, &as);
        out->c.anon_targets = as.targets;
        out->c.anon_corrupt_mixes = as.corrupt_mixes;
        out->c.anon_corrupt_providers = as.corrupt_providers;
        out->c.anon_entropy_mean_bits = as.entropy_mean_bits;
        out->c.anon_entropy_median_bits = as.entropy_median_bits;
        out->c.anon_entropy_p5_bits = as.entropy_p5_bits;
        out->c.anon_min_entropy_mean_bits = as.min_entropy_mean_bits;
        out->c.anon_sender_entropy_mean_bits = as.sender_entropy_mean_bits;
        out->c.anon_eps_mean = as.eps_mean;
        out->c.anon_eps_p95 = as.eps_p95;
        out->c.anon_delta = as.delta;
        size_t nr;
        const rc_anon_record *rec = rc_anon_records(anon, &nr);
        if (job.store_raw && nr > 0) {
            out->anon_records = rc_xmalloc(nr * sizeof *rec);
            memcpy(out->anon_records, rec, nr * sizeof *rec);
            out->n_anon_records = nr;
        }
        rc_anon_free(anon);
    }
    if (disc != NULL) {
        rc_disc_summary ds;
        rc_disc_finish(disc, sim.stop, &ds);
        size_t np;
        const rc_disc_point *pt = rc_disc_curve(disc, &np);
        if (job.store_raw && np > 0) {
            out->disc_curve = rc_xmalloc(np * sizeof *pt);
            memcpy(out->disc_curve, pt, np * sizeof *pt);
            out->n_disc_curve = np;
        }
        out->c.disclosure_multicasts = ds.multicasts;
        out->c.disclosure_corrupt_providers = ds.corrupt_providers;
        out->c.disclosure_membership_auc = ds.membership_auc;
        out->c.disclosure_membership_precision = ds.membership_precision;
        out->c.disclosure_membership_recall = ds.membership_recall;
        out->c.disclosure_multicasts_to_90 = ds.multicasts_to_90;
        out->c.disclosure_source_top1 = ds.source_top1;
        out->c.disclosure_source_entropy_bits = ds.source_entropy_bits;
        rc_disc_free(disc);
    }
    out->c.events = sim.events;
    out->c.sim_s = job.duration_s;
    out->c.bw_bytes_per_client_s = (out->c.bw_payload_pps + out->c.bw_cover_pps) * job.packet_size;
    out->c.wall_s = wall_now() - t0;
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0) out->c.peak_rss_kb = (uint64_t)ru.ru_maxrss;

    rc_app_free(app);
    rc_mc_free(mc);
    rc_linkmap_free(links);
    rc_sim_free(&sim);
    if (rc) rc_result_free(out);
    return rc;
}

/* Jobs run again after the anonymity sample's look-ahead missed (rc_run_anon_reruns). */
static uint64_t anon_reruns;

uint64_t rc_run_anon_reruns(void) { return anon_reruns; }

int rc_run_job(const rc_job *job_in, rc_result *out, rc_run_progress_fn progress, void *ctx,
               rc_err *err)
{
    rc_job job = *job_in;
    rc_job_resolve(&job);
    int rc = rc_job_validate(&job, err);
    if (rc) return rc;
    /* Exactly this job's setting while it runs (a job with check=false
     * after one with check=true in the same process runs unchecked), and
     * the caller's setting again afterwards, on every path. */
    bool saved_check = rc_check_enabled;
    if (job.check) rc_check_enabled = true;
    bool missed = false;
    rc = run_resolved(job, true, &missed, out, progress, ctx, err);
    if (rc == 0 && missed) {
        /* The anonymity sample's look-ahead assumed more candidates than the
         * window brought and left out a message the sample measures
         * (docs/spec.md §10.2): the same job again, following every message
         * the sample holds, gives the full sample. */
        fprintf(stderr,
                "rcsim: anonymity: the window brought fewer messages than the sample's "
                "look-ahead assumed; running job %016llx again without it\n",
                (unsigned long long)out->job_id);
        rc_result_free(out);
        anon_reruns++;
        rc = run_resolved(job, false, &missed, out, progress, ctx, err);
    }
    rc_check_enabled = saved_check;
    return rc;
}

void rc_run_warm(const rc_job *jobs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(jobs[i].trace, "online")) continue;
        rc_job job = jobs[i];
        rc_job_resolve(&job);
        rc_trace_id id;
        rc_trace_id_get(job.trace, job.data_dir, 0, &id, NULL);
    }
}
