#include "multicast/poptab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/rng.h"
#include "multicast/population.h"

typedef struct payload {
    uint32_t group, source;
    rc_time created;
    uint32_t refs;  /* message bodies in flight + strategy holds */
    uint32_t left;  /* expected recipients without a first copy */
    /* delivered, over group positions: in the record itself for groups of up to
     * 64 (most groups: a delivery then misses one line, not two), else a pooled
     * bitset; all zero when the id is free (a live set has its source's bit) */
    union {
        uint64_t *ptr;
        uint64_t word;
    } set;
} payload;

static inline bool pl_live(const payload *p) { return p->set.word != 0; }

typedef struct bucket {
    uint64_t groups, multicasts, expected, deliveries, undelivered;
    uint32_t *hist; /* online latencies, allocated on first use */
    rc_moments online;
} bucket;

/* Bitsets of 2^c words come from per-class free lists, carved from chunks
 * that are never moved; a freed bitset goes back to its class's list (its
 * first word holds the link). */
#define POOL_CLASSES 32
#define POOL_CHUNK_WORDS ((size_t)1 << 16)

struct rc_poptab {
    rc_population *pop;
    uint32_t users, groups;
    size_t *u_off;            /* users + 1 */
    /* each user's memberships: group and position side by side, so finding a
     * position (every delivery) reads one line, not one in each of two arrays */
    struct ugp { uint32_t grp, pos; } *u_gp;
    payload *pl;
    uint32_t n_pl, cap_pl, free_pl; /* free ids chained through .group */
    uint64_t *pool_free[POOL_CLASSES];
    uint64_t **chunks;
    size_t n_chunks, cap_chunks, chunk_left;
    uint64_t *chunk_at;
    uint32_t *hist_all, *hist_online;
    rc_moments all, online;
    bucket b[RC_POPTAB_BUCKETS];
    uint32_t *sent;
    uint64_t undelivered;
    struct missed { uint32_t group, payload, recipient; } *miss;
    size_t n_miss;
};

static unsigned word_class(size_t words)
{
    unsigned c = 0;
    while (((size_t)1 << c) < words) c++;
    RC_ASSERT(c < POOL_CLASSES);
    return c;
}

static uint64_t *bits_alloc(rc_poptab *t, size_t words)
{
    unsigned c = word_class(words);
    size_t w = (size_t)1 << c;
    uint64_t *b = t->pool_free[c];
    if (b != NULL) {
        memcpy(&t->pool_free[c], b, sizeof b);
    } else {
        if (t->chunk_left < w) {
            size_t n = w > POOL_CHUNK_WORDS ? w : POOL_CHUNK_WORDS;
            if (t->n_chunks == t->cap_chunks) {
                t->cap_chunks = t->cap_chunks ? 2 * t->cap_chunks : 16;
                t->chunks = rc_xrealloc(t->chunks, t->cap_chunks * sizeof *t->chunks);
            }
            t->chunk_at = t->chunks[t->n_chunks++] = rc_xmalloc(n * sizeof(uint64_t));
            t->chunk_left = n;
        }
        b = t->chunk_at;
        t->chunk_at += w;
        t->chunk_left -= w;
    }
    memset(b, 0, w * sizeof *b);
    return b;
}

static void bits_free(rc_poptab *t, uint64_t *b, size_t words)
{
    unsigned c = word_class(words);
    memcpy(b, &t->pool_free[c], sizeof b);
    t->pool_free[c] = b;
}

static size_t words_of(uint32_t n) { return ((size_t)n + 63) / 64; }

/* The delivered set of payload p of a group of n. */
static inline uint64_t *pl_bits(payload *p, uint32_t n) { return n <= 64 ? &p->set.word : p->set.ptr; }
static inline const uint64_t *pl_cbits(const payload *p, uint32_t n)
{
    return n <= 64 ? &p->set.word : p->set.ptr;
}

