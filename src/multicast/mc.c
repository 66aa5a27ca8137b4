#include "multicast/mc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/pyrandom.h"
#include "core/rng.h"
#include "loopix/net.h"
#include "multicast/adversary.h"
#include "multicast/poptab.h"

enum { STREAM_GROUPS = 10, STREAM_STRATEGY = 11, STREAM_MEMBERS = 12 };

typedef struct payload {
    uint32_t group, source;
    rc_time created;
} payload;

typedef struct dsamples {
    double *v;
    size_t n, cap;
} dsamples;

static void dpush(dsamples *d, double x)
{
    if (d->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 4096;
        d->v = rc_xrealloc(d->v, d->cap * sizeof *d->v);
    }
    d->v[d->n++] = x;
}

/* record_deliveries (store_raw): the first deliveries, in delivery order. */
typedef struct dlvvec {
    rc_mc_delivery *v;
    size_t n, cap;
} dlvvec;

typedef struct u32vec {
    uint32_t *v;
    uint32_t n, cap;
} u32vec;

static void u32push(u32vec *d, uint32_t x)
{
    if (d->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 256;
        d->v = rc_xrealloc(d->v, d->cap * sizeof *d->v);
    }
    d->v[d->n++] = x;
}

/* Services beside the strategy one job can enable (rc_mc_services). */
#define RC_MC_MAX_SERVICES 4

struct rc_mc {
    rc_sim *sim;
    rc_mc_cfg cfg;
    rc_net *net;
    rc_mc_counters ctr;
    uint32_t n_users, n_groups;
    uint32_t *members;     /* n_groups x n_users (capacity), group order */
    uint32_t *size;        /* current size of each group */
    int32_t *pos;          /* n_groups x users: position or -1 */
    payload *payloads;
    /* Per payload, bitsets over users: who was a member when it was created
     * (the expected recipients) and who has it. */
    uint8_t *expected, *delivered;
    float *dtime;          /* anti-entropy only: payload x users delivery time (s), or -1 */
    uint32_t n_payloads, cap_payloads, bytes_per;
    u32vec *group_payloads;/* payload ids per group, creation order */
    rc_msg *bodies;
    uint32_t n_bodies, cap_bodies, body_free;
    dsamples lat_all, lat_online;
    dlvvec raw;
    const rc_strategy_ops *ops;
    void *strategy;
    gsl_rng *rng_strategy, *rng_members;
    rc_strategy_spec spec;
    /* the services this job enables (rc_mc_services), and which of them owns
     * each message type (-1: the strategy) */
    const rc_mc_service_ops *svc_ops[RC_MC_MAX_SERVICES];
    void *svc[RC_MC_MAX_SERVICES];
    int n_svc;
    int8_t svc_of_type[RC_MSG_TYPES];
    bool keep_dtime;       /* a service reads rc_mc_delivered_at */
    bool compact;          /* payload copies may travel as compact handles (set at start) */
    rc_adv *adv;           /* misbehaving members; NULL when everyone is honest */
    /* Population mode (issue 17): groups, payloads, latencies and load live in
     * pt instead of the dense tables above (members, pos, expected, delivered,
     * the latency samples), which stay NULL/empty. */
    rc_poptab *pt;
    /* scenario: the sender of the first multicast after `so_at` goes offline */
    double so_at, so_for;
    int so_state;          /* 0 waiting, 1 armed (payload so_payload), 2 done */
    uint32_t so_payload;
    uint64_t extra_deliveries; /* first copies to users that were not expected */
};

/* ---------- bodies ----------
 *
 * A message in the net is a 32-bit body handle.  Most handles index a copy of
 * the rc_msg in `bodies`.  In population mode a payload copy that says
 * nothing its payload record and its recipient do not say -- unicast's
 * copies: the payload's group and source, sent by the source, role = the
 * recipient's position in the group, every other field 0 -- is sent as a
 * compact handle instead, BODY_COMPACT | payload id, with no record: its
 * send and its pull then touch no body, and no body is taken from or
 * returned to the free list (issue 28).  body_msg rebuilds the identical
 * rc_msg from it.  Not with an observer on the wire, which tells messages
 * apart by their handles, nor with a strategy that watches its sends (the
 * sent op reads the whole message, which the sent hook cannot rebuild
 * without the recipient). */
#define BODY_COMPACT 0x80000000u

static bool body_compact(uint32_t body) { return (body & BODY_COMPACT) != 0; }

static uint32_t body_new(rc_mc *mc, const rc_msg *m)
{
    uint32_t i;
    if (mc->body_free != UINT32_MAX) {
        i = mc->body_free;
        memcpy(&mc->body_free, &mc->bodies[i], sizeof mc->body_free);
    } else {
        if (mc->n_bodies == mc->cap_bodies) {
            RC_ASSERTF(mc->cap_bodies < BODY_COMPACT / 2, "%u message bodies in flight",
                       mc->n_bodies);
            mc->cap_bodies = mc->cap_bodies ? mc->cap_bodies * 2 : 4096;
            mc->bodies = rc_xrealloc(mc->bodies, mc->cap_bodies * sizeof *mc->bodies);
        }
        i = mc->n_bodies++;
    }
    mc->bodies[i] = *m;
    if (mc->pt && m->type != RC_MSG_DIGEST) rc_poptab_ref(mc->pt, m->payload);
    return i;
}

