#include "exp/job.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "anon/anonymity.h"
#include "core/log.h"
#include "exp/param.h"
#include "loopix/linkmap.h"
#include "loopix/net.h"
#include "multicast/adversary.h"
#include "multicast/mc.h"
#include "multicast/population.h"
#include "multicast/strategy_table.h"
#include "trace/trace_id.h"
#include "workload/app.h"

void rc_job_defaults(rc_job *job)
{
    /* Parsed once per process: a sweep expands every job from the defaults,
     * and parsing ~45 default texts costs microseconds per job. */
    static rc_job parsed;
    static bool have;
    if (!have) {
        memset(&parsed, 0, sizeof parsed);
        size_t n;
        const rc_param_def *t = rc_param_table(&n);
        for (size_t i = 0; i < n; i++) {
            int rc = rc_param_set(&parsed, &t[i], t[i].def, NULL);
            (void)rc; /* the defaults are checked by the unit tests */
        }
        have = true;
    }
    *job = parsed;
}

static void resolve_quirk(int *q, bool on)
{
    if (*q == RC_AUTO) *q = on ? 1 : 0;
}

void rc_job_resolve(rc_job *job)
{
    bool paper = job->model == RC_MODEL_PAPER;
    rc_quirks *q = &job->quirks;
    resolve_quirk(&q->lattice, paper);
    resolve_quirk(&q->trace16, paper);
    resolve_quirk(&q->frozen_pull, paper);
    /* Loopix providers mix too (the sender's provider is the first mix of
     * the path), so the exact model keeps the ingress delay; the switch is
     * there to measure what it does. */
    resolve_quirk(&q->ingress_delay, true);
    resolve_quirk(&q->arm_once, paper);
    resolve_quirk(&q->acks_always, paper);
    resolve_quirk(&q->seed0_groups, paper);
    resolve_quirk(&q->nonce0_plain, paper);
    resolve_quirk(&q->nonce_perm, paper);
    if (job->population > 0) {
        /* Population mode: N users; providers scale by themselves (users_per_provider
         * each), mixes by the rule of docs/beyond.md: at least one per RC_USERS_PER_MIX
         * users in every layer.  Both maxima keep resolve idempotent. */
        job->users = job->population;
        if (job->population_model == 0) job->population_model = RC_POPULATION_MODEL;
        int mixes = (job->population + RC_USERS_PER_MIX - 1) / RC_USERS_PER_MIX;
        if (job->mixes_per_layer != RC_MIXES_AUTO && job->mixes_per_layer < mixes)
            job->mixes_per_layer = mixes;
    }
    if (job->group_size == 0) job->group_size = job->users;
    /* The adversary sees every packet on the wire: cover traffic must be routed. */
    /* ... and so must it for nodes that serve or batch (every packet loads them). */
    if (job->cover == RC_COVER_AUTO)
        job->cover = job->anonymity || rc_job_nodes(job) ? RC_COVER_FULL : RC_COVER_SKIP;
}

bool rc_job_nodes(const rc_job *job)
{
    return job->node_service == RC_SERVICE_SERVE || job->mix_kind != RC_MIX_POISSON;
}

int rc_job_group_size(const rc_job *job)
{
    return job->group_size == 0 ? job->users : job->group_size;
}

int rc_job_providers(const rc_job *job)
{
    return (job->users + job->users_per_provider - 1) / job->users_per_provider;
}

/* The width `auto` gives: the Loopix rates and topology of the job, and its
 * strategy's p (1 for a name that does not parse: validation refuses it). */
static int auto_width(const rc_job *job)
{
    rc_net_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.users = job->users;
    cfg.mix_layers = job->mix_layers;
    cfg.rate_payload = job->rate_payload;
    cfg.rate_drop = job->rate_drop;
    cfg.rate_loop = job->rate_loop;
    cfg.mix_rate_loop = job->mix_rate_loop;
    cfg.lambda_div = job->lambda_div;
    rc_strategy_spec s;
    int split = rc_strategy_parse(job->strategy, &s, NULL) == 0 ? rc_strategy_split(&s) : 1;
    const rc_param_def *d = rc_param_find("mixes_per_layer");
    return rc_net_width_for_capacity(&cfg, split, job->mix_capacity, (int)d->max);
}

