/* nonce_perm: the reference simulator's per-nonce receiver order.
 *
 * The reference shuffles a message's receivers with Python's
 * random.Random(nonce).shuffle (spec §2.3.2).  The nonce counts a source's
 * messages from 0, so every source's j-th message applies the *same*
 * positional permutation to its receiver list: across sources the same
 * group positions become the inner nodes of the tree.  Under load that
 * concentrates forwarding work on a few users (spec §9.1 quirk, rcsim
 * --q-nonce-perm).  This module reproduces CPython's permutation bit for bit
 * (MT19937 seeded by init_by_array, shuffle via getrandbits rejection).
 */
#ifndef RCSIM_MULTICAST_NONCE_PERM_H
#define RCSIM_MULTICAST_NONCE_PERM_H

#include <stddef.h>
#include <stdint.h>

/* Shuffles v[0..n) exactly as CPython's random.Random(seed).shuffle(v) does,
 * for seed < 2^32. */
void rc_nonce_shuffle(uint32_t seed, uint32_t *v, size_t n);

#endif