/* The handle of m for rc_net_send: compact when body_msg rebuilds m exactly. */
static uint32_t body_for_send(rc_mc *mc, const rc_msg *m)
{
    if (!mc->compact || m->type != RC_MSG_PAYLOAD || m->arm != 0 || m->extra != 0 ||
        m->nonce != 0 || m->aux != 0 || m->t != 0 || m->sender != m->source ||
        m->payload >= BODY_COMPACT)
        return body_new(mc, m);
    uint32_t g = rc_poptab_payload_group(mc->pt, m->payload);
    if (m->group != g || m->source != rc_poptab_payload_source(mc->pt, m->payload) ||
        m->role >= rc_poptab_size(mc->pt, g) || rc_poptab_members(mc->pt, g)[m->role] != m->recipient)
        return body_new(mc, m);
    rc_poptab_ref(mc->pt, m->payload);
    return BODY_COMPACT | m->payload;
}

/* The message behind a handle, for its recipient (rebuilt if compact; a
 * member is at one position of its group, so role is the one it was sent with). */
static rc_msg body_msg(const rc_mc *mc, uint32_t body, uint32_t recipient)
{
    if (!body_compact(body)) return mc->bodies[body];
    uint32_t p = body & ~BODY_COMPACT, g = rc_poptab_payload_group(mc->pt, p);
    uint32_t source = rc_poptab_payload_source(mc->pt, p);
    int32_t role = rc_poptab_pos(mc->pt, g, recipient);
    RC_DCHECK(role >= 0, "user %u got payload %u of group %u it is not in", recipient, p, g);
    return (rc_msg){.type = RC_MSG_PAYLOAD, .group = g, .source = source, .role = (uint32_t)role,
                    .sender = source, .recipient = recipient, .payload = p};
}

static void body_free(rc_mc *mc, uint32_t i)
{
    if (body_compact(i)) return;
    /* the link to the next free body is kept in the freed body itself: taking
     * a body then reads only the line it writes */
    memcpy(&mc->bodies[i], &mc->body_free, sizeof mc->body_free);
    mc->body_free = i;
}

static bool bit_get(const uint8_t *set, uint32_t i) { return (set[i / 8] >> (i % 8)) & 1; }
static void bit_set(uint8_t *set, uint32_t i) { set[i / 8] |= (uint8_t)(1u << (i % 8)); }

/* ---------- net hooks ---------- */

static void hook_sent(void *ctx, uint32_t user, uint32_t body, rc_time now)
{
    rc_mc *mc = ctx;
    if (body_compact(body)) { /* a payload copy; population mode: no scenario, no sent op */
        RC_DCHECK(mc->compact && mc->so_state != 1, "compact body %x outside population mode",
                  body);
        rc_poptab_sent(mc->pt, user);
        mc->ctr.payload_packets++;
        return;
    }
    const rc_msg *m = &mc->bodies[body];
    if (mc->pt) rc_poptab_sent(mc->pt, user);
    switch (m->type) {
    case RC_MSG_PAYLOAD: mc->ctr.payload_packets++; break;
    case RC_MSG_ACK: mc->ctr.ack_packets++; break;
    default: mc->ctr.repair_packets++; break;
    }
    /* Scenario (issue 8): the source goes offline right after its first copy
     * of the chosen multicast has left. */
    if (mc->so_state == 1 && m->type == RC_MSG_PAYLOAD && m->payload == mc->so_payload &&
        user == m->source) {
        mc->so_state = 2;
        rc_time from = now + rc_net_tick(mc->net);
        rc_net_force_offline(mc->net, user, from, from + (rc_time)llround(mc->so_for * 1e6));
    }
    if (mc->ops->sent && mc->svc_of_type[m->type] < 0) /* not a service's message */
        mc->ops->sent(mc->strategy, user, m, now);
}

static void hook_deliver(void *ctx, uint32_t user, uint32_t body, bool online_label, rc_time now)
{
    (void)now;
    rc_mc *mc = ctx;
    rc_msg m = body_msg(mc, body, user);
    body_free(mc, body);
    RC_DCHECK(m.recipient == user, "message for %u pulled by %u", m.recipient, user);
    rc_adv_receive_begin(mc->adv, user);
    int s = mc->svc_of_type[m.type];
    if (s >= 0)
        mc->svc_ops[s]->receive(mc->svc[s], user, &m, online_label);
    else
        mc->ops->receive(mc->strategy, user, &m, online_label);
    rc_adv_receive_end(mc->adv);
    /* after the strategy: it may still have used the payload */
    if (mc->pt && m.type != RC_MSG_DIGEST) rc_poptab_unref(mc->pt, m.payload);
}