int rc_job_mixes_per_layer(const rc_job *job)
{
    return job->mixes_per_layer != RC_MIXES_AUTO ? job->mixes_per_layer : auto_width(job);
}

/* Mixes sized with the load (docs/spec.md §1.13): `auto` needs a capacity that some
 * width meets, and a capacity needs `auto` (with a width given it would do nothing). */
static int validate_mixes(const rc_job *job, rc_err *err)
{
    if (job->mixes_per_layer != RC_MIXES_AUTO) {
        if (job->mix_capacity > 0 && job->node_service != RC_SERVICE_SERVE)
            return rc_err_set(err, RC_EXIT_USAGE,
                              "mix_capacity: %g has no effect with mixes_per_layer %d (it sizes "
                              "the layers only with --mixes-per-layer auto)",
                              job->mix_capacity, job->mixes_per_layer);
        return 0;
    }
    if (!(job->mix_capacity > 0))
        return rc_err_set(err, RC_EXIT_USAGE,
                          "mixes_per_layer: auto needs a capacity to size the layers "
                          "(--mix-capacity C, packets per second a mix is planned for, > 0)");
    if (auto_width(job) == 0) {
        double loops = job->mix_layers * job->mix_rate_loop / job->lambda_div;
        if (job->mix_capacity <= loops)
            return rc_err_set(err, RC_EXIT_USAGE,
                              "mix_capacity: %g /s is at most the mixes' own loops (%d layers x "
                              "lambda_M %g /s = %g /s): no number of mixes per layer fits",
                              job->mix_capacity, job->mix_layers,
                              job->mix_rate_loop / job->lambda_div, loops);
        return rc_err_set(err, RC_EXIT_USAGE,
                          "mix_capacity: %g /s would need more than %.0f mixes per layer for %d "
                          "users",
                          job->mix_capacity, rc_param_find("mixes_per_layer")->max, job->users);
    }
    return 0;
}

/* Nodes that serve and mix (docs/spec.md §1.14, §1.15): every option has an effect. */
static int validate_nodes(const rc_job *job, rc_err *err)
{
    bool serve = job->node_service == RC_SERVICE_SERVE;
    if (!serve && (job->provider_capacity > 0 || job->queue_limit > 0 || job->node_processing_s > 0))
        return rc_err_set(err, RC_EXIT_USAGE,
                          "%s: has no effect without --node-service serve",
                          job->provider_capacity > 0 ? "provider_capacity"
                          : job->queue_limit > 0     ? "queue_limit"
                                                     : "node_processing");
    if (serve && !(job->mix_capacity > 0) && !(job->provider_capacity > 0) &&
        !(job->node_processing_s > 0))
        return rc_err_set(err, RC_EXIT_USAGE,
                          "node_service: serve needs a finite rate (--mix-capacity C or "
                          "--provider-capacity C, sub-messages per second, > 0) or a "
                          "--node-processing time");
    bool batch = job->mix_kind == RC_MIX_THRESHOLD || job->mix_kind == RC_MIX_POOL;
    if (job->mix_kind == RC_MIX_POOL && job->mix_pool < 1)
        return rc_err_set(err, RC_EXIT_USAGE,
                          "mix_pool: %d: a pool mix keeps at least one packet (--mix-pool f >= 1; "
                          "f = 0 is --mix-kind threshold)",
                          job->mix_pool);
    if (job->mix_kind != RC_MIX_POOL && job->mix_pool != 0)
        return rc_err_set(err, RC_EXIT_USAGE, "mix_pool: %d has no effect without --mix-kind pool",
                          job->mix_pool);
    if (!batch && job->mix_threshold != 10)
        return rc_err_set(err, RC_EXIT_USAGE,
                          "mix_threshold: %d has no effect without --mix-kind threshold or pool",
                          job->mix_threshold);
    if (job->mix_kind != RC_MIX_TIMED && job->mix_period_s != 1)
        return rc_err_set(err, RC_EXIT_USAGE,
                          "mix_period: %g has no effect without --mix-kind timed",
                          job->mix_period_s);
    if (rc_job_nodes(job) && job->cover == RC_COVER_SKIP)
        return rc_err_set(err, RC_EXIT_USAGE,
                          "cover: skip cannot go with nodes that serve or batch (--node-service "
                          "serve, --mix-kind other than poisson): every packet loads them, so "
                          "cover traffic must be routed (leave --cover out or say full)");
    if (job->anonymity && job->queue_limit > 0)
        return rc_err_set(err, RC_EXIT_USAGE,
                          "queue_limit: %d cannot go with --anonymity on: a dropped packet "
                          "would stay in the adversary's pool",
                          job->queue_limit);
    if (job->anonymity && batch && job->corrupt_mixes > 0)
        return rc_err_set(err, RC_EXIT_USAGE,
                          "corrupt_mixes: %g cannot go with --mix-kind %s: a corrupted batch "
                          "mix's split is not reported",
                          job->corrupt_mixes, job->mix_kind == RC_MIX_POOL ? "pool" : "threshold");
    return 0;
}

