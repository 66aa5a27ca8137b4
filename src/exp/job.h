/* job: one simulation job, the unit the runner schedules and the results key.
 *
 * An rc_job is a flat value struct (no pointers) so it can be copied, sent
 * over MPI as bytes and hashed.  Every field is described by the parameter
 * registry (exp/param.h), which drives defaults, parsing, validation, --help,
 * sweep-file keys, HDF5 attributes and the canonical text that the job id is a
 * hash of.  Quirk switches are tri-state: RC_AUTO means "what --model says".
 */
#ifndef RCSIM_EXP_JOB_H
#define RCSIM_EXP_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define RC_AUTO (-1)

typedef enum { RC_MODEL_EXACT = 0, RC_MODEL_PAPER = 1 } rc_model;
/* The newest population model (rc_job.population_model): what auto resolves to. */
#define RC_POPULATION_MODEL 4
/* auto: full with --anonymity on, else skip (resolved by rc_job_resolve). */
typedef enum { RC_COVER_SKIP = 0, RC_COVER_FULL = 1, RC_COVER_AUTO = 2 } rc_cover_mode;
typedef enum { RC_SERVICE_PLAN = 0, RC_SERVICE_SERVE = 1 } rc_service_mode;

/* The reference simulator's quirks (docs/spec.md §9.1), each a switch.  Resolved
 * values (after rc_job_resolve) are 0 or 1. */
typedef struct rc_quirks {
    int lattice;         /* §1.10/§9.1.3: 10 ms lattice, Bernoulli-per-tick streams, delays
                            truncated to ms and lifted to ticks, one hand-off tick per hop */
    int trace16;         /* §9.1.1: user U_i of every provider gets trace line i (i < 16) */
    int frozen_pull;     /* §9.1.2: pull countdown frozen offline; ONLINE = waited < 1 pull period */
    int ingress_delay;   /* §9.1.4: the sender's provider applies a mixing delay (both models) */
    int arm_once;        /* §9.1.5: RC-FT arms timeouts only for the source's first sends */
    int acks_always;     /* §9.1.6: ACKs are sent even when timeouts are off */
    int seed0_groups;    /* §9.1.7: the reference's groups (Python Random(0).sample) for every job */
    int nonce0_plain;    /* §9.1.8: a source's first multicast (nonce 0) is not shuffled */
    int nonce_perm;      /* §2.3.2: receivers shuffled by CPython's Random(nonce) alone, so all
                            sources' j-th messages share one positional permutation */
} rc_quirks;