/* A message a user sent to its own provider (rc_mc_send_provider) is there. */
static void hook_relay(void *ctx, uint32_t user, uint32_t body)
{
    rc_mc *mc = ctx;
    RC_DCHECK(!body_compact(body), "compact body %x sent to a provider", body);
    rc_msg m = mc->bodies[body];
    body_free(mc, body);
    RC_DCHECK(mc->ops->relay != NULL, "strategy %s sent to a provider without a relay op",
              mc->ops->name);
    mc->ops->relay(mc->strategy, user, &m);
    if (mc->pt && m.type != RC_MSG_DIGEST) rc_poptab_unref(mc->pt, m.payload);
}

static void hook_prefetch(void *ctx, uint32_t body, unsigned stage)
{
    const rc_mc *mc = ctx;
    /* No body: for a pull, the payload record, then its delivered set; nothing
     * for a send (the sent hook reads neither). */
    if (body_compact(body)) {
        if (stage == 1) rc_poptab_prefetch_payload(mc->pt, body & ~BODY_COMPACT);
        else if (stage == 0) rc_poptab_prefetch_delivered(mc->pt, body & ~BODY_COMPACT);
        return;
    }
    if (stage > 0) {
        __builtin_prefetch(&mc->bodies[body]);
    } else if (mc->pt) { /* the payload's record, which rc_poptab_deliver updates */
        const rc_msg *m = &mc->bodies[body];
        if (m->type != RC_MSG_DIGEST) rc_poptab_prefetch_payload(mc->pt, m->payload);
    }
}

static void hook_prefetch_user(void *ctx, uint32_t user, unsigned ahead)
{
    const rc_mc *mc = ctx;
    if (mc->pt) rc_poptab_prefetch_user(mc->pt, user, ahead);
}

static void hook_online(void *ctx, uint32_t user, bool online, rc_time now)
{
    (void)now;
    rc_mc *mc = ctx;
    if (mc->ops->online) mc->ops->online(mc->strategy, user, online);
}

static void on_timer(void *ctx, const rc_event *ev)
{
    rc_mc *mc = ctx;
    mc->ops->timer(mc->strategy, ev->obj, ev->arg);
}

/* A delaying member's message (obj = sender, arg = body) joins its send queue. */
static void on_adv_release(void *ctx, const rc_event *ev)
{
    rc_mc *mc = ctx;
    uint32_t body = (uint32_t)ev->arg;
    rc_net_send(mc->net, ev->obj, mc->bodies[body].recipient, body);
}

/* ---------- membership ---------- */

static rc_time member_gap(rc_mc *mc)
{
    rc_time tick = rc_net_tick(mc->net);
    double rate = mc->cfg.membership_rate;
    if (tick > 1) {
        double f = -expm1(-rate * (double)tick / 1e6);
        return (rc_time)rc_rng_geom(mc->rng_members, f) * tick;
    }
    rc_time g = (rc_time)llround(rc_rng_exp(mc->rng_members, 1e6 / rate));
    return g < 1 ? 1 : g;
}

/* A join or a leave, with equal odds (a group keeps at least 2 members and
 * joins need a non-member).  The joiner goes to the end of the group order;
 * a leaver's later members move up. */
static void on_membership(void *ctx, const rc_event *ev)
{
    rc_mc *mc = ctx;
    uint32_t g = ev->obj;
    rc_sim_at(mc->sim, ev->t + member_gap(mc), RC_CLS_APP, RC_EV_MC_MEMBERSHIP, g, 0);
    uint32_t *mem = &mc->members[(size_t)g * mc->n_users];
    int32_t *pos = &mc->pos[(size_t)g * mc->n_users];
    uint32_t n = mc->size[g];
    bool join = rc_rng_uniform(mc->rng_members) < 0.5;
    if (n >= mc->n_users) join = false;
    if (n <= 2) join = true;
    if (join) {
        uint32_t pick = rc_rng_below(mc->rng_members, mc->n_users - n), u = 0;
        for (u = 0; u < mc->n_users; u++)
            if (pos[u] < 0 && pick-- == 0) break;
        mem[n] = u;
        pos[u] = (int32_t)n;
        mc->size[g] = n + 1;
        mc->ctr.joins++;
    } else {
        uint32_t i = rc_rng_below(mc->rng_members, n);
        pos[mem[i]] = -1;
        for (uint32_t j = i; j + 1 < n; j++) {
            mem[j] = mem[j + 1];
            pos[mem[j]] = (int32_t)j;
        }
        mc->size[g] = n - 1;
        mc->ctr.leaves++;
    }
}

/* ---------- construction ---------- */

static int parse_offline(const rc_mc_cfg *cfg, const rc_mc *mc, bool *forced)
{
    const char *p = cfg->offline_members;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || (uint32_t)v >= mc->size[0]) return -1;
        forced[mc->members[v]] = true;
        p = (*end == ',') ? end + 1 : end;
    }
    return 0;
}