/* Population mode: the distribution must fit the population, and the
 * extensions that need dense per-user tables are not available. */
static int validate_population(const rc_job *job, rc_err *err)
{
    if (job->population == 0 && job->population_model != 0)
        return rc_err_set(err, RC_EXIT_USAGE,
                          "population_model: %d needs population mode (--population N)",
                          job->population_model);
    if (job->group_size_dist[0] == '\0' && job->population == 0) return 0;
    if (job->population == 0)
        return rc_err_set(err, RC_EXIT_USAGE,
                          "group_size_dist: '%s' needs population mode (--population N)",
                          job->group_size_dist);
    if (job->group_size_dist[0] == '\0')
        return rc_err_set(err, RC_EXIT_USAGE,
                          "group_size_dist: population mode needs a distribution: fixed:M, "
                          "zipf:S:MIN:MAX or lognormal:MU:SIGMA");
    if (job->population < 2)
        return rc_err_set(err, RC_EXIT_USAGE, "population: %d cannot hold a group of 2",
                          job->population);
    rc_sizedist d;
    int rc = rc_sizedist_parse(job->group_size_dist, (uint32_t)job->population, &d, err);
    rc_sizedist_free(&d);
    if (rc) return rc;
    const char *unsupported = job->membership_rate > 0      ? "membership_rate"
                              : job->gossip_interval_s > 0  ? "gossip_interval"
                              : job->offline_members[0]     ? "offline_members"
                              : job->source_offline[0]      ? "source_offline"
                                                            : NULL;
    if (unsupported)
        return rc_err_set(err, RC_EXIT_USAGE,
                          "%s: not available in population mode (population = %d)", unsupported,
                          job->population);
    return 0;
}

/* A whole decimal number in 0 .. max, nothing else. */
static bool parse_u32(const char *s, uint32_t max, uint32_t *out)
{
    if (*s < '0' || *s > '9') return false;
    uint64_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        v = v * 10 + (uint64_t)(*s - '0');
        if (v > max) return false;
    }
    *out = (uint32_t)v;
    return *s == '\0';
}

int rc_job_anon_group(const char *text, rc_anon_group_kind *kind, uint32_t *value, rc_err *err)
{
    *value = 0;
    if (strcmp(text, "all") == 0) *kind = RC_ANON_GROUP_ALL;
    else if (strcmp(text, "largest") == 0) *kind = RC_ANON_GROUP_LARGEST;
    else if (strncmp(text, "size:", 5) == 0 && parse_u32(text + 5, 1u << 30, value) && *value >= 1)
        *kind = RC_ANON_GROUP_SIZE;
    else if (parse_u32(text, 1u << 30, value))
        *kind = RC_ANON_GROUP_INDEX;
    else
        return rc_err_set(err, RC_EXIT_USAGE,
                          "anon_group: '%s' is not all, a group index, largest or size:M (M >= 1)",
                          text);
    return 0;
}