/* The bucket of a group of `size`: sizes [2^(b+1), 2^(b+2)), smaller ones in
 * bucket 0, larger ones in the last (every delivery asks: floor(log2 size) - 1
 * from the leading zeros, not a loop over the buckets). */
static unsigned bucket_of(uint32_t size)
{
    if (size < 4) return 0;
    unsigned b = 31u - (unsigned)__builtin_clz(size) - 1u;
    return b < RC_POPTAB_BUCKETS - 1 ? b : RC_POPTAB_BUCKETS - 1;
}

rc_poptab *rc_poptab_new(uint32_t users, uint32_t groups, const char *dist, uint64_t seed,
                         uint64_t stream, rc_err *err)
{
    rc_sizedist d;
    if (rc_sizedist_parse(dist, users, &d, err) != 0) {
        rc_sizedist_free(&d);
        return NULL;
    }
    rc_poptab *t = rc_xcalloc(1, sizeof *t);
    t->users = users;
    t->groups = groups;
    gsl_rng *r = rc_rng_new(seed, stream);
    t->pop = rc_population_new(users, groups, &d, r);
    rc_rng_free(r);
    rc_sizedist_free(&d);
    /* Memberships by user: a counting sort of the CSR by group. */
    t->u_off = rc_xcalloc((size_t)users + 1, sizeof *t->u_off);
    size_t m = t->pop->memberships;
    for (size_t i = 0; i < m; i++) t->u_off[t->pop->members[i] + 1]++;
    for (uint32_t u = 0; u < users; u++) t->u_off[u + 1] += t->u_off[u];
    t->u_gp = rc_xmalloc((m ? m : 1) * sizeof *t->u_gp);
    size_t *fill = rc_xmalloc(((size_t)users + 1) * sizeof *fill);
    memcpy(fill, t->u_off, ((size_t)users + 1) * sizeof *fill);
    for (uint32_t g = 0; g < groups; g++)
        for (size_t i = t->pop->off[g]; i < t->pop->off[g + 1]; i++) {
            uint32_t u = t->pop->members[i];
            t->u_gp[fill[u]++] = (struct ugp){g, (uint32_t)(i - t->pop->off[g])};
        }
    free(fill);
    for (uint32_t g = 0; g < groups; g++) t->b[bucket_of(rc_poptab_size(t, g))].groups++;
    t->free_pl = UINT32_MAX;
    t->hist_all = rc_xcalloc(RC_HIST_BINS, sizeof(uint32_t));
    t->hist_online = rc_xcalloc(RC_HIST_BINS, sizeof(uint32_t));
    t->sent = rc_xcalloc(users ? users : 1, sizeof(uint32_t));
    t->miss = rc_xmalloc(RC_POPTAB_MISSED_MAX * sizeof *t->miss);
    return t;
}

void rc_poptab_free(rc_poptab *t)
{
    if (t == NULL) return;
    rc_population_free(t->pop);
    free(t->u_off);
    free(t->u_gp);
    free(t->pl);
    for (size_t i = 0; i < t->n_chunks; i++) free(t->chunks[i]);
    free(t->chunks);
    free(t->hist_all);
    free(t->hist_online);
    for (int b = 0; b < RC_POPTAB_BUCKETS; b++) free(t->b[b].hist);
    free(t->sent);
    free(t->miss);
    free(t);
}

uint32_t rc_poptab_size(const rc_poptab *t, uint32_t g)
{
    return (uint32_t)(t->pop->off[g + 1] - t->pop->off[g]);
}

const uint32_t *rc_poptab_members(const rc_poptab *t, uint32_t g)
{
    return &t->pop->members[t->pop->off[g]];
}

int32_t rc_poptab_pos(const rc_poptab *t, uint32_t g, uint32_t user)
{
    for (size_t i = t->u_off[user]; i < t->u_off[user + 1]; i++)
        if (t->u_gp[i].grp == g) return (int32_t)t->u_gp[i].pos;
    return -1;
}