static void finish_new(rc_mc *mc, rc_sim *sim, const rc_net_cfg *net_cfg,
                       const rc_trace *trace, const bool *forced);

/* Population mode: the groups are drawn by rc_poptab; no scenario hooks (rc_job_validate). */
static rc_mc *new_population(rc_mc *mc, rc_sim *sim, const rc_net_cfg *net_cfg,
                             const rc_trace *trace, rc_err *err)
{
    mc->pt = rc_poptab_new(mc->n_users, mc->n_groups, mc->cfg.group_size_dist, mc->cfg.seed,
                           STREAM_GROUPS, err);
    if (mc->pt == NULL) {
        rc_mc_free(mc);
        return NULL;
    }
    mc->size = rc_xmalloc(mc->n_groups * sizeof(uint32_t));
    for (uint32_t g = 0; g < mc->n_groups; g++) mc->size[g] = rc_poptab_size(mc->pt, g);
    mc->rng_strategy = rc_rng_new(mc->cfg.seed, STREAM_STRATEGY);
    mc->rng_members = rc_rng_new(mc->cfg.seed, STREAM_MEMBERS);
    mc->so_state = 2;
    finish_new(mc, sim, net_cfg, trace, NULL);
    return mc;
}

rc_mc *rc_mc_new(rc_sim *sim, const rc_mc_cfg *cfg, const rc_net_cfg *net_cfg,
                 const rc_trace *trace, rc_err *err)
{
    rc_mc *mc = rc_xcalloc(1, sizeof *mc);
    mc->sim = sim;
    mc->cfg = *cfg;
    mc->body_free = UINT32_MAX;
    if (rc_strategy_parse(cfg->strategy, &mc->spec, err) != 0) {
        free(mc);
        return NULL;
    }
    mc->ops = mc->spec.family->ops;
    RC_DCHECK(strcmp(mc->ops->name, mc->spec.family->family) == 0,
              "strategy family %s runs the ops of %s", mc->spec.family->family, mc->ops->name);

    /* Groups: each a random sample of the users in sampled order, drawn in
     * turn from one stream (docs/spec.md §3); the seed-0 quirk fixes that stream. */
    uint32_t m = (uint32_t)cfg->users;
    mc->n_users = m;
    mc->n_groups = (uint32_t)cfg->groups;
    if (cfg->population > 0) return new_population(mc, sim, net_cfg, trace, err);
    uint32_t gs = (uint32_t)cfg->group_size;
    mc->members = rc_xmalloc((size_t)mc->n_groups * m * sizeof(uint32_t));
    mc->pos = rc_xmalloc((size_t)mc->n_groups * m * sizeof(int32_t));
    mc->size = rc_xmalloc(mc->n_groups * sizeof(uint32_t));
    mc->group_payloads = rc_xcalloc(mc->n_groups, sizeof(u32vec));
    /* Paper: the reference's own groups, random.Random(0).sample(users, gs)
     * per group in turn (users in provider order, as rcsim numbers them). */
    gsl_rng *gr = cfg->seed0_groups ? NULL : rc_rng_new(cfg->seed, STREAM_GROUPS);
    rc_pyrandom py;
    rc_pyrandom_seed(&py, 0);
    uint32_t *perm = rc_xmalloc(m * sizeof(uint32_t));
    for (uint32_t g = 0; g < mc->n_groups; g++) {
        if (gr == NULL) {
            rc_pyrandom_sample(&py, m, gs, perm);
        } else {
            for (uint32_t i = 0; i < m; i++) perm[i] = i;
            for (uint32_t i = 0; i < gs; i++) {
                uint32_t j = i + rc_rng_below(gr, m - i);
                uint32_t t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
            }
        }
        for (uint32_t i = 0; i < m; i++) mc->pos[(size_t)g * m + i] = -1;
        for (uint32_t i = 0; i < gs; i++) {
            mc->members[(size_t)g * m + i] = perm[i];
            mc->pos[(size_t)g * m + perm[i]] = (int32_t)i;
        }
        mc->size[g] = gs;
    }
    free(perm);
    if (gr) rc_rng_free(gr);
    mc->bytes_per = (m + 7) / 8;
    mc->rng_strategy = rc_rng_new(cfg->seed, STREAM_STRATEGY);
    mc->rng_members = rc_rng_new(cfg->seed, STREAM_MEMBERS);

    bool *forced = NULL;
    if (cfg->offline_members[0] != '\0') {
        forced = rc_xcalloc(m, sizeof(bool));
        if (parse_offline(cfg, mc, forced) != 0) {
            rc_err_set(err, RC_EXIT_USAGE, "offline_members: bad list '%s'", cfg->offline_members);
            free(forced);
            rc_mc_free(mc);
            return NULL;
        }
    }
    if (cfg->source_offline[0] != '\0' &&
        sscanf(cfg->source_offline, "%lf:%lf", &mc->so_at, &mc->so_for) == 2)
        mc->so_state = 0;
    else
        mc->so_state = 2;
    finish_new(mc, sim, net_cfg, trace, forced);
    free(forced);
    return mc;
}