/* The adversary's options (docs/spec.md §10). */
static int validate_anonymity(const rc_job *job, rc_err *err)
{
    if (!job->disclosure) {
        const char *stray = job->disclosure_window_s != 15 ? "disclosure_window"
                            : strcmp(job->disclosure_group, "largest") != 0 ? "disclosure_group"
                                                                            : NULL;
        if (stray)
            return rc_err_set(err, RC_EXIT_USAGE, "%s: has no effect without --disclosure on",
                              stray);
    } else {
        rc_anon_group_kind gk;
        uint32_t gv;
        if (rc_job_anon_group(job->disclosure_group, &gk, &gv, NULL) != 0 ||
            gk == RC_ANON_GROUP_ALL)
            return rc_err_set(err, RC_EXIT_USAGE,
                              "disclosure_group: '%s' is not a group index, largest or size:M "
                              "(M >= 1)",
                              job->disclosure_group);
        if (gk == RC_ANON_GROUP_INDEX && gv >= (uint32_t)job->groups)
            return rc_err_set(err, RC_EXIT_USAGE,
                              "disclosure_group: '%s': the job has %d groups (0 .. %d)",
                              job->disclosure_group, job->groups, job->groups - 1);
        if (job->membership_rate > 0)
            return rc_err_set(err, RC_EXIT_USAGE,
                              "disclosure: needs static groups (membership_rate 0): the target "
                              "group's membership is the truth it scores against");
    }
    if (!job->anonymity) {
        /* the corrupted nodes serve the long-term adversary too */
        const char *stray = job->disclosure                ? NULL
                            : job->corrupt_mixes > 0       ? "corrupt_mixes"
                            : job->corrupt_providers > 0   ? "corrupt_providers"
                            : NULL;
        if (stray == NULL)
            stray = job->anon_trace[0] != '\0'   ? "anon_trace"
                            : strcmp(job->anon_group, "all") != 0 ? "anon_group"
                            : job->anon_sender != 0        ? "anon_sender"
                                                           : NULL;
        if (stray)
            return rc_err_set(err, RC_EXIT_USAGE, "%s: has no effect without --anonymity on",
                              stray);
        return 0;
    }
    if (job->cover == RC_COVER_SKIP)
        return rc_err_set(err, RC_EXIT_USAGE,
                          "cover: skip cannot go with --anonymity on: the adversary watches "
                          "every packet on the wire, so cover traffic must be routed (anonymity "
                          "implies --cover full; leave --cover out or say full)");
    rc_anon_group_kind gk;
    uint32_t gv;
    int rc = rc_job_anon_group(job->anon_group, &gk, &gv, err);
    if (rc) return rc;
    if (gk == RC_ANON_GROUP_INDEX && gv >= (uint32_t)job->groups)
        return rc_err_set(err, RC_EXIT_USAGE, "anon_group: '%s': the job has %d groups (0 .. %d)",
                          job->anon_group, job->groups, job->groups - 1);
    if (job->anon_sender == RC_ANON_SENDER_DENSE && job->users > RC_ANON_SENDER_MAX_USERS)
        return rc_err_set(err, RC_EXIT_USAGE,
                          "anon_sender: dense: %d users is more than the dense vectors' %d "
                          "(use log or auto)",
                          job->users, RC_ANON_SENDER_MAX_USERS);
    if (job->anon_trace[0] != '\0') {
        char dir[sizeof job->anon_trace];
        snprintf(dir, sizeof dir, "%s", job->anon_trace);
        char *slash = strrchr(dir, '/');
        if (slash == dir) slash[1] = '\0';
        else if (slash != NULL) *slash = '\0';
        else snprintf(dir, sizeof dir, ".");
        struct stat st;
        if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
            return rc_err_set(err, RC_EXIT_USAGE,
                              "anon_trace: '%s': directory '%s' does not exist", job->anon_trace,
                              dir);
    }
    return 0;
}

size_t rc_job_trace_lines_needed(const rc_job *job)
{
    if (!strcmp(job->trace, "online")) return 0;
    /* Paper mapping: user U_i of each provider takes line i, so the trace
     * needs one line per provider slot; intended mapping: one per user. */
    if (job->quirks.trace16 == 1)
        return (size_t)(job->users < job->users_per_provider ? job->users
                                                              : job->users_per_provider);
    return (size_t)job->users;
}

void rc_job_bind_trace(rc_job *job, const rc_trace_id *id)
{
    snprintf(job->trace_name, sizeof job->trace_name, "%s", id->name);
    snprintf(job->trace_sha256, sizeof job->trace_sha256, "%s", id->sha256);
    job->trace_lines = id->lines;
}