size_t rc_poptab_slots(const rc_poptab *t) { return t->pop->memberships; }

size_t rc_poptab_slot(const rc_poptab *t, uint32_t g, uint32_t user)
{
    int32_t pos = rc_poptab_pos(t, g, user);
    RC_ASSERTF(pos >= 0, "user %u is not in group %u", user, g);
    return t->pop->off[g] + (size_t)pos;
}

uint32_t rc_poptab_payload_new(rc_poptab *t, uint32_t g, uint32_t source, rc_time now)
{
    uint32_t id;
    if (t->free_pl != UINT32_MAX) {
        id = t->free_pl;
        t->free_pl = t->pl[id].group;
    } else {
        if (t->n_pl == t->cap_pl) {
            t->cap_pl = t->cap_pl ? 2 * t->cap_pl : 1024;
            t->pl = rc_xrealloc(t->pl, t->cap_pl * sizeof *t->pl);
        }
        id = t->n_pl++;
    }
    uint32_t n = rc_poptab_size(t, g);
    payload *p = &t->pl[id];
    *p = (payload){g, source, now, 0, n - 1, {.word = 0}};
    if (n > 64) p->set.ptr = bits_alloc(t, words_of(n));
    int32_t sp = rc_poptab_pos(t, g, source);
    RC_ASSERTF(sp >= 0, "source %u is not in group %u", source, g);
    pl_bits(p, n)[sp / 64] |= (uint64_t)1 << (sp % 64);
    bucket *b = &t->b[bucket_of(n)];
    b->multicasts++;
    b->expected += n - 1;
    return id;
}

uint32_t rc_poptab_payload_group(const rc_poptab *t, uint32_t p) { return t->pl[p].group; }
uint32_t rc_poptab_payload_source(const rc_poptab *t, uint32_t p) { return t->pl[p].source; }
rc_time rc_poptab_payload_created(const rc_poptab *t, uint32_t p) { return t->pl[p].created; }

/* Counts p's missing recipients as undelivered (listing the first ones). */
static void count_missing(rc_poptab *t, uint32_t id)
{
    payload *p = &t->pl[id];
    if (p->left == 0) return;
    t->undelivered += p->left;
    t->b[bucket_of(rc_poptab_size(t, p->group))].undelivered += p->left;
    const uint32_t *mem = rc_poptab_members(t, p->group);
    uint32_t n = rc_poptab_size(t, p->group);
    const uint64_t *bits = pl_cbits(p, n);
    for (uint32_t i = 0; i < n && t->n_miss < RC_POPTAB_MISSED_MAX; i++)
        if (!((bits[i / 64] >> (i % 64)) & 1))
            t->miss[t->n_miss++] = (struct missed){p->group, id, mem[i]};
}

void rc_poptab_ref(rc_poptab *t, uint32_t p)
{
    RC_ASSERT(pl_live(&t->pl[p]));
    t->pl[p].refs++;
}

void rc_poptab_unref(rc_poptab *t, uint32_t id)
{
    payload *p = &t->pl[id];
    RC_ASSERTF(pl_live(p) && p->refs > 0, "payload %u: unref without a reference", id);
    if (--p->refs > 0) return;
    /* Nothing refers to it any more: no copy can still arrive. */
    count_missing(t, id);
    uint32_t n = rc_poptab_size(t, p->group);
    if (n > 64) bits_free(t, p->set.ptr, words_of(n));
    p->set.word = 0;
    p->group = t->free_pl;
    t->free_pl = id;
}

bool rc_poptab_has(const rc_poptab *t, uint32_t p, uint32_t user)
{
    const payload *pl = &t->pl[p];
    int32_t pos = rc_poptab_pos(t, pl->group, user);
    return pos >= 0 && ((pl_cbits(pl, rc_poptab_size(t, pl->group))[pos / 64] >> (pos % 64)) & 1);
}