/* Creates the services the configuration enables, in table order, and
 * records which message types each one owns. */
static void services_create(rc_mc *mc, rc_sim *sim)
{
    for (int t = 0; t < RC_MSG_TYPES; t++) mc->svc_of_type[t] = -1;
    for (const rc_mc_service_ops *const *o = rc_mc_services; *o != NULL; o++) {
        void *self = (*o)->create(mc, sim, &mc->cfg);
        if (self == NULL) continue;
        RC_ASSERTF(mc->n_svc < RC_MC_MAX_SERVICES, "more than %d services", RC_MC_MAX_SERVICES);
        for (int t = 0; t < RC_MSG_TYPES; t++)
            if ((*o)->msg_types & 1u << t) {
                RC_ASSERTF(mc->svc_of_type[t] < 0, "two services own message type %d", t);
                mc->svc_of_type[t] = (int8_t)mc->n_svc;
            }
        mc->keep_dtime |= (*o)->delivery_times;
        mc->svc_ops[mc->n_svc] = *o;
        mc->svc[mc->n_svc++] = self;
    }
}

/* The net, the handlers, the adversaries, the strategy and the services. */
static void finish_new(rc_mc *mc, rc_sim *sim, const rc_net_cfg *net_cfg,
                       const rc_trace *trace, const bool *forced)
{
    uint32_t m = mc->n_users;
    rc_net_hooks hooks = {mc, hook_sent, hook_deliver, hook_online, NULL, hook_prefetch,
                          hook_relay, hook_prefetch_user};
    mc->net = rc_net_new(sim, net_cfg, trace, rc_strategy_split(&mc->spec), forced, hooks);
    /* Group members are the active clients of the unobservability figures
     * (docs/spec.md §1.12); membership as it is at the start. */
    for (uint32_t g = 0; g < mc->n_groups; g++) {
        const uint32_t *mem = rc_mc_group_members(mc, g);
        for (uint32_t i = 0; i < mc->size[g]; i++) rc_net_mark_active(mc->net, mem[i]);
    }
    rc_sim_on(sim, RC_EV_MC_TIMER, on_timer, mc);
    rc_sim_on(sim, RC_EV_MC_MEMBERSHIP, on_membership, mc);
    if (mc->cfg.adversary != RC_ADV_NONE) {
        /* The extra delay is lifted to the lattice, like every time in the paper model. */
        rc_time tick = rc_net_tick(mc->net);
        rc_time d = (rc_time)llround(mc->cfg.adversary_delay_s * 1e6);
        if (tick > 1) d = ((d + tick - 1) / tick) * tick;
        rc_adv_cfg ac = {mc->cfg.adversary, mc->cfg.adversary_fraction, d, mc->cfg.seed, m};
        mc->adv = rc_adv_new(&ac);
        rc_sim_on(sim, RC_EV_MC_ADV_RELEASE, on_adv_release, mc);
    }
    mc->strategy = mc->ops->create(mc, &mc->spec, &mc->cfg);
    services_create(mc, sim);
}

void rc_mc_start(rc_mc *mc)
{
    /* Whether the job allows compact handles is fixed once an observer, if
     * any, is attached: before rc_net_start (loopix/net.h). */
    mc->compact = mc->pt != NULL && mc->ops->sent == NULL && !rc_net_observed(mc->net);
    rc_net_start(mc->net);
    for (int i = 0; i < mc->n_svc; i++) mc->svc_ops[i]->start(mc->svc[i]);
    if (mc->cfg.membership_rate > 0)
        for (uint32_t g = 0; g < mc->n_groups; g++)
            rc_sim_at(mc->sim, member_gap(mc), RC_CLS_APP, RC_EV_MC_MEMBERSHIP, g, 0);
}

void rc_mc_free(rc_mc *mc)
{
    if (mc == NULL) return;
    if (mc->strategy) mc->ops->destroy(mc->strategy);
    for (int i = 0; i < mc->n_svc; i++) mc->svc_ops[i]->destroy(mc->svc[i]);
    rc_adv_free(mc->adv);
    rc_poptab_free(mc->pt);
    rc_net_free(mc->net);
    free(mc->members);
    free(mc->pos);
    free(mc->size);
    if (mc->group_payloads)
        for (uint32_t g = 0; g < mc->n_groups; g++) free(mc->group_payloads[g].v);
    free(mc->group_payloads);
    free(mc->payloads);
    free(mc->expected);
    free(mc->delivered);
    free(mc->dtime);
    free(mc->bodies);
    free(mc->lat_all.v);
    free(mc->lat_online.v);
    free(mc->raw.v);
    if (mc->rng_strategy) rc_rng_free(mc->rng_strategy);
    if (mc->rng_members) rc_rng_free(mc->rng_members);
    free(mc);
}

