/* disclosure: the adversary who watches for months (docs/spec.md §11,
 * docs/disclosure.md).
 *
 * A long-term observer that accumulates, over a whole run and in aggregated
 * counts (memory linear in the users and the target group, no logs), what a
 * coalition sees:
 *   - the global passive view of the links: when each client is online
 *     (its sends and pulls run at constant rates while it is, so they carry
 *     nothing else: Loopix's design);
 *   - corrupted providers (a seeded fraction): the real sub-messages reaching
 *     each of their clients' postboxes and when (a pull hands over no more
 *     than what reached the postbox before it, so the estimators read the
 *     arrivals), and (provider fan-out) the messages their clients address
 *     to the provider itself;
 *   - corrupted mixes (a seeded fraction): their input-to-output links.  A
 *     sub-message whose every mix is corrupted is linked from the client that
 *     sent it (through its own provider, which must be corrupted too where it
 *     delays packets like a mix: --q-ingress-delay) to the provider it reaches: where that provider is corrupted too, the
 *     adversary knows who sent the real message it files, and when.  The net
 *     draws no mixes in most models, so the observer draws each such
 *     sub-message's path itself (one mix per layer, uniformly, on a stream of
 *     its own: Loopix's stratified routing).
 * It scores two attacks against the model's truth, which the layer above
 * (multicast, through exp/run.c) hands in with rc_disc_member and
 * rc_disc_multicast: which users are in the target group, and which member
 * sent each of its multicasts.  The adversary is granted the times of the
 * target group's multicasts (as the statistical disclosure attack is
 * granted the rounds in which its target sends) and, for the source attack,
 * the group's membership.
 *
 * Besides the window counts the estimators read the order of the members'
 * first arrivals in a window (the source posterior), the real sub-messages an
 * offline user's comeback pull holds, and linked messages at both their ends
 * (the membership score): docs/spec.md §11.3.
 *
 * The estimators are plain functions of the counts (rc_disc_membership_eval
 * below and the source posterior in disclosure.c) so that a test can feed
 * them textbook rounds directly.
 */
#ifndef RCSIM_ANON_DISCLOSURE_H
#define RCSIM_ANON_DISCLOSURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/sim.h"

typedef struct rc_disc rc_disc;

typedef struct rc_disc_cfg {
    uint64_t seed;            /* the job seed (the corrupted providers: a stream of their own) */
    uint32_t users, providers;
    const uint32_t *provider_of; /* users entries; copied */
    double corrupt_providers; /* fraction, rounded to whole providers */
    rc_time window;           /* how long after a multicast its arrivals are attributed to it */
    double corrupt_mixes;     /* fraction of all mixes, rounded to whole mixes */
    uint32_t mix_layers, mixes_per_layer;
    bool provider_mixes;      /* the sender's provider delays (mixes): it must be corrupted too */
} rc_disc_cfg;

/* A sender the observer cannot link (rc_disc_arrived). */
#define RC_DISC_UNLINKED UINT32_MAX

/* What one job's adversary achieved (NaN where undefined). */
typedef struct rc_disc_summary {
    uint64_t multicasts;       /* target-group multicasts observed */
    uint64_t corrupt_providers;
    uint64_t corrupt_mixes;
    uint64_t linked;           /* arrivals observed whose sender was linked through the mixes */
    double membership_auc;     /* P(score of a member > score of a non-member), ties 1/2 */
    double membership_precision, membership_recall; /* of the top m (m = group size) */
    double multicasts_to_90;   /* first count at which both reached 0.9; NaN if never */
    double source_top1;        /* mean over multicasts of P(first guess = source) */
    double source_entropy_bits; /* mean entropy of the source posterior */
} rc_disc_summary;

/* One point of the learning curve (stored with store_raw): what the adversary
 * has after `multicasts` multicasts of the target group, at the start of the
 * next (or at the end of the run).  The checkpoints are every multicast up to
 * 64, then 32 per doubling, and the end (docs/spec.md §11.3). */
typedef struct rc_disc_point {
    uint32_t multicasts;
    uint32_t pad;
    double time_s;    /* simulated time of the checkpoint */
    double precision; /* of the top m */
    double recall;    /* of the top m (= precision: the top m has m users) */
    double auc;       /* the membership ranking's AUC */
    double source_top1, source_entropy_bits; /* means over the multicasts closed so far (NaN: none) */
} rc_disc_point;

rc_disc *rc_disc_new(const rc_disc_cfg *cfg);
void rc_disc_free(rc_disc *d);

/* Truth, from the layer above: `user` is in the target group (before the run). */
void rc_disc_member(rc_disc *d, uint32_t user);
/* The users online at time 0 (after the net started). */
void rc_disc_start(rc_disc *d, const bool *online);

/* Observations, in time order (but rc_disc_arrived). */
void rc_disc_online(rc_disc *d, uint32_t user, bool online, rc_time now);
/* A real sub-message reaches `user`'s postbox at `at` (which may be ahead of
 * the run: it is taken in time order).  `sender` is the client that sent it
 * at `sent` (RC_DISC_UNLINKED where no mix path can link it: the observer
 * decides, by drawing its path, whether the corrupted mixes do). */
void rc_disc_arrived(rc_disc *d, uint32_t user, rc_time at, uint32_t sender, rc_time sent);
/* `user` sent a message to its own provider for the target group (provider fan-out). */
void rc_disc_relay(rc_disc *d, uint32_t user, rc_time now);
/* The target group's member `source` multicasts now (truth and trigger). */
void rc_disc_multicast(rc_disc *d, uint32_t source, rc_time now);

/* End of the run at `now`: closes the open windows and scores. */
void rc_disc_finish(rc_disc *d, rc_time now, rc_disc_summary *out);
/* The learning curve (valid until rc_disc_free). */
const rc_disc_point *rc_disc_curve(const rc_disc *d, size_t *n);
bool rc_disc_provider_corrupt(const rc_disc *d, uint32_t provider);

/* ---------- the estimators on their own (tests, docs/spec.md §11.3) ---------- */

/* Scores of the top-m ranking against `member` (n users): the expected
 * share of members in the top m with ties broken uniformly, and the AUC
 * (Mann-Whitney, ties 1/2).  `work`: n doubles of scratch. */
double rc_disc_top_m_precision(const double *score, const bool *member, uint32_t n, uint32_t m,
                               double *work);
double rc_disc_auc(const double *score, const bool *member, uint32_t n);

#endif