int rc_job_check_trace(const rc_job *job, const rc_trace_id *id, rc_err *err)
{
    if (!strcmp(job->trace_sha256, id->sha256) && job->trace_lines == id->lines) return 0;
    return rc_err_set(err, RC_JOB_TRACE_CHANGED,
                      "trace '%s': %s has sha256 %s (%u lines), but the job was bound to "
                      "sha256 %s (%u lines) of trace %s: the file changed after the sweep "
                      "started, or this host sees another file",
                      job->trace, id->path, id->sha256, id->lines, job->trace_sha256,
                      job->trace_lines, job->trace_name);
}

int rc_job_bind_trace_file(rc_job *job, rc_err *err)
{
    if (!strcmp(job->trace, "online")) return 0;
    rc_trace_id id;
    rc_trace *t = rc_trace_id_load(job->trace, job->data_dir, rc_job_trace_lines_needed(job), &id,
                                   err);
    if (t == NULL) return err->code ? err->code : RC_EXIT_USAGE;
    rc_trace_free(t);
    rc_job_bind_trace(job, &id);
    return 0;
}

void rc_job_net_cfg(const rc_job *job, rc_net_cfg *out)
{
    memset(out, 0, sizeof *out);
    out->seed = job->seed;
    out->users = job->users;
    out->users_per_provider = job->users_per_provider;
    out->mix_layers = job->mix_layers;
    out->mixes_per_layer = rc_job_mixes_per_layer(job);
    out->rate_payload = job->rate_payload;
    out->rate_drop = job->rate_drop;
    out->rate_loop = job->rate_loop;
    out->rate_delay = job->rate_delay;
    out->mix_rate_loop = job->mix_rate_loop;
    out->mix_rate_loop_delay = job->mix_rate_loop_delay;
    out->lambda_div = job->lambda_div;
    out->pull_period_s = job->pull_period_s;
    out->tick_s = job->tick_s;
    out->cover_full = job->cover == RC_COVER_FULL;
    out->lattice = job->quirks.lattice == 1;
    out->trace16 = job->quirks.trace16 != 0;
    out->frozen_pull = job->quirks.frozen_pull == 1;
    out->ingress_delay = job->quirks.ingress_delay == 1;
    out->provider_rate = job->provider_rate;
    out->aggregate_cover = job->population > 0 && job->population_model >= 2;
    out->direct_pull = job->population > 0 && job->population_model >= 3;
    out->direct_arrival_order = job->population > 0 && job->population_model >= 4;
    if (job->node_service == RC_SERVICE_SERVE) {
        out->mix_service_rate = job->mix_capacity;
        out->provider_service_rate = job->provider_capacity;
        out->queue_limit = job->queue_limit;
        out->node_processing_s = job->node_processing_s;
    }
    out->mix_kind = job->mix_kind;
    out->mix_threshold = job->mix_threshold;
    out->mix_pool = job->mix_pool;
    out->mix_period_s = job->mix_period_s;
    out->link_latency_s = job->link_latency_s;
    out->topology = (rc_topology)job->topology;
    out->link_map = NULL; /* exp/run.c loads link_latency_file for the run */
}

/* The scenario options, offline_members and source_offline, read from the
 * job's text into out (multicast/scenario.h) -- the one place they are
 * parsed; rc_job_validate reports what is wrong with them. */
static int parse_scenarios(const rc_job *job, rc_mc_cfg *out, rc_err *err)
{
    int gs = rc_job_group_size(job);
    out->n_offline = 0;
    const char *p = job->offline_members;
    while (*p) {
        int pos, used;
        if (sscanf(p, "%d%n", &pos, &used) != 1 || pos < 0 || pos >= gs)
            return rc_err_set(err, RC_EXIT_USAGE,
                              "offline_members: '%s' must be a comma list of positions 0..%d",
                              job->offline_members, gs - 1);
        if (out->n_offline == RC_MC_OFFLINE_MAX)
            return rc_err_set(err, RC_EXIT_USAGE, "offline_members: '%s' lists more than %d",
                              job->offline_members, RC_MC_OFFLINE_MAX);
        out->offline_members[out->n_offline++] = (uint32_t)pos;
        p += used;
        if (*p == ',') p++;
        else if (*p != '\0')
            return rc_err_set(err, RC_EXIT_USAGE,
                              "offline_members: '%s' must be a comma list of positions",
                              job->offline_members);
    }
    out->source_offline = false;
    out->source_offline_at_s = out->source_offline_for_s = 0;
    if (job->source_offline[0] != '\0') {
        double at, len;
        char extra;
        if (sscanf(job->source_offline, "%lf:%lf%c", &at, &len, &extra) != 2 || at < 0 || len <= 0)
            return rc_err_set(err, RC_EXIT_USAGE, "source_offline: '%s' must be AT:FOR seconds",
                              job->source_offline);
        out->source_offline = true;
        out->source_offline_at_s = at;
        out->source_offline_for_s = len;
    }
    return 0;
}

