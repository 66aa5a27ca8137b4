/* anon_internal: what the parts of the adversary (src/anon/) share; nothing
 * outside src/anon/ includes it.
 *   anonymity.c  the observer: wire hooks, the time-ordered event queue,
 *                tracked messages and the observation file
 *   anon_pool.c  the distributions packets carry and the mixing nodes' pools
 *   anon_sender.c the sender view above the dense limit (a log of the pools'
 *                events, read backward from a tracked message's exit) and
 *                what an exit tells about its sender: entropy, epsilon, delta
 *   anon_map.c   the small maps (u64 -> u32) of packet ids and message bodies
 *   anon_results.c the run's end: the queue drained (rc_anon__drain), the
 *                tracked messages' figures, the summary
 * A function anonymity.c calls in anon_pool.c is named rc_anon__<verb>;
 * anon_pool.c calls nothing in anonymity.c.
 */
#ifndef RCSIM_ANON_ANON_INTERNAL_H
#define RCSIM_ANON_ANON_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "anon/anonymity.h"
#include "core/calq.h"
#include "core/log.h"
#include "core/rng.h"

/* Pool entries below this probability are dropped: all a message loses this
 * way adds less than 1e-11 bits to its entropy, and a message stops costing
 * work a few mean delays sooner. */
#define PRUNE 1e-14
/* The sample known ahead measures its window's rate in this many bins (anonymity.c). */
#define AHEAD_BINS 1024
#define NONE32 UINT32_MAX

enum { ROLE_CLIENT = 0, ROLE_MIXING = 1, ROLE_PASS = 2 };
enum { EV_DEP = 0, EV_ARR = 1, EV_CREATE = 2 };
/* In a queue entry's kind beside the event's kind and exit flag: a part with
 * no packet slot (anonymity.c, on_part). */
enum { EV_SLOTLESS = 8 };

/* The sender estimate of packets that left an honest node between two
 * changes of its pool: shared, counted references. */
typedef struct sview {
    uint32_t refs;
    double v[]; /* per user; sums to the client-sent share of the pool */
} sview;

typedef struct pool {
    int64_t n;       /* packets held (a bundle split here counts its parts) */
    /* the live targets (summed probability > 0), compact: act[i] with sum sa[i];
     * pos[k] = its place + 1, or 0 (per target: 4 bytes a pool, where a dense
     * sum and flag took 13, GiBs at 10^5 users) */
    uint32_t *act;
    double *sa;
    uint32_t n_act, cap_act;
    /* beside sa, from the first departure that exits here (NULL before): the
     * last mean q each live target took at such a departure and q * log2(q),
     * exactly as the exit computed it (a pair that always goes together; lq 0:
     * none).  A bundle's parts leave one after another, and half the time a
     * target's mean is bit for bit the one before: its log2 is then known. */
    double *lq, *lx;
    uint32_t *pos;
    double *b, c;    /* sender sums = c * b (c shrinks at departures instead of b) */
    sview *snap;     /* the current mean sender estimate, NULL when stale */
} pool;

typedef struct pkt {
    uint64_t id;
    uint32_t refs;    /* queued events and split parts that still need it */
    uint32_t split;   /* parts it becomes at the last layer */
    sview *sv;        /* dense sender estimate, or NULL (none when both are empty) */
    uint64_t sid1;    /* the sender log's mode: 1 + the log entry of the departure
                         whose pool mean it carries, 0 if none (anon_sender.c) */
    uint32_t sender;  /* one-hot sender estimate, or NONE32 */
    uint32_t target;  /* the tracked message it carries alone (a part), or NONE32 */
    uint32_t origin;  /* a mix loop's mix */
    uint32_t nt, capt;
    bool loop;
    /* a mix loop that came back to its mix: its slot may go once unreferenced
     * (a loop's slot stays while it travels, even with no report pending: a
     * batch mix holds it without one, loopix/node.c) */
    bool home;
    bool mapped;      /* in the packet map (anonymity.c, pkt_new) */
    /* the targets' probabilities, capt of them, then their targets (pkt_tk):
     * one block (rc_anon__tl_reserve), or NULL */
    double *tq;
#ifdef RCSIM_ANON_CHECK_ORDER
    unsigned __int128 last_key; /* its last event's key (enqueue) */
#endif
} pkt;

