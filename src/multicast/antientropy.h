/* antientropy: hash-based reconciliation between group members (the
 * paper's future work).
 *
 * Every member, while online, reconciles with a random other member of each
 * of its groups at Poisson times (mean ae_interval_s): it sends a DIGEST —
 * in a real system a hash of the set of message ids it holds for the group
 * (over the payloads of the last ae_window_s), here the set itself, taken
 * when the digest is made.  The receiver compares: it pushes up to
 * ae_push_max payloads the sender lacks (REPAIR messages), and if the
 * sender holds payloads it lacks, it answers once with its own digest so the
 * sender pushes those.  Digests and repairs are ordinary packets: they queue
 * in the send buffer and travel the mix network like any message.
 * Works beside any strategy (a service of mc, listed in multicast/services.c);
 * disabled when ae_interval_s is 0.  (The job's parameters that set these keep
 * their first names, gossip_interval, gossip_push_max and gossip_window: they are in
 * every job's id and results.)
 */
#ifndef RCSIM_MULTICAST_ANTIENTROPY_H
#define RCSIM_MULTICAST_ANTIENTROPY_H

typedef struct rc_mc_service_ops rc_mc_service_ops;

/* A service (rc_mc_service_ops, multicast/services.h) with two kinds of
 * message, digest and repair; created when ae_interval_s > 0. */
extern const rc_mc_service_ops rc_antientropy_ops;

#endif
