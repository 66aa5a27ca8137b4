/* schedule: Rollercoaster's schedule algorithm as pure functions (docs/spec.md §2.3.2).
 *
 * A schedule is over positions 0..n-1 of the list U (U[0] = source, U[1..] the
 * receivers, possibly shuffled per message).  In round t the first
 * P = (k+1)^t positions each send to k new positions in list order, so the
 * tree has a closed form: parent(r) = (r - P_r) / k with P_r the largest
 * power of k+1 not above r, and the children of r are P + r*k + j for every
 * round whose P exceeds r.  Nothing here allocates except where an output
 * array is passed in.
 */
#ifndef RCSIM_MULTICAST_SCHEDULE_H
#define RCSIM_MULTICAST_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

/* Number of rounds T = ceil(log_{k+1} n) (0 when n <= 1), computed exactly. */
uint32_t rc_sched_rounds(uint32_t n, uint32_t k);
/* Sends in round t: min(k*(k+1)^t, n - (k+1)^t), 0 past the last round. */
uint32_t rc_sched_round_sends(uint32_t n, uint32_t k, uint32_t t);
/* The (sender, receiver) position pairs of round t into out (capacity cap);
 * returns the number of pairs. */
size_t rc_sched_round_pairs(uint32_t n, uint32_t k, uint32_t t, uint32_t (*out)[2], size_t cap);
/* Parent position of r >= 1. */
uint32_t rc_sched_parent(uint32_t k, uint32_t r);
/* Direct children of r in schedule order (earlier rounds first). */
size_t rc_sched_children(uint32_t n, uint32_t k, uint32_t r, uint32_t *out, size_t cap);
size_t rc_sched_child_count(uint32_t n, uint32_t k, uint32_t r);
/* All descendants of r in pre-order (children order). */
size_t rc_sched_descendants(uint32_t n, uint32_t k, uint32_t r, uint32_t *out, size_t cap);
/* Hops from the source to r. */
uint32_t rc_sched_depth(uint32_t k, uint32_t r);
/* The "next receiver" used for reassignment: r+1, wrapping to the source. */
static inline uint32_t rc_sched_next(uint32_t n, uint32_t r) { return (r + 1) % n; }

/* RC-FT timeout estimate est(root, c) in ms (docs/spec.md §2.4): c is root or in its
 * subtree; t_msg and t_queue in ms. */
double rc_sched_estimate_ms(uint32_t n, uint32_t k, uint32_t root, uint32_t c, double t_msg,
                            double t_queue);

#endif