/* ---------- API for strategies and the app ---------- */

uint32_t rc_mc_groups(const rc_mc *mc) { return mc->n_groups; }
uint32_t rc_mc_users(const rc_mc *mc) { return mc->n_users; }
uint32_t rc_mc_group_size(const rc_mc *mc, uint32_t g) { return mc->size[g]; }
const uint32_t *rc_mc_group_members(const rc_mc *mc, uint32_t g)
{
    if (mc->pt) return rc_poptab_members(mc->pt, g);
    return &mc->members[(size_t)g * mc->n_users];
}
int32_t rc_mc_group_pos(const rc_mc *mc, uint32_t g, uint32_t user)
{
    if (mc->pt) return rc_poptab_pos(mc->pt, g, user);
    return mc->pos[(size_t)g * mc->n_users + user];
}
bool rc_mc_population(const rc_mc *mc) { return mc->pt != NULL; }
size_t rc_mc_slots(const rc_mc *mc)
{
    return mc->pt ? rc_poptab_slots(mc->pt) : (size_t)mc->n_groups * mc->n_users;
}
size_t rc_mc_slot(const rc_mc *mc, uint32_t g, uint32_t user)
{
    return mc->pt ? rc_poptab_slot(mc->pt, g, user) : (size_t)g * mc->n_users + user;
}
void rc_mc_payload_hold(rc_mc *mc, uint32_t p)
{
    if (mc->pt) rc_poptab_ref(mc->pt, p);
}
void rc_mc_payload_release(rc_mc *mc, uint32_t p)
{
    if (mc->pt) rc_poptab_unref(mc->pt, p);
}
rc_time rc_mc_now(const rc_mc *mc) { return mc->sim->now; }
rc_time rc_mc_tick(const rc_mc *mc) { return rc_net_tick(mc->net); }
bool rc_mc_online(const rc_mc *mc, uint32_t user) { return rc_net_online(mc->net, user); }
gsl_rng *rc_mc_rng(rc_mc *mc) { return mc->rng_strategy; }
uint64_t rc_mc_seed(const rc_mc *mc) { return mc->cfg.seed; }
rc_mc_counters *rc_mc_counts(rc_mc *mc) { return &mc->ctr; }
double rc_mc_mean_hop_delay_s(const rc_mc *mc) { return rc_net_mean_hop_delay_s(mc->net); }
double rc_mc_payload_rate(const rc_mc *mc) { return rc_net_payload_rate(mc->net); }
uint32_t rc_mc_hops(const rc_mc *mc) { return rc_net_hops(mc->net); }
rc_net *rc_mc_net(rc_mc *mc) { return mc->net; }

bool rc_mc_send(rc_mc *mc, uint32_t from, const rc_msg *m)
{
    RC_DCHECK(m->recipient < mc->n_users, "recipient %u out of range", m->recipient);
    switch (rc_adv_verdict_for(mc->adv, from, m)) {
    case RC_ADV_PASS: rc_net_send(mc->net, from, m->recipient, body_for_send(mc, m)); return true;
    case RC_ADV_WITHHOLD: return false;
    case RC_ADV_HOLD:
        rc_sim_at(mc->sim, mc->sim->now + rc_adv_delay(mc->adv), RC_CLS_TIMER, RC_EV_MC_ADV_RELEASE,
                  from, body_new(mc, m));
        return true;
    }
    return false;
}

bool rc_mc_send_provider(rc_mc *mc, uint32_t from, const rc_msg *m)
{
    switch (rc_adv_verdict_for(mc->adv, from, m)) {
    case RC_ADV_PASS: rc_net_send_provider(mc->net, from, body_new(mc, m)); return true;
    case RC_ADV_WITHHOLD: return false;
    case RC_ADV_HOLD: break; /* a source is never delayed (multicast/adversary.h) */
    }
    RC_DCHECK(false, "a delaying member held a message to its provider");
    return false;
}

void rc_mc_provider_send(rc_mc *mc, uint32_t user, const rc_msg *m)
{
    RC_DCHECK(m->recipient < mc->n_users, "recipient %u out of range", m->recipient);
    rc_net_provider_send(mc->net, user, m->recipient, body_new(mc, m));
}

uint64_t rc_mc_timer_reserve(rc_mc *mc) { return rc_sim_reserve(mc->sim); }

bool rc_mc_timer_at(rc_mc *mc, rc_time t, uint64_t seq, uint32_t obj, uint64_t arg)
{
    return rc_sim_at_seq(mc->sim, t, RC_CLS_TIMER, seq, RC_EV_MC_TIMER, obj, arg);
}

void rc_mc_timer(rc_mc *mc, rc_time t, uint32_t obj, uint64_t arg)
{
    rc_mc_timer_at(mc, t < mc->sim->now ? mc->sim->now : t, rc_mc_timer_reserve(mc), obj, arg);
}

