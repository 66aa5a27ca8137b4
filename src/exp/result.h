/* result: what one job produces, independent of how it was run.
 *
 * The latency distribution is kept three ways: exact summary statistics
 * (computed from every sample at the end of the job), a fixed-edge histogram
 * (10 ms bins up to 100 s, then 1 % log bins up to 1e6 s: exact for the
 * paper's 10 ms lattice and a few kB compressed), and optionally the raw
 * per-delivery latencies (job.store_raw).  "online" is the online-only subset
 * that every paper figure uses (docs/spec.md §5); "all" is every first delivery.
 *
 * Ownership: rc_result owns its arrays; rc_result_free releases them.
 * rc_result_pack/unpack give a flat byte image for MPI (the farm) and the
 * resume journal; the image starts with a layout version.
 */
#ifndef RCSIM_EXP_RESULT_H
#define RCSIM_EXP_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define RC_RESULT_LAYOUT 2 /* 2: the build that ran the job */

/* Histogram edges (seconds): [0, 0.01, ..., 100.0] linear (10000 bins), then
 * log bins of ratio 1.01 up to >= 1e6 s, then one overflow bin. */
#define RC_HIST_LINEAR_BINS 10000
#define RC_HIST_LOG_BINS 926
#define RC_HIST_BINS (RC_HIST_LINEAR_BINS + RC_HIST_LOG_BINS + 1)

/* Which quantiles the summary holds, in this order. */
#define RC_SUMMARY_QUANTILES 10
extern const double rc_summary_q[RC_SUMMARY_QUANTILES]; /* 0.01 0.05 0.10 0.25 0.50 0.75 0.90 0.95 0.99 0.999 */
extern const char *const rc_summary_q_names[RC_SUMMARY_QUANTILES]; /* "p1","p5",... */

typedef struct rc_summary {
    uint64_t count;
    double mean_s, sd_s, min_s, max_s;
    double q[RC_SUMMARY_QUANTILES]; /* linear interpolation like numpy.percentile */
} rc_summary;

/* The job's counters, gathered from the layers that count them: the engine
 * (events), the network (rc_net_counters: bundles, cover_packets, pulls,
 * mix_packets), the multicast layer (rc_mc_counters: the rest) and the run
 * itself (wall_s, sim_s, peak_rss_kb).  The field names are the output names
 * (HDF5 counter_*, --json). */
typedef struct rc_counters {
    uint64_t events;              /* engine events processed */
    uint64_t multicasts;          /* payloads created by the apps */
    uint64_t deliveries;          /* first receipts (recipient, payload) */
    uint64_t deliveries_online;   /* ... of which marked DELIVERED_ONLINE */
    uint64_t duplicates;          /* later copies (already_seen) */
    uint64_t expected_deliveries; /* recipients x payloads */
    uint64_t undelivered;         /* (recipient, payload) pairs not delivered by the end */
    uint64_t payload_packets;     /* real payload sub-messages that left a client */
    uint64_t ack_packets;         /* ACK sub-messages that left a client */
    uint64_t repair_packets;      /* reconciliation digests and pushes (issue 8) */
    uint64_t cover_packets;       /* cover sub-messages (drop/loop) that left a client */
    uint64_t bundles;             /* packets (bundles of p sub-messages) emitted */
    uint64_t reassignments;       /* RC-FT role reassignments */
    uint64_t timeouts;            /* RC-FT timeouts that fired */
    uint64_t pulls;               /* pulls that found something */
    uint64_t mix_packets;         /* packets through mixes, --cover full only */
    uint64_t joins, leaves;       /* membership changes (membership_rate > 0) */
    uint64_t repairs;             /* payloads first delivered by anti-entropy */
    /* source_offline scenario: the multicast whose source went offline */
    uint64_t so_expected, so_delivered, so_delivered_online;
    uint64_t so_latency_sum_ms, so_latency_max_ms;
    double wall_s;                /* wall time of the simulation */
    double sim_s;                 /* simulated span */
    uint64_t peak_rss_kb;         /* peak resident set of the process after the job */
} rc_counters;

typedef struct rc_undelivered {
    uint32_t group, nonce, recipient; /* recipient = user index */
} rc_undelivered;

#define RC_UNDELIVERED_MAX 1000 /* the list is capped; the counter is not */

typedef struct rc_result {
    uint64_t job_id;
    char build_id[17];                /* core/build.h id of the binary that ran the job */
    char build_revision[64];          /* ... and its git revision (truncated) */
    rc_counters c;
    rc_summary online, all;
    uint32_t *hist_online, *hist_all; /* RC_HIST_BINS each */
    float *raw_online;                /* seconds, delivery order; NULL unless store_raw */
    size_t n_raw;
    rc_undelivered *undelivered;      /* up to RC_UNDELIVERED_MAX */
    size_t n_undelivered;
} rc_result;

void rc_result_init(rc_result *r);   /* zeroes and allocates the histograms */
void rc_result_free(rc_result *r);

/* Histogram geometry: bin of a latency, and the lower edge of bin i
 * (edge RC_HIST_BINS-1 is the overflow's lower edge). */
size_t rc_hist_bin(double latency_s);
double rc_hist_edge(size_t i);

/* Summary from a sample array (sorted in place). */
void rc_summary_compute(rc_summary *s, double *samples, size_t n);

/* Gathers a finished job's model outputs into r (rc_result_init'ed by the
 * caller): ends the multicast layer's run (rc_mc_finish), keeps the first
 * RC_UNDELIVERED_MAX undelivered pairs, copies the network's and the
 * multicast layer's counters into r->c, and turns the latency samples into
 * histograms, summaries and (keep_raw) the raw online array.  The engine's
 * and the run's own counters (events, sim_s, wall_s, peak_rss_kb) are the
 * caller's to set. */
typedef struct rc_mc rc_mc;
void rc_result_gather(rc_result *r, rc_mc *mc, bool keep_raw);

/* Flat image for MPI and the journal.  pack allocates *buf (free()). */
void rc_result_pack(const rc_result *r, void **buf, size_t *len);
int rc_result_unpack(rc_result *r, const void *buf, size_t len, rc_err *err);

#endif
