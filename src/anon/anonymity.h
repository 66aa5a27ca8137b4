/* anonymity: a global passive adversary watching the Loopix wire
 * (docs/spec.md §10).
 *
 * It sees every link with exact times (loopix/net.h, "the wire") and owns a
 * seeded fraction of the mixes and of the providers.  Each packet carries the
 * adversary's probability that it holds each tracked message (sparse: most
 * carry none) and its estimate of which client sent it (dense up to
 * RC_ANON_SENDER_MAX_USERS users; above, a reference into a log of the pools'
 * events, read backward at a tracked message's exit).  An honest mixing node keeps the sums of
 * what its pool holds, and a packet leaving it takes the pool's mean (its
 * delays are exponential, so every pooled packet is equally likely to be the
 * one leaving); a corrupted node, and a provider that adds no delay, pass a
 * packet's own estimate through.  Where a packet leaves the mixes (reaches a
 * provider from the last layer) its probabilities add to the tracked
 * messages' entropies.
 *
 * The observer attaches itself to the net's wire hooks; the net knows nothing
 * of it.  Memory: the packets between two of their observed events, pools
 * over the tracked messages (dense per mixing node), sender estimates.
 */
#ifndef RCSIM_ANON_ANONYMITY_H
#define RCSIM_ANON_ANONYMITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/sim.h"
#include "loopix/net.h"

/* Up to this many users the sender view is dense vectors carried by packets;
 * above it, a log of the pools read backward from each tracked exit
 * (anon_sender.c, docs/spec.md §10.4). */
#define RC_ANON_SENDER_MAX_USERS 1024

/* How the sender view is computed: dense up to RC_ANON_SENDER_MAX_USERS
 * users, else the log (auto); or one of them (the same values to ~1e-12). */
typedef enum { RC_ANON_SENDER_AUTO = 0, RC_ANON_SENDER_DENSE = 1, RC_ANON_SENDER_LOG = 2 } rc_anon_sender;

/* Warm-up and cool-down, in mean path delays (hops / mu) (docs/spec.md §10.2). */
#define RC_ANON_SETTLE_PATHS 10.0

typedef struct rc_anon_cfg {
    uint64_t seed;
    double corrupt_mixes, corrupt_providers; /* fractions, rounded to whole nodes */
    uint32_t targets;                        /* tracked real sub-messages wanted */
    const char *trace_path;                  /* NULL or "": no observation file */
    rc_anon_sender sender;                   /* the sender view's method */
    /* NULL: every real sub-message is a candidate for tracking; else only those
     * it accepts (a target group's, docs/spec.md §10.2), by their body handle. */
    bool (*candidate)(void *ctx, uint32_t body);
    void *candidate_ctx;
    /* true: follow every message the sample holds at its sending, without
     * looking ahead at the keys (docs/spec.md §10.2); the run after a miss */
    bool no_lookahead;
} rc_anon_cfg;

/* One tracked message, measured where it left the mixes. */
typedef struct rc_anon_record {
    uint32_t target;       /* 0, 1, ... in order of sending */
    uint32_t sender, recipient;
    uint32_t pad;
    double sent_s;         /* its bundle left the sender */
    double latency_s;      /* to its recipient's pull; NaN if not pulled by the end */
    double entropy_bits;   /* H over the packets that left the mixes */
    double min_entropy_bits;
    double sender_entropy_bits;
    double mass;           /* its probability that left the mixes by the end (about 1) */
} rc_anon_record;

typedef struct rc_anon_summary {
    uint64_t targets; /* tracked messages measured */
    double entropy_mean_bits, entropy_median_bits, entropy_p5_bits;
    double min_entropy_mean_bits, sender_entropy_mean_bits;
    uint64_t corrupt_mixes, corrupt_providers;
    /* unlinkability of two challenge senders (docs/spec.md §10.4): epsilon's
     * mean and 95th percentile over the messages where both are possible, and
     * delta, the share where one of them is impossible */
    double eps_mean, eps_p95, delta;
} rc_anon_summary;

typedef struct rc_anon rc_anon;

/* Attaches an observer to `net` (built with cover_full, not started).
 * Opens the observation file if one is asked for: NULL with `err` set when it
 * cannot be created. */
rc_anon *rc_anon_new(rc_sim *sim, rc_net *net, const rc_anon_cfg *cfg, rc_err *err);

/* After the run: processes what happened before the stop time, writes and
 * closes the observation file.  Returns 0 or an exit code with `err` set. */
int rc_anon_finish(rc_anon *a, rc_err *err);

void rc_anon_summarize(const rc_anon *a, rc_anon_summary *out);
/* After rc_anon_finish: true if the keys known ahead left out a message the
 * final sample measures (the run had fewer candidates than assumed,
 * docs/spec.md §10.2).  The results are then incomplete: the caller runs the
 * job again with no_lookahead, which always gives the sample in full. */
bool rc_anon_sample_missed(const rc_anon *a);
/* The measured tracked messages (valid until rc_anon_free). */
const rc_anon_record *rc_anon_records(const rc_anon *a, size_t *n);

void rc_anon_free(rc_anon *a);

#endif