typedef struct rc_job {
    /* workload and population */
    int users;                 /* m */
    int group_size;            /* 0 means "= users" */
    int groups;                /* number of groups over the same population */
    char strategy[64];         /* e.g. "unicast", "rc-k2-p2-ft" (multicast/strategy_table.h) */
    int burst;                 /* multicasts per app event (multi-message workload) */
    double app_rate;           /* group events per second, per group */
    double heavy_fraction;     /* first floor(f*|G|) members in group order are heavy */
    double heavy_weight;       /* their weight in the sender choice */
    /* availability */
    char trace[256];           /* "online", a name like "gen_os15"/"os15" or a path */
    char data_dir[256];        /* where trace names are looked up (not part of the job id) */
    /* The trace's identity (trace/trace_id.h), set by rc_job_bind_trace (`rcsim run`,
     * rc_sweep_bind, rc_run_job) from the file itself; not options.  Once bound, these,
     * not the spelling in `trace`, are what the canonical text and the job id contain. */
    char trace_name[64];       /* canonical name ("gen_os15"); "" = not bound */
    char trace_sha256[65];     /* SHA-256 of the decompressed text, hex */
    uint32_t trace_lines;      /* its lines of '0'/'1' */
    /* model */
    rc_model model;
    rc_quirks quirks;
    rc_cover_mode cover;
    double duration_s;         /* simulated span */
    uint64_t seed;
    /* Loopix rates (per second) and topology */
    double rate_payload, rate_drop, rate_loop;   /* lambda_P, lambda_D, lambda_L */
    double rate_delay;                           /* mu: per-hop delay rate */
    double pull_period_s;
    double mix_rate_loop, mix_rate_loop_delay;
    double lambda_div;         /* divides all six Loopix rates (docs/spec.md §1.3, the p-vs-lambda figures) */
    double tick_s;             /* lattice step when quirks.lattice is on */
    int mix_layers, mixes_per_layer, users_per_provider; /* mixes_per_layer RC_MIXES_AUTO: sized */
    /* packets (sub-messages) per second a mix is planned for; with mixes_per_layer
     * auto it chooses the width (docs/spec.md §1.13); 0 = none */
    double mix_capacity;
    /* nodes that serve and mix (docs/spec.md §1.14, §1.15): plan (mix_capacity only
     * sizes the layers) or serve (it is also each mix's service rate, provider_capacity
     * each provider's; queue_limit packets a node holds, drop-tail, 0 = none); the
     * mixes' rule (RC_MIX_, loopix/net.h) with its threshold, period and retained pool */
    int node_service;             /* RC_SERVICE_ */
    double provider_capacity;
    int queue_limit;
    double node_processing_s;     /* serve: a fixed time per sub-message at every node (0 = none) */
    int mix_kind, mix_threshold, mix_pool;
    double mix_period_s;
    /* links and paths (docs/spec.md §1.16, §1.17): a fixed latency per link
     * (s), or per region pair from a file ("" = none); how packets pick mixes
     * (rc_topology: stratified | cascade | free-route) */
    double link_latency_s;
    char link_latency_file[256];
    int topology;
    /* strategy options not expressed in the name */
    double rc_base_delay_factor;  /* docs/spec.md §2.4: factor 2 in t_msg */
    double provider_rate;         /* provider-fanout: packets a provider injects per second (0 = unlimited) */
    /* scenario hooks used by tests and studies */
    char offline_members[128];    /* comma list of group positions forced offline all run */
    char source_offline[64];      /* "" or "AT:FOR" seconds: the first sender goes offline */
    /* anti-entropy reconciliation (multicast/antientropy.h); 0 disables.  Named gossip_*
     * as the parameters are: the names are in every job's id and results. */
    double gossip_interval_s;
    int gossip_push_max;
    double gossip_window_s;       /* digests cover the payloads created this recently */
    /* changing membership: join/leave events per second per group */
    double membership_rate;
    /* misbehaving members (multicast/adversary.h) */
    int adversary;                /* rc_adv_kind: none | drop | ack-drop | delay */
    double adversary_fraction;    /* of the users; never the source of a message */
    double adversary_delay_s;     /* delay kind: extra delay before a forward */
    /* populations (multicast/population.h): 0 = off (the paper's groups) */
    int population;               /* N users in `groups` groups of drawn sizes */
    char group_size_dist[64];     /* fixed:M | zipf:S:MIN:MAX | lognormal:MU:SIGMA */
    /* The population model's version (0 = auto: the newest in population mode,
     * nothing outside it); 3 also schedules each message for its recipient's
     * pull when it leaves (rc_net_cfg.direct_pull), 2 counts busy clients'
     * cover firings in aggregate (rc_net_cfg.aggregate_cover), 1
     * draws each, as before. */
    int population_model;
    /* bandwidth in bytes (docs/spec.md §1.12): the bytes of one sub-message on the wire */
    int packet_size;
    /* the global passive adversary (anon/anonymity.h, docs/spec.md §10) */
    bool anonymity;               /* measure anonymity (implies cover full) */
    double corrupt_mixes;         /* fraction of the mixes the adversary owns */
    double corrupt_providers;     /* fraction of the providers it owns */
    int anon_targets;             /* tracked real sub-messages */
    /* whose messages are tracked: all | G (group index) | largest | size:M (rc_job_anon_group) */
    char anon_group[32];
    char anon_trace[256];         /* "" or a file for the raw observations (output only) */
    int anon_sender;              /* the sender view: 0 auto, 1 dense, 2 log (rc_anon_sender) */
    /* the long-term adversary (anon/disclosure.h, docs/spec.md §11) */
    bool disclosure;
    double disclosure_window_s;   /* arrivals attributed to a multicast this long after it */
    char disclosure_group[32];    /* the target group: G | largest | size:M (rc_job_anon_group) */
    /* output-only options (not part of the job id) */
    bool store_raw;               /* keep raw per-delivery latencies in the result */
    bool check;                   /* run-time invariant checks for this job */
} rc_job;

/* Fills every field with its registry default (paper values, exact model). */
void rc_job_defaults(rc_job *job);

/* Resolves RC_AUTO quirks from the model and the derived defaults
 * (group_size 0 -> users).  Idempotent. */
