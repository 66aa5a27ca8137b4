/* net: the Loopix mix-network model on the engine (docs/spec.md §1).
 *
 * Clients with a payload stream, drop and loop cover streams (rates x p), an
 * unbounded send queue (out_buffer) and a bundling queue (waiting) that emits
 * one packet per p sub-messages; providers that store messages in postboxes
 * until the client pulls (every pull period of online time); layered mixes
 * with exponential per-hop delays; availability from traces.
 *
 * The net carries opaque real messages: a recipient and a 32-bit body handle
 * owned by the layer above (the multicast layer).  It reports three things
 * upwards through rc_net_hooks: a real message left its sender in a bundle
 * (sent), a client pulled a message (deliver, with the ONLINE/OFFLINE label
 * of docs/spec.md §1.7), and a client went on- or offline.  It knows nothing of
 * groups or strategies.
 *
 * Only what shapes latency is simulated by default: cover sub-messages are
 * counted where they occupy bundle slots (docs/spec.md §1.6), but not routed; idle
 * clients' cover streams are skipped and their bundling state is sampled from
 * its stationary law when they become busy (docs/architecture.md explains why
 * this is exact in distribution).  cover=full routes every cover packet and
 * every mix loop through the mixes instead.
 *
 * The code follows Loopix's actors: client.c (streams, bundling), provider.c
 * (postboxes, pulls), mix.c (per-hop delays, cover traffic through the mixes)
 * and net.c (construction, availability); loopix/net_internal.h is what they
 * share.
 */
#ifndef RCSIM_LOOPIX_NET_H
#define RCSIM_LOOPIX_NET_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "core/sim.h"
#include "trace/avail.h"

typedef struct rc_net rc_net;
typedef struct rc_linkmap rc_linkmap;

/* How packets choose their mixes (docs/spec.md §1.17, "Topologies"). */
typedef enum {
    RC_TOPO_STRATIFIED = 0, /* one mix of each layer, uniformly (Loopix; the default) */
    RC_TOPO_CASCADE = 1,    /* a packet picks one of mixes_per_layer fixed chains uniformly;
                               chain c is mix c of every layer */
    RC_TOPO_FREE_ROUTE = 2, /* every hop any mix of the network, uniformly */
} rc_topology;

/* The net's event kinds (core/sim.h): the lowest layer with events, it numbers
 * from RC_SIM_KIND_FIRST; the layers above number on from RC_NET_KINDS_END. */
enum {
    RC_EV_PULL = RC_SIM_KIND_FIRST, /* a client pulls (provider.c; the calendar kind) */
    RC_EV_STREAM,    /* a client's stream firings (client.c) */
    RC_EV_AVAIL,     /* a trace toggle (net.c) */
    RC_EV_COVER_HOP, /* a cover packet's hop (mix.c) */
    RC_EV_MIX_LOOP,  /* a mix sends a mix loop (mix.c) */
    RC_EV_FORCE,     /* a forced-offline window starts or ends (net.c) */
    RC_EV_RELAY,     /* a message reaches its sender's provider (provider.c) */
    RC_EV_NODE,      /* a packet reaches a node that serves or batches (node.c) */
    RC_NET_KINDS_END
};
_Static_assert(RC_NET_KINDS_END <= RC_SIM_MAX_KINDS, "the net's event kinds fit the engine");

/* How a mix lets packets go (docs/spec.md §1.15). */
enum { RC_MIX_POISSON = 0, RC_MIX_THRESHOLD = 1, RC_MIX_TIMED = 2, RC_MIX_POOL = 3 };

/* What the network reads of a job (exp/ fills it from the job's parameters;
 * docs/spec.md §1).  Rates are as the job gives them: the net applies x p and
 * / lambda_div itself.  Quirk switches are resolved: 0 or 1. */