#ifndef RCSIM_ANON_CHECK_ORDER
_Static_assert(sizeof(pkt) == 64, "a packet slot is one cache line (anonymity.c, pkt_new)");
#endif

/* A packet's targets, beside its probabilities (a pointer fewer: a slot is
 * one cache line). */
static inline uint32_t *pkt_tk(const pkt *p)
{
    return p->tq != NULL ? (uint32_t *)(p->tq + p->capt) : NULL;
}

/* Target-list blocks come in classes of 4 << c entries; a class keeps at most
 * max(TL_KEEP_MIN, in use / TL_KEEP_DIV) free blocks (anon_pool.c). */
#define TL_CLASSES 30
#define TL_KEEP_MIN 64
#define TL_KEEP_DIV 4
/* A packet whose list is spent keeps its block only up to this many entries. */
#define TL_PKT_KEEP 16

/* An event as processed (anonymity.c, process): its queue entry and its
 * record (ev_rec) together. */
typedef struct event {
    rc_time t, received;
    uint64_t seq;
    uint32_t slot, parent; /* parent: the bundle's slot for a split part, else NONE32 */
    uint32_t from, to, split;
    uint8_t phase, kind;
    bool exits;
} event;

/* What an event's queue entry does not carry (the entry: its key, of time,
 * phase and report number; its kind and exit flag; its packet and parent).
 * 16 bytes, four to a cache line, where the whole event took 56. */
typedef struct ev_rec {
    uint32_t from, to;
    uint32_t lat;   /* received - t (a link's latency) */
    uint32_t split; /* or, free, the next free record */
} ev_rec;


/* A tracked message's sums over the packets that left the mixes (docs/spec.md
 * §10.4): -sum q log2 q, the largest q and the sum of q.  Apart from `tracked`:
 * the exits add to them for every live target of the pool, and 24 bytes a
 * message stay in the cache where the whole record (over 80) did not. */
typedef struct exit_sums {
    double h, maxq, mass;
} exit_sums;

typedef struct tracked {
    uint32_t sender, recipient, body;
    rc_time sent, pulled, left;
    double sender_h;
    double key;     /* its sampling key: the N smallest keys are kept */
    bool exited, dropped;
    uint32_t partner; /* the other challenge sender for epsilon (docs/spec.md §10.4) */
    double eps;       /* |ln(p_sender / p_partner)|: NaN if not measured, INFINITY if
                         one side is impossible (counts towards delta) */
    /* in the sample at its sending, but its key is above the N smallest of the
     * keys known ahead (on_carry): it will be left out, so none of its
     * probabilities are followed */
    bool ghost;
} tracked;

/* The sender log (anon_sender.c): every change of an honest mixing node's
 * pool, in the order the adversary takes them, one 32-bit word each.  An entry
 * is a departure (x: the packets the pool held before it) or an arrival of one
 * pooled packet carrying one client's packet (x: the client), a departure's
 * mean (x: how many entries back that departure is; 0: older than the log)
 * or nothing.  A bundle split in the pool is logged as its parts.  A word is
 * x << xshift | m << 2 | kind, m the node's place among the honest mixing
 * nodes; an x too wide for its field is stored as xesc, the value itself in
 * the log's list of wide values (in log order, looked up when read). */
enum { SL_DEP = 0, SL_USER = 1, SL_SNAP = 2, SL_NONE = 3 };
/* Sweeps read in one pass over the log (anon_sender.c): their loops interleave. */
#define SL_LANES 32
typedef uint32_t slog_e;

/* A tracked exit waiting to be read: from departure `sid`, for message k. */
struct slog_exit {
    uint64_t sid;
    uint32_t k;
    double h, eps;
};