uint32_t rc_mc_payload_new(rc_mc *mc, uint32_t group, uint32_t source)
{
    if (mc->pt) {
        mc->ctr.multicasts++;
        mc->ctr.expected_deliveries += mc->size[group] - 1;
        return rc_poptab_payload_new(mc->pt, group, source, mc->sim->now);
    }
    if (mc->n_payloads == mc->cap_payloads) {
        mc->cap_payloads = mc->cap_payloads ? mc->cap_payloads * 2 : 1024;
        mc->payloads = rc_xrealloc(mc->payloads, mc->cap_payloads * sizeof *mc->payloads);
        mc->expected = rc_xrealloc(mc->expected, (size_t)mc->cap_payloads * mc->bytes_per);
        mc->delivered = rc_xrealloc(mc->delivered, (size_t)mc->cap_payloads * mc->bytes_per);
        if (mc->keep_dtime)
            mc->dtime = rc_xrealloc(mc->dtime,
                                    (size_t)mc->cap_payloads * mc->n_users * sizeof(float));
    }
    uint32_t id = mc->n_payloads++;
    mc->payloads[id] = (payload){group, source, mc->sim->now};
    uint8_t *exp = &mc->expected[(size_t)id * mc->bytes_per];
    memset(exp, 0, mc->bytes_per);
    memset(&mc->delivered[(size_t)id * mc->bytes_per], 0, mc->bytes_per);
    const uint32_t *mem = rc_mc_group_members(mc, group);
    for (uint32_t i = 0; i < mc->size[group]; i++)
        if (mem[i] != source) bit_set(exp, mem[i]);
    if (mc->dtime) {
        float *d = &mc->dtime[(size_t)id * mc->n_users];
        for (uint32_t u = 0; u < mc->n_users; u++) d[u] = -1.0f;
        d[source] = (float)((double)mc->sim->now / 1e6);
    }
    u32push(&mc->group_payloads[group], id);
    mc->ctr.multicasts++;
    mc->ctr.expected_deliveries += mc->size[group] - 1;
    if (mc->so_state == 0 && mc->cfg.source_offline[0] != '\0' &&
        (double)mc->sim->now >= mc->so_at * 1e6) {
        mc->so_state = 1;
        mc->so_payload = id;
    }
    return id;
}

uint32_t rc_mc_payload_group(const rc_mc *mc, uint32_t p)
{
    return mc->pt ? rc_poptab_payload_group(mc->pt, p) : mc->payloads[p].group;
}
uint32_t rc_mc_payload_source(const rc_mc *mc, uint32_t p)
{
    return mc->pt ? rc_poptab_payload_source(mc->pt, p) : mc->payloads[p].source;
}
rc_time rc_mc_payload_created(const rc_mc *mc, uint32_t p)
{
    return mc->pt ? rc_poptab_payload_created(mc->pt, p) : mc->payloads[p].created;
}
uint32_t rc_mc_payloads(const rc_mc *mc) { return mc->n_payloads; }

const uint32_t *rc_mc_group_payloads(const rc_mc *mc, uint32_t g, uint32_t *n)
{
    RC_ASSERT(mc->pt == NULL); /* anti-entropy only; not in population mode */
    *n = mc->group_payloads[g].n;
    return mc->group_payloads[g].v;
}

double rc_mc_delivered_at(const rc_mc *mc, uint32_t user, uint32_t p)
{
    RC_ASSERT(mc->dtime != NULL);
    return mc->dtime[(size_t)p * mc->n_users + user];
}

bool rc_mc_app_has(const rc_mc *mc, uint32_t user, uint32_t p)
{
    if (mc->pt) return rc_poptab_has(mc->pt, p, user);
    return bit_get(&mc->delivered[(size_t)p * mc->bytes_per], user);
}

bool rc_mc_app_deliver(rc_mc *mc, uint32_t user, uint32_t p, bool online_label)
{
    if (mc->pt) {
        double lat = (double)(mc->sim->now - rc_poptab_payload_created(mc->pt, p)) / 1e6;
        if (!rc_poptab_deliver(mc->pt, p, user, lat, online_label)) {
            mc->ctr.duplicates++;
            return false;
        }
        mc->ctr.deliveries++;
        mc->ctr.deliveries_online += online_label;
        return true;
    }
    uint8_t *set = &mc->delivered[(size_t)p * mc->bytes_per];
    if (bit_get(set, user)) {
        mc->ctr.duplicates++;
        return false;
    }
    bit_set(set, user);
    if (!bit_get(&mc->expected[(size_t)p * mc->bytes_per], user)) mc->extra_deliveries++;
    if (mc->dtime) mc->dtime[(size_t)p * mc->n_users + user] = (float)((double)mc->sim->now / 1e6);
    /* docs/spec.md §5: first copy only; latency from creation to the pull. */
    double lat = (double)(mc->sim->now - mc->payloads[p].created) / 1e6;
    if (mc->so_state != 0 && mc->cfg.source_offline[0] != '\0' && p == mc->so_payload) {
        uint64_t ms = (uint64_t)llround(lat * 1000);
        mc->ctr.so_delivered++;
        mc->ctr.so_delivered_online += online_label;
        mc->ctr.so_latency_sum_ms += ms;
        if (ms > mc->ctr.so_latency_max_ms) mc->ctr.so_latency_max_ms = ms;
    }
    mc->ctr.deliveries++;
    dpush(&mc->lat_all, lat);
    if (online_label) {
        mc->ctr.deliveries_online++;
        dpush(&mc->lat_online, lat);
    }
    if (mc->cfg.record_deliveries) {
        if (mc->raw.n == mc->raw.cap) {
            mc->raw.cap = mc->raw.cap ? 2 * mc->raw.cap : 4096;
            mc->raw.v = rc_xrealloc(mc->raw.v, mc->raw.cap * sizeof *mc->raw.v);
        }
        mc->raw.v[mc->raw.n++] = (rc_mc_delivery){
            .payload = p,
            .group = mc->payloads[p].group,
            .source = mc->payloads[p].source,
            .recipient = user,
            .created = mc->payloads[p].created,
            .delivered = mc->sim->now,
            .online = online_label ? 1 : 0,
        };
    }
    return true;
}