typedef struct rc_net_cfg {
    uint64_t seed;
    int users, users_per_provider; /* providers filled greedily (docs/spec.md §1.1) */
    int mix_layers, mixes_per_layer;
    double rate_payload, rate_drop, rate_loop; /* lambda_P, lambda_D, lambda_L per client */
    double rate_delay;                         /* mu: per-hop delay rate */
    double mix_rate_loop, mix_rate_loop_delay; /* --cover full only */
    double lambda_div;                         /* divides all six rates */
    double pull_period_s;
    double tick_s;      /* lattice step when `lattice` is on */
    bool cover_full;    /* route every cover packet and mix loop through the mixes */
    bool lattice;       /* §9.1.3: 10 ms lattice, per-tick streams, delays lifted to ticks */
    bool trace16;       /* §9.1.1: user U_i of every provider gets trace line i */
    bool frozen_pull;   /* §9.1.2: pull countdown frozen offline; ONLINE = waited < 1 period */
    bool ingress_delay; /* §9.1.4: the sender's provider applies a mixing delay */
    /* Packets a provider injects into the mixes per second on behalf of a
     * strategy (rc_net_provider_send), one after the other; 0 = unlimited. */
    double provider_rate;
    /* Population model 2 (docs/performance.md): where a busy client's
     * drop and loop firings can never take a real message's bundle slot (p = 1,
     * continuous time, cover=skip, no wire observer; the net checks), they are
     * counted in aggregate, one Poisson draw per stretch of firings, instead of
     * drawn one by one, and a packet's per-hop delays are drawn as their sum.
     * The same laws, other draws: off reproduces model 1 draw for draw. */
    bool aggregate_cover;
    /* Population model 3 (docs/performance.md): where a client's
     * pulls keep one phase for the whole run (continuous time, pull countdown
     * not frozen, no wire observer; the net checks), a message is scheduled
     * for its recipient's first pull after its arrival when it leaves its
     * sender, as an event of its own, instead of being filed in the
     * recipient's postbox; it goes to the postbox only if the recipient was
     * offline at some time between its arrival and that pull.  The same pull
     * instants and labels; messages that one pull takes are handed over in
     * the order they left their senders instead of the order they arrived. */
    bool direct_pull;
    /* Population model 4 (docs/beyond.md, "Population models"): with
     * direct_pull, the messages one pull takes are handed over in the order
     * they arrived (then the order they were filed), as model 2 does: their
     * events are ordered by arrival within the pull's instant. */
    bool direct_arrival_order;
    /* Nodes that serve and mix (docs/spec.md §1.14, §1.15; node.c).  All zero:
     * no node has a capacity and mixes are Poisson, the model above.  Service
     * rates in sub-messages per second (before / lambda_div; 0 = infinite);
     * at most queue_limit packets in a serving node, drop-tail (0 = no
     * limit); the mixes' rule (RC_MIX_) with its threshold n, retained pool
     * f and period T.  Any of them set needs cover_full (every packet loads
     * the nodes). */
    double mix_service_rate, provider_service_rate;
    int queue_limit;
    /* a fixed time per sub-message every node spends on a packet, before its
     * exponential service (s; 0 = none) */
    double node_processing_s;
    int mix_kind, mix_threshold, mix_pool;
    double mix_period_s;
    /* Link latency (docs/spec.md §1.16): every link -- client to provider,
     * provider to mix, mix to mix, mix to provider, and a pull's answer from
     * provider to client -- takes link_latency_s, or with link_map the
     * latency between the regions of its two ends (lifted to ticks on the
     * lattice).  0 and NULL: links take no time (the paper's model). */
    double link_latency_s;
    const rc_linkmap *link_map; /* read while the net lives; the caller owns it */
    rc_topology topology;
} rc_net_cfg;

/* What the network counts; the net owns them (rc_net_counts).  The fields
 * before real_packets are the NET rows of multicast/counters.def, which
 * exp/result copies into the job's result under the same names; exp/result.c
 * checks at compile time that they and the rows are the same set. */