void rc_job_mc_cfg(const rc_job *job, rc_mc_cfg *out)
{
    memset(out, 0, sizeof *out);
    out->seed = job->seed;
    out->users = job->users;
    out->groups = job->groups;
    out->group_size = rc_job_group_size(job);
    _Static_assert(sizeof out->strategy == sizeof job->strategy, "strategy name sizes differ");
    memcpy(out->strategy, job->strategy, sizeof out->strategy);
    out->rc_base_delay_factor = job->rc_base_delay_factor;
    out->seed0_groups = job->quirks.seed0_groups != 0;
    out->arm_once = job->quirks.arm_once == 1;
    out->acks_always = job->quirks.acks_always == 1;
    out->nonce0_plain = job->quirks.nonce0_plain == 1;
    out->nonce_perm = job->quirks.nonce_perm == 1;
    rc_err err = {0};
    RC_ASSERTF(parse_scenarios(job, out, &err) == 0, "a job not validated: %s", err.msg);
    out->ae_interval_s = job->gossip_interval_s;
    out->ae_push_max = job->gossip_push_max;
    out->ae_window_s = job->gossip_window_s;
    out->membership_rate = job->membership_rate;
    out->adversary = (rc_adv_kind)job->adversary;
    out->adversary_fraction = job->adversary_fraction;
    out->adversary_delay_s = job->adversary_delay_s;
    out->population = job->population;
    _Static_assert(sizeof out->group_size_dist == sizeof job->group_size_dist,
                   "group_size_dist sizes differ");
    memcpy(out->group_size_dist, job->group_size_dist, sizeof out->group_size_dist);
    out->record_deliveries = job->store_raw;
}

void rc_job_app_cfg(const rc_job *job, rc_app_cfg *out)
{
    memset(out, 0, sizeof *out);
    out->seed = job->seed;
    out->app_rate = job->app_rate;
    out->burst = job->burst;
    out->heavy_fraction = job->heavy_fraction;
    out->heavy_weight = job->heavy_weight;
}

/* The link latency file (docs/spec.md §1.16): it reads, and places only
 * providers and mixes the network has; not with --link-latency too. */
static int validate_links(const rc_job *job, rc_err *err)
{
    if (job->link_latency_file[0] == '\0') return 0;
    if (job->link_latency_s > 0)
        return rc_err_set(err, RC_EXIT_USAGE,
                          "link_latency_file: '%s' and link_latency %g s both given (the file "
                          "sets every link's latency)",
                          job->link_latency_file, job->link_latency_s);
    rc_linkmap *m = rc_linkmap_load(job->link_latency_file, err);
    if (m == NULL) return err && err->code ? err->code : RC_EXIT_USAGE;
    uint32_t upp = (uint32_t)job->users_per_provider;
    uint32_t providers = ((uint32_t)job->users + upp - 1) / upp;
    uint32_t mixes = (uint32_t)job->mix_layers * (uint32_t)rc_job_mixes_per_layer(job);
    int rc = rc_linkmap_check(m, providers, mixes, err);
    rc_linkmap_free(m);
    return rc;
}