void rc_job_resolve(rc_job *job);

/* Cross-field validation after resolve: group larger than population, bad
 * strategy name, missing trace, ...  Message names the key.  Returns 0 or
 * RC_EXIT_USAGE.  data_dir is checked only when the trace is a name to look
 * up (not "online", not an existing file). */
int rc_job_validate(const rc_job *job, rc_err *err);

/* Canonical text: "key=value\n" for every parameter that affects results,
 * in registry order, values formatted canonically (%.17g for doubles).  A
 * bound trace appears as "trace=NAME\ntrace_sha256=HEX\ntrace_lines=N\n"
 * whatever its spelling; an unbound one as its spelling.
 * Returns the length written (truncating like snprintf). */
size_t rc_job_canonical(const rc_job *job, char *buf, size_t n);

/* Stable 64-bit id: FNV-1a of the canonical text of the resolved job. */
uint64_t rc_job_id(const rc_job *job);

/* The id as 16 lower-case hex digits plus NUL. */
void rc_job_id_hex(uint64_t id, char out[17]);

/* Population mode's mix rule: at least one mix per this many users in each layer
 * (mixes per layer given as a number; `auto` sizes by mix_capacity instead). */
#define RC_USERS_PER_MIX 1000
/* mixes_per_layer `auto`: the width is the fewest mixes whose planned load fits
 * mix_capacity (rc_job_mixes_per_layer; loopix/net.h, rc_net_width_for_capacity). */
#define RC_MIXES_AUTO 0

/* Model-level derived values. */
int rc_job_group_size(const rc_job *job);

/* anon_group, parsed (docs/spec.md §10.2): which group's messages are tracked. */
typedef enum {
    RC_ANON_GROUP_ALL = 0,     /* every group's */
    RC_ANON_GROUP_INDEX = 1,   /* group `value` (0-based, the job's group order) */
    RC_ANON_GROUP_LARGEST = 2, /* the largest group, the lowest index among equals */
    RC_ANON_GROUP_SIZE = 3,    /* the group whose size is nearest `value`, the lowest index
                                  among equals */
} rc_anon_group_kind;
/* RC_EXIT_USAGE naming anon_group and the value when `text` is none of them. */
int rc_job_anon_group(const char *text, rc_anon_group_kind *kind, uint32_t *value, rc_err *err);
int rc_job_providers(const rc_job *job);
/* Mixes per layer: the number given, or with `auto` the width its capacity gives
 * (0 when none does: rc_job_validate refuses such a job). */
int rc_job_mixes_per_layer(const rc_job *job);
/* Whether the job's nodes serve or batch (node_service serve, mix_kind not poisson):
 * packets then travel hop by hop (loopix/node.c) and need --cover full. */
bool rc_job_nodes(const rc_job *job);

/* Trace lines the job reads: one per user, or with the paper's trace16 quirk
 * one per provider slot (docs/spec.md §9.1.1).  0 for "online". */
size_t rc_job_trace_lines_needed(const rc_job *job);

/* Records a trace's identity in the job (after which rc_job_id includes it). */
struct rc_trace_id;
void rc_job_bind_trace(rc_job *job, const struct rc_trace_id *id);

/* A bound job against the trace file found now: RC_EXIT_USAGE naming both
 * checksums and the path if the content differs (the file changed since the
 * job was bound, or this host sees another file), else 0. */
int rc_job_check_trace(const rc_job *job, const struct rc_trace_id *id, rc_err *err);

/* Reads the job's trace (unless "online") and binds the job to its content
 * (rc_job_bind_trace): 0, or the trace loader's error. */
int rc_job_bind_trace_file(rc_job *job, rc_err *err);

/* The configuration of each model layer, taken from a resolved job: a layer
 * reads only its own struct, and each quirk switch goes to the layer that
 * implements it.  (The structs are defined by the layers' headers.) */
typedef struct rc_net_cfg rc_net_cfg; /* loopix/net.h */
typedef struct rc_mc_cfg rc_mc_cfg;   /* multicast/mc.h */
typedef struct rc_app_cfg rc_app_cfg; /* workload/app.h */
void rc_job_net_cfg(const rc_job *job, rc_net_cfg *out);
void rc_job_mc_cfg(const rc_job *job, rc_mc_cfg *out);
void rc_job_app_cfg(const rc_job *job, rc_app_cfg *out);

#endif