typedef struct rc_net_counters {
    uint64_t bundles;       /* packets (bundles of p sub-messages) emitted */
    uint64_t cover_packets; /* cover sub-messages (drop/loop) that left a client */
    uint64_t pulls;         /* pulls that found something */
    uint64_t mix_packets;   /* packets through mixes, cover_full only */
    uint64_t payload_slots; /* payload-stream firings simulated (every one with cover_full) */
    /* nodes with a finite service rate (node.c): packets served, dropped by a
     * full node, and the sums of their waits before service and their service
     * times (microseconds) */
    uint64_t node_served, node_drops, node_wait_us, node_service_us;
    /* ... the longest wait, and the packets carrying a real message and their waits'
     * sum (a burst of real packets queues behind itself) */
    uint64_t node_wait_max_us, node_real_served, node_real_wait_us;
    /* not reported themselves: traffic.c's summary reads them (docs/spec.md §1.12) */
    uint64_t real_packets;  /* real sub-messages (payload, ACK, repair) that left a client */
    uint64_t online_us;     /* client-microseconds online, up to the last availability change */
} rc_net_counters;

/* What the wire carries, as a global observer would measure it
 * (loopix/traffic.c; docs/spec.md §1.12 defines every field and says which
 * are counted and which are expectations under cover=skip).  Rates are per
 * second of simulated time; "per client" means per client-second online. */
typedef struct rc_net_traffic {
    double bw_online_client_s;     /* client-seconds online */
    double bw_payload_pps;         /* real sub-messages per client per second */
    double bw_cover_pps;           /* drop + loop + payload-stream cover sub-messages, likewise */
    double bw_cover_used;          /* real share of the payload-stream slots */
    double bw_mix_load_mean_pps;   /* sub-messages a mix receives per second, mean over mixes */
    double bw_mix_load_max_pps;    /* ... the busiest mix (NaN unless counted) */
    /* unobservability (NaN unless counted): the departures (bundles) of the clients the
     * layer above marked active (rc_net_mark_active: group members) and of the others */
    uint64_t unobs_active_gaps, unobs_idle_gaps; /* inter-departure gaps seen in each class */
    double unobs_active_rate_pps, unobs_idle_rate_pps; /* departures per second in each */
    double unobs_ks, unobs_ks_crit05; /* two-sample KS statistic of the gaps, 5 % critical */
    /* what a provider sees: real messages per pull of an online active client (of every
     * client when none is marked) */
    double unobs_real_per_pull_mean, unobs_real_per_pull_max, unobs_pulls_nonempty;
    /* (the fields above are the TRAFFIC rows of multicast/counters.def, checked
     * at compile time in exp/result.c; the ones below are not reported) */
    bool counted;                  /* cover_full: every cover figure is a count */
} rc_net_traffic;

enum { RC_NET_PREFETCH_SEND = 2 }; /* rc_net_hooks.prefetch: the send queue's stage */

typedef struct rc_net_hooks {
    void *ctx;
    void (*sent)(void *ctx, uint32_t user, uint32_t body, rc_time now);
    void (*deliver)(void *ctx, uint32_t user, uint32_t body, bool online_label, rc_time now);
    void (*online)(void *ctx, uint32_t user, bool online, rc_time now);
    /* Optional observer: a real message reached its recipient's postbox
     * (emitted = when its bundle left the sender).  Tests use it. */
    void (*arrived)(void *ctx, uint32_t user, uint32_t body, rc_time emitted, rc_time now);
    /* Optional hint: `body` will be sent or pulled soon (the upper layer may prefetch
     * what `sent` or `deliver` will read).  A saturated client's queue holds thousands of
     * messages made long ago; their records are cold by the time they leave.  stage
     * RC_NET_PREFETCH_SEND: it leaves soon (what `sent` reads); for a pull, stage 1: the
     * body's record, then stage 0 (a little later): what that record points to. */
    void (*prefetch)(void *ctx, uint32_t body, unsigned stage);
    /* A message sent with rc_net_send_provider reached the sender's provider
     * (at the engine's now).  Needed only by strategies that use providers. */
    void (*relay)(void *ctx, uint32_t user, uint32_t body);
    /* Optional hint: `user` will pull soon; stage 1 first, then 0 (the upper layer may
     * prefetch its per-user state in two dependent steps). */
    void (*prefetch_user)(void *ctx, uint32_t user, unsigned ahead);
} rc_net_hooks;