typedef struct slog {
    slog_e *e;
    uint64_t base;   /* global index of e[0] */
    size_t n, cap;
    /* the words' layout: m in bits 2 .. xshift-1, x from xshift; xesc marks a
     * wide x, found in wide_x at the same global index wide_i (rising) */
    uint32_t xshift, xesc;
    uint32_t *mix_of; /* node -> its place among the honest mixing nodes */
    uint64_t *wide_i;
    uint32_t *wide_x;
    size_t n_wide, cap_wide;
    uint64_t n_wide_all; /* wide values logged over the run */
    rc_time keep;    /* entries are kept this long back from now */
    uint64_t max_back; /* the longest SL_SNAP distance logged */
    /* every SL_CHECK entries: (time, global index), to know what is old */
    rc_time *ck_t;
    uint64_t *ck_i;
    size_t ck_n, ck_cap;
    /* tracked exits waiting to be read (rc_anon__slog_flush), in exit order */
    struct slog_exit *pend;
    size_t n_pend, cap_pend;
    /* sweep scratch for SL_LANES sweeps read in one pass (all zero between
     * passes), lane j of item x at x * SL_LANES + j: the weights of departures'
     * means, a ring longer than max_back indexed by global index; per honest
     * mixing node (by its place m); per user; and per lane the users touched */
    double *alpha;
    size_t alpha_len;
    double *g, *r;
    uint32_t *touched, n_touched[SL_LANES];
    uint32_t n_mixing;          /* the honest mixing nodes */
    double max_unresolved;      /* largest share a sweep left unplaced */
    uint64_t swept, sweeps;     /* entries visited, tracked exits read */
    uint64_t passes, read;      /* passes over the log, and the entries they read */
    size_t peak_n;              /* most entries held */
    uint64_t longest, closest;  /* the most entries a sweep visited, and the fewest left
                                   between a sweep's stop and the log's start */
    uint8_t isa;                /* the copy of the sweeps that runs (SWEEP_*) */
} slog;

/* The copies of the sweeps (anon_sender.c), one per vector width: the same
 * bits from each.  SWEEP_AUTO: the widest the processor runs. */
enum { SWEEP_AUTO = 0, SWEEP_BASE = 1, SWEEP_AVX2 = 2, SWEEP_AVX512 = 3 };