bool rc_poptab_deliver(rc_poptab *t, uint32_t id, uint32_t user, double lat, bool online)
{
    payload *p = &t->pl[id];
    RC_ASSERT(pl_live(p));
    int32_t pos = rc_poptab_pos(t, p->group, user);
    RC_ASSERTF(pos >= 0, "user %u got payload %u of group %u it is not in", user, id, p->group);
    uint32_t n = rc_poptab_size(t, p->group);
    uint64_t *bits = pl_bits(p, n), bit = (uint64_t)1 << (pos % 64);
    if (bits[pos / 64] & bit) return false;
    bits[pos / 64] |= bit;
    p->left--;
    bucket *b = &t->b[bucket_of(n)];
    b->deliveries++;
    size_t bin = rc_hist_bin(lat);
    t->hist_all[bin]++;
    rc_moments_add(&t->all, lat);
    if (online) {
        t->hist_online[bin]++;
        rc_moments_add(&t->online, lat);
        if (b->hist == NULL) b->hist = rc_xcalloc(RC_HIST_BINS, sizeof(uint32_t));
        b->hist[bin]++;
        rc_moments_add(&b->online, lat);
    }
    return true;
}

void rc_poptab_prefetch_user(const rc_poptab *t, uint32_t user, unsigned ahead)
{
    if (ahead > 0) __builtin_prefetch(&t->u_off[user]);
    else __builtin_prefetch(&t->u_gp[t->u_off[user]]);
}

void rc_poptab_prefetch_payload(const rc_poptab *t, uint32_t id)
{
    if (id < t->n_pl) __builtin_prefetch(&t->pl[id]);
}

void rc_poptab_prefetch_delivered(const rc_poptab *t, uint32_t id)
{
    if (id >= t->n_pl) return;
    const payload *p = &t->pl[id];
    if (pl_live(p) && rc_poptab_size(t, p->group) > 64) __builtin_prefetch(p->set.ptr, 1);
}

void rc_poptab_sent(rc_poptab *t, uint32_t user)
{
    if (t->sent[user] < UINT32_MAX) t->sent[user]++;
}

uint64_t rc_poptab_finish(rc_poptab *t,
                          void (*missed)(void *ctx, uint32_t group, uint32_t payload,
                                         uint32_t recipient),
                          void *ctx)
{
    for (uint32_t id = 0; id < t->n_pl; id++)
        if (pl_live(&t->pl[id])) {
            count_missing(t, id);
            t->pl[id].left = 0; /* counted once, even if finish runs again */
        }
    for (size_t i = 0; missed && i < t->n_miss; i++)
        missed(ctx, t->miss[i].group, t->miss[i].payload, t->miss[i].recipient);
    return t->undelivered;
}

const uint32_t *rc_poptab_hist(const rc_poptab *t, bool online, rc_moments *m)
{
    *m = online ? t->online : t->all;
    return online ? t->hist_online : t->hist_all;
}

bool rc_poptab_bucket_get(const rc_poptab *t, unsigned i, rc_poptab_bucket *out)
{
    if (i >= RC_POPTAB_BUCKETS || t->b[i].groups == 0) return false;
    const bucket *b = &t->b[i];
    *out = (rc_poptab_bucket){(uint64_t)2 << i,
                              i + 1 < RC_POPTAB_BUCKETS ? ((uint64_t)4 << i) - 1 : UINT64_MAX,
                              b->groups, b->multicasts, b->expected, b->deliveries,
                              b->undelivered, b->hist, b->online};
    return true;
}

const uint32_t *rc_poptab_user_sent(const rc_poptab *t) { return t->sent; }
uint32_t rc_poptab_user_groups(const rc_poptab *t, uint32_t u)
{
    return (uint32_t)(t->u_off[u + 1] - t->u_off[u]);
}
uint32_t rc_poptab_users(const rc_poptab *t) { return t->users; }