/* ---------- the wire (optional observer) ----------
 *
 * What a global passive observer sees (docs/spec.md §10): every packet's
 * passage over every link, with node ids and exact times, reported as the net
 * decides it (a real bundle's whole path when it leaves its sender, a mix
 * loop's next hop at each hop).  Attached with rc_net_observe before
 * rc_net_start; without it the net does none of this work.  Observing routes
 * what --cover full routes, with the cover sub-messages of a bundle inside
 * their bundle (as on a real wire) instead of as packets of their own, and
 * draws mixes and cover destinations from a stream of its own: latencies keep
 * their law, not their samples.
 *
 * Node ids: clients 0 .. users-1, then providers, then mixes layer by layer
 * (rc_net_node_provider, rc_net_node_mix). */
#define RC_WIRE_NONE UINT64_MAX

typedef enum {
    RC_WIRE_LINK = 0,   /* `packet` left `from` at `sent` and reached `to` at `received` */
    RC_WIRE_CREATE = 1, /* `packet` appeared at mix `from` (= `to`) at `sent`: a mix loop */
    RC_WIRE_END = 2,    /* `packet` (a mix loop) came back to its mix `to` at `received` */
    RC_WIRE_PULL = 3,   /* client `to` pulled real sub-message `body` from provider `from` */
} rc_wire_kind;

typedef struct rc_wire_link {
    rc_wire_kind kind;
    uint64_t packet;        /* wire id, unique within the job (0, 1, ...) */
    uint64_t parent;        /* the bundle this packet was split from at `from`, or RC_WIRE_NONE */
    uint32_t from, to;      /* node ids */
    rc_time sent, received; /* received >= sent (one lattice tick apart in the paper model) */
    uint32_t split;         /* `to` splits the packet into this many (the last mix layer), else 1 */
    uint32_t body;          /* a real sub-message it carries alone (after a split, and pulls),
                               else UINT32_MAX */
    uint32_t sender;        /* the client that emitted it (bundles and their parts), else UINT32_MAX */
    bool exits;             /* `to` is the provider at the end of a path through the mixes */
    bool real;              /* it carries a real sub-message: for checking only */
    /* every report of this packet, and of its parts, comes one after another,
     * with no other packet's between them (a bundle or a provider's packet
     * walked whole, wire.c); false: it may be reported again later */
    bool whole;
} rc_wire_link;

typedef struct rc_net_wire {
    void *ctx;
    void (*link)(void *ctx, const rc_wire_link *l);
    /* A real sub-message (`body`, from `sender` to `recipient`) left in bundle `packet`. */
    void (*carry)(void *ctx, uint64_t packet, uint32_t body, uint32_t sender, uint32_t recipient,
                  rc_time now);
} rc_net_wire;

/* Attaches the observer (call once, before rc_net_start; cfg->cover_full must be on). */
void rc_net_observe(rc_net *n, rc_net_wire wire);
/* Whether an observer is attached (it tells messages apart by their body handles). */
bool rc_net_observed(const rc_net *n);
uint32_t rc_net_providers(const rc_net *n);
uint32_t rc_net_mix_layers(const rc_net *n);
uint32_t rc_net_mixes_per_layer(const rc_net *n);
uint32_t rc_net_node_provider(const rc_net *n, uint32_t provider);
uint32_t rc_net_node_mix(const rc_net *n, uint32_t layer, uint32_t index);
uint32_t rc_net_nodes(const rc_net *n); /* clients + providers + mixes */
/* The latency of the link from node `from` to node `to` (us, docs/spec.md §1.16). */
rc_time rc_net_link_latency(const rc_net *n, uint32_t from, uint32_t to);
rc_topology rc_net_topology(const rc_net *n);
/* Whether the sender's provider delays packets (cfg->ingress_delay). */
bool rc_net_provider_mixes(const rc_net *n);

/* Builds the network (cfg is read here only).  `trace` may be NULL (all online).
 * `forced_offline` (may be NULL) marks users that are offline all run.
 * `split` is the p of the job's strategy (cover rates are multiplied by it). */
