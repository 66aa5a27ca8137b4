/* linkmap: per-node-pair link latencies from a file (docs/spec.md §1.16,
 * "Link latency").  Nodes are placed in regions and a region x region matrix
 * gives the one-way latency of a link between them.  A small CSV, one record
 * a line, '#' starts a comment:
 *
 *   region,NAME                    declares a region (order matters, below)
 *   latency,A,B,MS                 one-way latency from region A to B, ms; it
 *                                  stands for B to A too unless that is given
 *   place,provider,INDEX,REGION    puts provider INDEX (0-based) in REGION
 *   place,mix,INDEX,REGION         puts mix INDEX (layer-major: layer x
 *                                  mixes_per_layer + index) in REGION
 *
 * Every pair of regions (a region with itself included) needs a latency.
 * A provider or mix not placed goes to region INDEX mod R (the regions in
 * their declared order); a client is in its provider's region, so its link
 * to its provider costs that region's own latency.  Errors name the file,
 * the line and the field. */
#ifndef RCSIM_LOOPIX_LINKMAP_H
#define RCSIM_LOOPIX_LINKMAP_H

#include <stdint.h>

#include "core/err.h"

enum { RC_LINKMAP_PROVIDER = 0, RC_LINKMAP_MIX = 1 };

typedef struct rc_linkmap_place {
    int kind;        /* RC_LINKMAP_PROVIDER or RC_LINKMAP_MIX */
    uint32_t index;  /* provider index, or mix index (layer-major) */
    uint32_t region;
    int line;        /* for errors found once the network's size is known */
} rc_linkmap_place;

typedef struct rc_linkmap {
    char path[512];
    uint32_t n_regions;
    char (*names)[32];
    double *lat_s; /* n_regions x n_regions, row = from */
    uint32_t n_place;
    rc_linkmap_place *place;
} rc_linkmap;

/* Reads `path`; NULL with err set (RC_EXIT_USAGE) on any error. */
rc_linkmap *rc_linkmap_load(const char *path, rc_err *err);
/* Checks the placements against a network of `providers` providers and
 * `mixes` mixes (0, or RC_EXIT_USAGE with err naming file and line). */
int rc_linkmap_check(const rc_linkmap *m, uint32_t providers, uint32_t mixes, rc_err *err);
/* The region of provider i / mix i (placed, else i mod regions). */
uint32_t rc_linkmap_region(const rc_linkmap *m, int kind, uint32_t index);
void rc_linkmap_free(rc_linkmap *m);

#endif