int rc_job_validate(const rc_job *job, rc_err *err)
{
    int prc = validate_population(job, err);
    if (prc) return prc;
    int gs = rc_job_group_size(job);
    if (gs > job->users)
        return rc_err_set(err, RC_EXIT_USAGE,
                          "group_size: %d is larger than the population (users = %d)", gs,
                          job->users);
    if (gs < 2) return rc_err_set(err, RC_EXIT_USAGE, "group_size: %d is below 2", gs);
    rc_strategy_spec s;
    int rc = rc_strategy_parse(job->strategy, &s, err);
    if (rc) return rc;
    if (job->trace[0] == '\0')
        return rc_err_set(err, RC_EXIT_USAGE, "trace: empty (use 'online' for no trace)");
    /* The data directory matters only to a trace given by name: a run without
     * a trace, or with a trace path, never looks at it (a clone without the
     * traces, or a stale $RCSIM_DATA_DIR, must not stop it). */
    struct stat st;
    bool by_name = strcmp(job->trace, "online") != 0 &&
                   !(stat(job->trace, &st) == 0 && S_ISREG(st.st_mode));
    if (by_name && job->data_dir[0] != '\0' &&
        (stat(job->data_dir, &st) != 0 || !S_ISDIR(st.st_mode)))
        return rc_err_set(err, RC_EXIT_USAGE,
                          "data_dir: '%s' is not a directory (looking up trace '%s')",
                          job->data_dir, job->trace);
    if (job->rate_payload <= 0)
        return rc_err_set(err, RC_EXIT_USAGE, "rate_payload: must be > 0");
    rc = validate_mixes(job, err);
    if (rc) return rc;
    rc = validate_nodes(job, err);
    if (rc) return rc;
    rc = validate_links(job, err);
    if (rc) return rc;
    if (job->quirks.lattice == 1) {
        double ticks = job->duration_s / job->tick_s;
        if (ticks > 9e15)
            return rc_err_set(err, RC_EXIT_USAGE, "duration: too many ticks of %g s", job->tick_s);
    }
    rc_mc_cfg scenarios;
    int src = parse_scenarios(job, &scenarios, err);
    if (src) return src;
    if (job->adversary == RC_ADV_NONE && job->adversary_fraction > 0)
        return rc_err_set(err, RC_EXIT_USAGE,
                          "adversary_fraction: %g has no effect with adversary none (choose drop, "
                          "ack-drop or delay)",
                          job->adversary_fraction);
    if (job->adversary == RC_ADV_DELAY && job->adversary_delay_s <= 0)
        return rc_err_set(err, RC_EXIT_USAGE,
                          "adversary_delay: %g s; adversary delay needs a delay > 0",
                          job->adversary_delay_s);
    return validate_anonymity(job, err);
}

size_t rc_job_canonical(const rc_job *job, char *buf, size_t n)
{
    rc_job r = *job;
    rc_job_resolve(&r);
    size_t count, used = 0;
    const rc_param_def *t = rc_param_table(&count);
    for (size_t i = 0; i < count; i++) {
        if (!(t[i].flags & RC_PF_CANON)) continue;
        char val[300];
        rc_param_format(&r, &t[i], val, sizeof val);
        if (t[i].flags & RC_PF_CANON_NONDEF) {
            rc_job d = r;
            char def[300];
            rc_param_set(&d, &t[i], t[i].def, NULL);
            rc_param_format(&d, &t[i], def, sizeof def);
            if (strcmp(val, def) == 0) continue;
        }
        if (t[i].offset == offsetof(rc_job, trace) && r.trace_sha256[0] != '\0') {
            /* The content, not the spelling (trace/trace_id.h). */
            int w = snprintf(buf + (used < n ? used : n), used < n ? n - used : 0,
                             "trace=%s\ntrace_sha256=%s\ntrace_lines=%u\n", r.trace_name,
                             r.trace_sha256, r.trace_lines);
            if (w > 0) used += (size_t)w;
            continue;
        }
        /* "name=value\n" without another printf (this runs for every job id) */
        size_t ln = strlen(t[i].name), lv = strlen(val);
        for (size_t k = 0; k < ln + lv + 2; k++) {
            char ch = k < ln ? t[i].name[k] : k == ln ? '=' : k < ln + 1 + lv ? val[k - ln - 1] : '\n';
            if (used + k + 1 < n) buf[used + k] = ch;
        }
        used += ln + lv + 2;
        if (n > 0) buf[used < n ? used : n - 1] = '\0';
    }
    return used;
}

uint64_t rc_job_id(const rc_job *job)
{
    char buf[8192];
    size_t len = rc_job_canonical(job, buf, sizeof buf);
    if (len >= sizeof buf) len = sizeof buf - 1;
    uint64_t h = 1469598103934665603ULL; /* FNV-1a 64 */
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)buf[i];
        h *= 1099511628211ULL;
    }
    return h;
}

void rc_job_id_hex(uint64_t id, char out[17]) { snprintf(out, 17, "%016llx", (unsigned long long)id); }