void rc_mc_multicast(rc_mc *mc, uint32_t group, uint32_t source, uint32_t p)
{
    mc->ops->multicast(mc->strategy, group, source, p);
}

static void collect_adversaries(rc_mc *mc)
{
    rc_adv_counters ac;
    rc_adv_counts(mc->adv, &ac);
    mc->ctr.adv_members = ac.members;
    mc->ctr.adv_withheld = ac.withheld;
    mc->ctr.adv_acks_withheld = ac.acks_withheld;
    mc->ctr.adv_acks_faked = ac.acks_faked;
    mc->ctr.adv_delayed = ac.delayed;
}

void rc_mc_finish(rc_mc *mc, rc_mc_missed_fn missed, void *ctx)
{
    if (mc->ops->finish) mc->ops->finish(mc->strategy, &mc->ctr);
    collect_adversaries(mc);
    if (mc->pt) {
        mc->ctr.undelivered = rc_poptab_finish(mc->pt, missed, ctx);
        rc_net_check_conservation(mc->net);
        RC_DCHECK(mc->ctr.deliveries + mc->ctr.undelivered == mc->ctr.expected_deliveries,
                  "delivery accounting: %llu delivered + %llu undelivered != %llu expected",
                  (unsigned long long)mc->ctr.deliveries, (unsigned long long)mc->ctr.undelivered,
                  (unsigned long long)mc->ctr.expected_deliveries);
        return;
    }
    /* Undelivered: every expected (recipient, payload) pair without a first
     * copy by the end (the data are right-censored there). */
    uint64_t undelivered = 0;
    for (uint32_t p = 0; p < mc->n_payloads; p++) {
        const uint8_t *exp = &mc->expected[(size_t)p * mc->bytes_per];
        const uint8_t *got = &mc->delivered[(size_t)p * mc->bytes_per];
        for (uint32_t b = 0; b < mc->bytes_per; b++) {
            uint8_t miss = (uint8_t)(exp[b] & ~got[b]);
            while (miss) {
                uint32_t u = b * 8 + (uint32_t)__builtin_ctz(miss);
                miss &= (uint8_t)(miss - 1);
                undelivered++;
                if (missed) missed(ctx, mc->payloads[p].group, p, u);
            }
        }
    }
    mc->ctr.undelivered = undelivered;
    rc_net_check_conservation(mc->net);
    /* Every expected (recipient, payload) pair is delivered or undelivered. */
    RC_DCHECK(mc->ctr.deliveries - mc->extra_deliveries + undelivered ==
                  mc->ctr.expected_deliveries,
              "delivery accounting: %llu delivered (%llu unexpected) + %llu undelivered != %llu "
              "expected",
              (unsigned long long)mc->ctr.deliveries, (unsigned long long)mc->extra_deliveries,
              (unsigned long long)undelivered, (unsigned long long)mc->ctr.expected_deliveries);
    if (mc->so_state != 0 && mc->cfg.source_offline[0] != '\0' && mc->so_payload < mc->n_payloads) {
        const uint8_t *exp = &mc->expected[(size_t)mc->so_payload * mc->bytes_per];
        uint64_t e = 0;
        for (uint32_t b = 0; b < mc->bytes_per; b++) e += (uint64_t)__builtin_popcount(exp[b]);
        mc->ctr.so_expected = e;
    }
}

const rc_mc_delivery *rc_mc_deliveries(const rc_mc *mc, size_t *n)
{
    *n = mc->raw.n;
    return mc->raw.v;
}

double *rc_mc_latencies(rc_mc *mc, bool online_only, size_t *n)
{
    dsamples *d = online_only ? &mc->lat_online : &mc->lat_all;
    *n = d->n;
    return d->v;
}

const rc_poptab *rc_mc_poptab(const rc_mc *mc) { return mc->pt; }