rc_net *rc_net_new(rc_sim *sim, const rc_net_cfg *cfg, const rc_trace *trace, int split,
                   const bool *forced_offline, rc_net_hooks hooks);
void rc_net_free(rc_net *n);

/* Schedules the initial events (availability, streams).  Call once before running. */
void rc_net_start(rc_net *n);

/* Appends a real message for `recipient` to `user`'s send queue. */
void rc_net_send(rc_net *n, uint32_t user, uint32_t recipient, uint32_t body);

/* Appends a message for `user`'s own provider to `user`'s send queue: it
 * takes a payload slot like any message, and its packet ends at the provider
 * (after the ingress hop's hand-off and, with ingress_delay, its mixing delay),
 * where the relay hook gets it. */
void rc_net_send_provider(rc_net *n, uint32_t user, uint32_t body);
/* `user`'s provider sends a message for `recipient` into the mixes now: the
 * next free injection slot of that provider (provider_rate), then every mix
 * layer's hop, then the recipient's postbox, as any packet's last hops. */
void rc_net_provider_send(rc_net *n, uint32_t user, uint32_t recipient, uint32_t body);

bool rc_net_online(const rc_net *n, uint32_t user);
/* Forces `user` offline during [from, until), whatever its trace says. */
void rc_net_force_offline(rc_net *n, uint32_t user, rc_time from, rc_time until);
uint32_t rc_net_users(const rc_net *n);
/* The lattice step in microseconds (1 when the lattice quirk is off). */
rc_time rc_net_tick(const rc_net *n);
/* Messages still queued at clients or waiting in postboxes (for accounting). */
uint64_t rc_net_backlog(const rc_net *n);
/* Run-time check (RC_DCHECK): every message is pulled or still held. */
void rc_net_check_conservation(const rc_net *n);

/* The network's expected per-hop delay (s) and the timeout estimate inputs
 * (docs/spec.md §2.4): mix layers + 1 hops. */
double rc_net_mean_hop_delay_s(const rc_net *n);
double rc_net_payload_rate(const rc_net *n); /* lambda_P x p (after lambda_div) */
uint32_t rc_net_hops(const rc_net *n);       /* mix layers + 1 */
/* The links a message crosses from its sender until its recipient holds it
 * (layers + 3, docs/spec.md §1.16) times the longest link: the fixed
 * latency, or with a map its largest region pair (s; 0 without links). */
double rc_net_path_link_latency_s(const rc_net *n);

/* The counters so far (final after the run). */
const rc_net_counters *rc_net_counts(const rc_net *n);
/* Marks `user` as active for the unobservability figures (the multicast layer
 * marks its group members before rc_net_start); the others are idle users. */
void rc_net_mark_active(rc_net *n, uint32_t user);
/* The traffic figures at the end of the run (call after rc_sim_run). */
void rc_net_traffic_summary(const rc_net *n, rc_net_traffic *out);

/* ---------- planning: mixes sized with the load (docs/spec.md §1.13) ----------
 *
 * The load a mix is planned for, in sub-messages per second (the unit of
 * bw_mix_load_mean_pps): every one of cfg->users clients online and sending
 * its nominal (lambda_P + lambda_D + lambda_L) * split / lambda_div, each
 * sub-message crossing one mix of every layer, spread evenly over `width`
 * mixes, plus the loops of the mixes (lambda_M / lambda_div each, visiting one
 * mix of every layer): users * client / width + layers * lambda_M / lambda_div.
 * Nominal rates in both models (the lattice only lowers them), and no
 * provider fan-out copies (workload, not Loopix rates).  It only sizes the
 * network: no node has a service rate, so nothing queues at any load. */
double rc_net_planned_mix_load(const rc_net_cfg *cfg, int split, int width);
/* The fewest mixes per layer (1 .. max_width) whose planned load is at most
 * `capacity`; 0 when none is: the capacity is at most the mixes' own loops
 * (layers * lambda_M / lambda_div), not finite or positive, or the width
 * needed is above max_width. */
int rc_net_width_for_capacity(const rc_net_cfg *cfg, int split, double capacity, int max_width);

#endif
