/* poptab: the multicast layer's tables in population mode,
 * sized by the memberships and by what is in flight, never by users x groups
 * or by the messages of the whole run.
 *
 * - Groups come from rc_population (CSR); every user's memberships are
 *   indexed too, so "position of u in g" costs a scan of u's few groups.
 *   Membership is static in population mode, so positions never move and a
 *   (group, position) pair is a stable slot: rc_poptab_slot numbers them
 *   0 .. memberships-1 for per-member state of strategies.
 * - A payload records its deliveries over its group's positions.  It lives
 *   while something refers to it (rc_poptab_ref/unref: mc counts its message
 *   bodies in flight, strategies may hold it); at the last unref its missing
 *   recipients are counted as undelivered, its bitset returns to a pool and
 *   its id is reused.  Payloads still referred to at the end are counted by
 *   rc_poptab_finish.
 * - Latencies go into the fixed-edge histograms of core/hist.h (whole run,
 *   and online latencies per group-size bucket [2^b, 2^(b+1))) plus exact
 *   moments; exp/result reads quantiles from them (within 0.1 %, the
 *   buckets' width).
 * - Per-user load: real sub-messages that left each user, and its groups.
 *
 * Memory: O(users + groups + memberships + live payloads); rc_poptab owns all.
 * Errors: a bad distribution is RC_EXIT_USAGE from rc_poptab_new.
 */
#ifndef RCSIM_MULTICAST_POPTAB_H
#define RCSIM_MULTICAST_POPTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/hist.h"
#include "core/sim.h"

typedef struct rc_poptab rc_poptab;

/* Draws the population (sizes, then members) from the job seed's stream `stream`. */
rc_poptab *rc_poptab_new(uint32_t users, uint32_t groups, const char *dist, uint64_t seed,
                         uint64_t stream, rc_err *err);
void rc_poptab_free(rc_poptab *t);

uint32_t rc_poptab_size(const rc_poptab *t, uint32_t g);
const uint32_t *rc_poptab_members(const rc_poptab *t, uint32_t g);
int32_t rc_poptab_pos(const rc_poptab *t, uint32_t g, uint32_t user); /* -1: not a member */
size_t rc_poptab_slots(const rc_poptab *t);
size_t rc_poptab_slot(const rc_poptab *t, uint32_t g, uint32_t user); /* user must be a member */

/* A new payload of `source` in group g (its recipients: every other member). */
uint32_t rc_poptab_payload_new(rc_poptab *t, uint32_t g, uint32_t source, rc_time now);
uint32_t rc_poptab_payload_group(const rc_poptab *t, uint32_t p);
uint32_t rc_poptab_payload_source(const rc_poptab *t, uint32_t p);
rc_time rc_poptab_payload_created(const rc_poptab *t, uint32_t p);
void rc_poptab_ref(rc_poptab *t, uint32_t p);
void rc_poptab_unref(rc_poptab *t, uint32_t p);
bool rc_poptab_has(const rc_poptab *t, uint32_t p, uint32_t user);
/* Records a copy of p reaching `user` after `lat_s` seconds: true for the first. */
bool rc_poptab_deliver(rc_poptab *t, uint32_t p, uint32_t user, double lat_s, bool online);
/* Prefetch hint: `user` will receive soon (ahead 1: its membership offsets,
 * 0: its memberships, read through the offsets fetched one step earlier). */
void rc_poptab_prefetch_user(const rc_poptab *t, uint32_t user, unsigned ahead);
/* Hint: payload `id` will be delivered soon (its record, for rc_poptab_deliver). */
void rc_poptab_prefetch_payload(const rc_poptab *t, uint32_t id);
/* Hint, after rc_poptab_prefetch_payload brought the record in: the delivered
 * set of a large group's payload, which lives outside the record. */
void rc_poptab_prefetch_delivered(const rc_poptab *t, uint32_t id);
/* A real sub-message left `user`. */
void rc_poptab_sent(rc_poptab *t, uint32_t user);

/* End of run: counts the missing recipients of the payloads still referred
 * to, calls `missed` (may be NULL) for the first RC_POPTAB_MISSED_MAX missing
 * (recipient, payload) pairs of the run, and returns the undelivered total. */
#define RC_POPTAB_MISSED_MAX 1000
uint64_t rc_poptab_finish(rc_poptab *t,
                          void (*missed)(void *ctx, uint32_t group, uint32_t payload,
                                         uint32_t recipient),
                          void *ctx);

/* What the run measured, for exp/result. */
const uint32_t *rc_poptab_hist(const rc_poptab *t, bool online, rc_moments *m);
#define RC_POPTAB_BUCKETS 20
typedef struct rc_poptab_bucket {
    uint64_t lo, hi;                 /* group sizes lo..hi (hi = UINT64_MAX: no bound) */
    uint64_t groups, multicasts, expected, deliveries, undelivered;
    const uint32_t *hist_online;     /* NULL when nothing was delivered online */
    rc_moments online;
} rc_poptab_bucket;
/* Bucket i (sizes [2^(i+1), 2^(i+2))); false when no group has such a size. */
bool rc_poptab_bucket_get(const rc_poptab *t, unsigned i, rc_poptab_bucket *out);
const uint32_t *rc_poptab_user_sent(const rc_poptab *t);
uint32_t rc_poptab_user_groups(const rc_poptab *t, uint32_t user);
uint32_t rc_poptab_users(const rc_poptab *t);

#endif