struct rc_anon {
    rc_sim *sim;
    rc_net *net;
    uint32_t users, providers, nodes;
    uint8_t *role;
    bool *corrupt;
    uint64_t n_corrupt_mixes, n_corrupt_providers;
    pool *pools; /* per node; allocated for mixing nodes */
    bool sender_view; /* dense sender estimates (sview) */
    slog *sl;         /* or the sender log (above RC_ANON_SENDER_MAX_USERS), else NULL */
    uint8_t sweep_isa; /* the sweeps' copy asked for (SWEEP_*; RCSIM_ANON_ISA) */
    bool quot_fma;     /* a departure's quotients by FMA (rc_anon__quotients): not with
                          RCSIM_ANON_ISA=base, nor where the processor lacks it */
    gsl_rng *pair_rng; /* challenge partners for epsilon (a stream of its own) */
    uint32_t users4; /* users rounded up to a multiple of 4 (vec_*) */
    sview **sv_free; /* released sender estimates, for reuse (all users4 long) */
    void *tl_free[TL_CLASSES]; /* released target-list blocks by class, linked through
                                  their first word */
    uint64_t tl_nfree[TL_CLASSES], tl_used[TL_CLASSES]; /* blocks free, and in use */
    uint32_t n_sv_free, cap_sv_free;
    uint64_t tl_bytes, tl_peak; /* bytes of target-list blocks held (in use or free), and the most */
    double *take_q;   /* a departure's means when no list keeps them (rc_anon__pool_pass) */
    uint32_t take_cap;
    uint32_t *exit_idx; /* an exit's targets that need a log2 (exit_pool_targets) */
    uint32_t exit_cap;
    /* packets */
    pkt *slots;
    uint32_t n_slots, cap_slots, free_slot;
    pkt part; /* the packet of a part with no slot, while its event runs (on_part) */
    uint64_t *hkey; /* open addressing, linear probing: packet id -> slot, for the packets
                       not reported whole (mix loops, the node-level mixes'; pkt_new) */
    uint32_t *hval;
    uint32_t hcap, hn;
    uint64_t id_end;    /* every packet id below it has been seen (ids rise: 0, 1, ...) */
    uint64_t last_id;   /* the packet last reported or looked up, and its slot */
    uint32_t last_slot;
    uint64_t root_id;   /* the last new packet that is no bundle's part, and its slot: */
    uint32_t root_slot; /* its parts name it as their parent, carries as their bundle */
    /* events: a slab, and a calendar queue of every event reported and not yet done,
     * keyed (time, phase << 63 | report number); obj: the event, arg: its
     * packet's slot (to prefetch) */
    ev_rec *ev;
    uint32_t n_ev, cap_ev, free_ev;
    rc_calq q;
    uint8_t *dropped; /* per target: left out of the sample (tg[k].dropped, packed) */
    uint64_t seq;
    /* tracked messages: every real sub-message sent in [from, until) gets a
     * uniform key; the N smallest so far are tracked (a max-heap of them) */
    gsl_rng *rng;
    bool (*candidate)(void *ctx, uint32_t body); /* NULL: every real sub-message */
    void *candidate_ctx;
    rc_time from, until;
    uint64_t warm_count; /* real sub-messages sent before the window */
    double key_max;      /* keys at or above it are never tracked; < 0: not set yet */
    uint32_t want;
    uint32_t *kept, n_kept;
    /* the sample known ahead (on_carry, docs/spec.md §10.2): a copy of rng
     * that draws the window's keys before their candidates come, and the N
     * smallest of the keys it drew (a max-heap); NULL when not looking ahead */
    gsl_rng *ahead;
    bool ahead_off;           /* asked not to look ahead (rc_anon_cfg, RCSIM_ANON_LOOKAHEAD) */
    double ahead_over;        /* the assumption times this (1; more only to test misses) */
    double *ahead_heap;
    uint32_t ahead_nh;
    uint64_t ahead_n;         /* keys drawn ahead: those of candidates 1 .. ahead_n */
    uint64_t n_cand;          /* candidates in the window so far */
    double ahead_expect;      /* E, the warm-up's prediction of the candidates */
    uint64_t ahead_bin[AHEAD_BINS]; /* the window's candidates by equal bins of time */
    uint32_t ahead_done;      /* the bins behind, and what they say (ahead_bins_behind): */
    uint64_t ahead_sum;       /* their candidates (0: nothing said yet) */
    double ahead_disp, ahead_decline;
    uint64_t n_ghost, missed; /* ghosts; ghosts the final sample measures */
    tracked *tg;
    exit_sums *xs; /* per target, beside tg */
    uint32_t n_tg, cap_tg;
    uint64_t *bkey; /* body -> target, while the message is on its way */
    uint32_t *bval;
    uint32_t bcap, bn;
    rc_time stop;
    FILE *trace;
    char *trace_path;
    rc_anon_record *rec;
    size_t n_rec;
    rc_anon_summary sum;
};

/* Two doubles at once (GCC's and Clang's vector types: each element computed
 * as the scalar code would, IEEE operations one by one; GCC does not vectorise
 * these loops by itself). */
typedef double v2d __attribute__((vector_size(16)));
typedef long long v2l __attribute__((vector_size(16)));
static const v2d zero2 = {0, 0};
static inline v2d ld2(const double *p)
{
    v2d v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void st2(double *p, v2d v) { memcpy(p, &v, sizeof v); }
/* m ? x : y, per element (m: all ones or zeros) */
static inline v2d sel2(v2l m, v2d x, v2d y) { return (v2d)(((v2l)x & m) | ((v2l)y & ~m)); }

/* ---------- anonymity.c ---------- */

/* Processes every queued event before `limit`. */
void rc_anon__drain(rc_anon *a, rc_time limit);

/* ---------- anon_pool.c ---------- */

/* A sender estimate with one reference (recycled when one is free). */
sview *rc_anon__sv_new(rc_anon *a);
/* Drops a reference to s (NULL: nothing); the last one recycles it. */
void rc_anon__sv_release(rc_anon *a, sview *s);
/* Empties a packet's estimates (a block longer than TL_PKT_KEEP goes back). */
void rc_anon__pkt_clear(rc_anon *a, pkt *p);
void rc_anon__pkt_add_target(rc_anon *a, pkt *p, uint32_t k, double q);
/* Room for `need` targets in p's list (its first p->nt entries kept). */
void rc_anon__tl_reserve(rc_anon *a, pkt *p, uint32_t need);
/* p's list goes back to its class's free blocks (p has none afterwards). */
void rc_anon__tl_release(rc_anon *a, pkt *p);
/* Frees every free block (rc_anon_free). */
void rc_anon__tl_free_all(rc_anon *a);
void rc_anon__pool_reset(rc_anon *a, pool *q);
/* A packet's estimates join pool q as `parts` pooled packets. */
void rc_anon__pool_add(rc_anon *a, pool *q, const pkt *p, uint32_t parts);
/* Target k left the sample (a->dropped[k] set): out of every pool. */
void rc_anon__target_drop(rc_anon *a, uint32_t k);
/* A packet leaves pool q: it takes the mean. */
void rc_anon__pool_take(rc_anon *a, pool *q, pkt *p);
/* Where a departing packet's target list would go next, when its arrival is
 * inside its departure (nothing between them reads it): kept in the packet
 * (TAKE_KEEP, rc_anon__pool_take), dropped at the arrival (TAKE_DROP), spent
 * by the exit (TAKE_EXIT), or added to the next pool (TAKE_POOL). */
enum { TAKE_KEEP = 0, TAKE_DROP = 1, TAKE_EXIT = 2, TAKE_POOL = 3 };
/* rc_anon__pool_take, with the list's next use done at once from the pool's
 * means (`dest`: the next pool for TAKE_POOL, not q) instead of through a
 * list copied into p; p leaves with no targets. */
void rc_anon__pool_pass(rc_anon *a, pool *q, pkt *p, int to, pool *dest);
/* s / n into tq and s - s / n back into s for the n_act sums s of sa; true
 * when a difference is below PRUNE.  With `fma` (only where
 * rc_anon__quotients_fma_runs) by multiplications, to the same bits. */
int rc_anon__quotients(bool fma, double *sa, double *tq, uint32_t n_act, double n);
bool rc_anon__quotients_fma_runs(void);
/* The exit of (target, probability) pairs: each target's entropy sum, largest
 * share and mass (docs/spec.md §10.4). */
void rc_anon__exit_targets(rc_anon *a, const uint32_t *tk, const double *tq, uint32_t n);

/* ---------- anon_sender.c ---------- */

/* RCSIM_ANON_ISA=base|avx2|avx512 runs that copy of the sweeps instead of the
 * widest (the same bits: tests compare them): sets a->sweep_isa, or false with
 * `err` set when it names none this build and processor run. */
bool rc_anon__sweep_isa_env(rc_anon *a, rc_err *err);
/* The name of a SWEEP_* (SWEEP_AUTO: the one it picks here). */
const char *rc_anon__sweep_isa_name(uint8_t isa);
/* The sender log, keeping `keep` of history; NULL members are set up here. */
void rc_anon__slog_new(rc_anon *a, rc_time keep);
void rc_anon__slog_free(rc_anon *a);
/* Pool `node` takes a packet's estimate as `parts` pooled packets. */
void rc_anon__slog_arrive(rc_anon *a, uint32_t node, const pkt *p, uint32_t parts);
/* A packet leaves pool `node`, which held n packets: it carries that pool mean. */
void rc_anon__slog_depart(rc_anon *a, uint32_t node, int64_t n, pkt *p);
/* The packet carrying tracked message k left the mixes: its sender entropy in
 * bits (tg[k].sender_h) and the message's epsilon (tg[k].eps), at once or, in the
 * log mode, at the next rc_anon__slog_flush. */
void rc_anon__sender_exit(rc_anon *a, const pkt *p, uint32_t k);
/* The small maps (anon_map.c): key[i] UINT64_MAX marks a free place; cap is 0
 * or a power of two; get gives NONE32 for a key not in the map. */
void rc_anon__map_put(uint64_t **key, uint32_t **val, uint32_t *cap, uint32_t *n, uint64_t k,
                      uint32_t v);
uint32_t rc_anon__map_get(const uint64_t *key, const uint32_t *val, uint32_t cap, uint64_t k);
void rc_anon__map_del(uint64_t *key, uint32_t *val, uint32_t cap, uint32_t *n, uint64_t k);

/* Reads the exits waiting in the sender log (before the log drops entries, and
 * at the end of the run); nothing without a log. */
void rc_anon__slog_flush(rc_anon *a);

#endif
