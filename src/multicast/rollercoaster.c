/* rollercoaster: the Rollercoaster strategy and its variants (docs/spec.md §2.3-2.4).
 *
 * Per message the source builds a schedule over U = [source, receivers
 * (shuffled per message)], queues copies to its direct children, and every
 * receiver forwards to the children of the role it stands in for and ACKs to
 * the source.  With timeouts (RC-FT) the source arms, when each first copy
 * actually leaves it, one timeout per member of that child's subtree; an
 * expired non-leaf role is reassigned to the most recently seen member (else
 * the next receiver) and the subtree's other timeouts are dropped.  With the
 * arm-once quirk (paper) reassigned copies arm nothing; otherwise they re-arm
 * the subtree.
 *
 * Sessions hold the per-message schedule (the order of U) so that a
 * forwarder "rebuilding the schedule from (source, nonce)" is a lookup; the
 * message carries the session index in rc_msg.aux.
 *
 * Population mode (rc_mc_population): per-member state is indexed
 * by rc_mc_slot; a session is retired (its arrays freed, its index reused,
 * its payload released) once none of its messages is in flight and none of
 * its timeouts is alive; and the last-seen stack of a member keeps its
 * SEEN_CAP most recent entries (a pop past them falls back to the next
 * receiver, as an empty stack does).  Otherwise nothing changes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/rng.h"
#include "core/vec.h"
#include "multicast/mc.h"
#include "core/pyrandom.h"
#include "multicast/rollercoaster.h"
#include "multicast/schedule.h"

typedef struct session {
    uint32_t group, source, nonce, payload;
    uint32_t n;             /* group size when the message was sent */
    uint32_t *order;        /* schedule position -> user */
    int32_t *entry_of_role; /* RC-FT: live timeout entry per role, or -1 */
    uint8_t *handled;       /* role handled by the user standing in it (bitset) */
    uint8_t *acked;         /* RC-FT: roles the source has an ACK for (bitset) */
    uint32_t *handled_other;/* (user, role) pairs handled by replacements */
    uint32_t n_other, cap_other;
    uint32_t inflight;      /* its messages not yet received */
    uint32_t live;          /* its alive timeout entries */
} session;

typedef struct entry {
    uint32_t session, node, role;
    rc_time fire;  /* deadline lifted to the lattice (checks happen per tick) */
    uint64_t seq;  /* arm order */
    uint32_t gen;  /* bumped when the slot is freed: stale timer events are ignored */
    bool alive;
} entry;

RC_VEC_DEFINE(idvec, uint32_t, 16)

/* The timeouts armed together (one copy leaving the source watches a whole
 * subtree: up to n - 1 entries), in firing order.  Only the next one is in
 * the event queue, scheduled with the order position reserved when it was
 * armed (rc_mc_timer_reserve), so the run is the same as with every entry
 * queued.  Why: a saturated run holds 10^5 armed timeouts; as events they made
 * the queue that large, and the ones cancelled by their ACK were almost half
 * of all events popped (docs/performance.md, "Session 4").  Here the queue holds one event per run and a cancelled
 * entry is skipped when its run reaches it. */
typedef struct tslot {
    rc_time due;    /* when its check fires (never before it was armed) */
    uint64_t seq;   /* reserved order position */
    uint32_t e, gen;
} tslot;

RC_VEC_DEFINE(tslotvec, tslot, 16)

typedef struct tbatch {
    tslotvec s;
    uint32_t pos; /* s.v[pos - 1] is the entry whose event is queued */
} tbatch;

typedef struct rc_state {
    rc_mc *mc;
    rc_rc_params spec;      /* k, p, timeouts, multiplier, drop_offline */
    uint32_t users, groups;
    bool acks, arm_once, nonce0_plain, nonce_perm;
    double t_msg_ms, t_queue_ms;
    session *sessions;
    uint32_t n_sessions, cap_sessions;
    entry *entries;
    uint32_t n_entries, cap_entries;
    idvec free_entries;     /* dead entry slots for reuse (saturated runs arm millions) */
    tbatch *batches;        /* runs of timeouts (tslot above) */
    uint32_t n_batches, cap_batches;
    tslot *tsort;           /* batch_sort's merge buffer */
    uint32_t tsort_cap;
    idvec free_batches;
    uint64_t arm_seq;
    uint32_t *nonce_next;   /* per slot (rc_mc_slot): the source's next nonce */
    uint32_t **last_seen;   /* per slot -> a recency list, lazily (seen_of) */
    size_t n_slots;
    bool retire;            /* population mode: retire finished sessions */
    idvec free_sessions;    /* retired session indices */
    idvec settle;           /* sessions to check for retirement after this operation */
    idvec *pending;         /* per user: expired entries waiting for the source to be online */
    gsl_rng *sched_rng;
    uint32_t *scratch;
    rc_time tick;
    /* nonce_perm: the receiver shuffle depends only on (nonce, size), so its
     * plan (core/pyrandom.h) is kept per nonce, for the last size used. */
    uint32_t **plan;
    uint32_t *plan_n;
    uint32_t n_plans;
    /* Timeout estimates (rc_sched_estimate_ms) for groups of est_n members:
     * each role's own term and its parent, so that arming a subtree of n
     * roles adds up table entries instead of walking the tree per role. */
    double *est_term;
    uint32_t *est_parent;
    uint32_t est_n;
    /* Each role's descendants in preorder (rc_sched_descendants) for groups
     * of desc_n members, filled in per role on first use: desc_off[r] and
     * desc_cnt[r] locate them in desc_pool (desc_cnt[r] = UINT32_MAX: not yet). */
    uint32_t *desc_off, *desc_cnt, *desc_pool;
    size_t desc_used, desc_cap;
    uint32_t desc_n;
} rc_state;

enum { TIMER_ENTRY = 0, TIMER_PENDING = 1 };

/* ---------- helpers ---------- */

/* The plan of random.Random(nonce).shuffle on m receivers, computed once per
 * (nonce, m) (recomputed when another size comes with the same nonce). */
static const uint32_t *shuffle_plan(rc_state *s, uint32_t nonce, uint32_t m)
{
    if (nonce >= s->n_plans) {
        uint32_t nn = s->n_plans ? s->n_plans : 64;
        while (nn <= nonce) nn *= 2;
        s->plan = rc_xrealloc(s->plan, nn * sizeof *s->plan);
        s->plan_n = rc_xrealloc(s->plan_n, nn * sizeof *s->plan_n);
        for (uint32_t i = s->n_plans; i < nn; i++) s->plan[i] = NULL, s->plan_n[i] = 0;
        s->n_plans = nn;
    }
    if (s->plan[nonce] == NULL || s->plan_n[nonce] != m) {
        s->plan[nonce] = rc_xrealloc(s->plan[nonce], (m ? m : 1) * sizeof(uint32_t));
        s->plan_n[nonce] = m;
        rc_pyrandom_shuffle_plan(nonce, m, s->plan[nonce]);
    }
    return s->plan[nonce];
}

static bool is_leaf(const rc_state *s, const session *se, uint32_t role)
{
    return rc_sched_child_count(se->n, (uint32_t)s->spec.k, role) == 0;
}

/* The last-seen stack of (user, group): a recency list of the members seen,
 * [0] = count, [1] = capacity, then oldest .. newest from [2]; a push moves
 * the member to the newest end, a pop takes the newest (pops only happen on
 * timeouts).  A full list grows in exact mode -- the same stack as recency
 * stamps over all users, without an array of users per member and group
 * (10,000 users x 625 groups of 16 was 400 MB) -- and forgets its oldest in
 * population mode, whose lists are bounded. */
#define SEEN_CAP 16  /* population mode: the bound */
#define SEEN_FIRST 4 /* exact mode: the first capacity, doubled as needed */

static uint32_t *seen_of(rc_state *s, uint32_t group, uint32_t user)
{
    uint32_t **slot = &s->last_seen[rc_mc_slot(s->mc, group, user)];
    if (*slot == NULL) {
        uint32_t cap = s->retire ? SEEN_CAP : SEEN_FIRST;
        *slot = rc_xcalloc((size_t)cap + 2, sizeof(uint32_t));
        (*slot)[1] = cap;
    }
    return *slot;
}

static void recent_remove(uint32_t *l, uint32_t who)
{
    uint32_t *v = l + 2;
    for (uint32_t i = 0; i < l[0]; i++)
        if (v[i] == who) {
            memmove(&v[i], &v[i + 1], (l[0] - i - 1) * sizeof *v);
            l[0]--;
            return;
        }
}

static void seen_push(rc_state *s, uint32_t group, uint32_t user, uint32_t who)
{
    uint32_t *st = seen_of(s, group, user);
    recent_remove(st, who);
    if (st[0] == st[1]) {
        if (s->retire) {
            recent_remove(st, st[2]); /* forget the oldest */
        } else {
            uint32_t **slot = &s->last_seen[rc_mc_slot(s->mc, group, user)];
            st = *slot = rc_xrealloc(st, ((size_t)st[1] * 2 + 2) * sizeof(uint32_t));
            st[1] *= 2;
        }
    }
    st[2 + st[0]++] = who;
}

static void seen_remove(rc_state *s, uint32_t group, uint32_t user, uint32_t who)
{
    recent_remove(seen_of(s, group, user), who);
}

/* Pops the most recently seen member; false when the stack is empty. */
static bool seen_pop(rc_state *s, uint32_t group, uint32_t user, uint32_t *who)
{
    uint32_t *st = seen_of(s, group, user);
    if (st[0] == 0) return false;
    *who = st[2 + --st[0]];
    return true;
}

static bool handled_test_set(session *se, uint32_t user, uint32_t role)
{
    if (se->order[role] == user) {
        uint8_t bit = (uint8_t)(1u << (role % 8));
        bool was = se->handled[role / 8] & bit;
        se->handled[role / 8] |= bit;
        return was;
    }
    for (uint32_t i = 0; i < se->n_other; i++)
        if (se->handled_other[2 * i] == user && se->handled_other[2 * i + 1] == role) return true;
    if (se->n_other == se->cap_other) {
        se->cap_other = se->cap_other ? se->cap_other * 2 : 4;
        se->handled_other = rc_xrealloc(se->handled_other, 2 * se->cap_other * sizeof(uint32_t));
    }
    se->handled_other[2 * se->n_other] = user;
    se->handled_other[2 * se->n_other + 1] = role;
    se->n_other++;
    return false;
}

static void send_copy(rc_state *s, uint32_t from, uint32_t sid, uint32_t recipient, uint32_t role,
                      bool arm)
{
    session *se = &s->sessions[sid];
    rc_msg m = {.type = RC_RCM_PAYLOAD, .arm = arm, .group = se->group, .source = se->source,
                .nonce = se->nonce, .role = role, .sender = from, .recipient = recipient,
                .payload = se->payload, .aux = sid};
    if (rc_mc_send(s->mc, from, &m)) se->inflight++;
}

static void send_ack(rc_state *s, uint32_t from, uint32_t sid, uint32_t role)
{
    session *se = &s->sessions[sid];
    rc_msg m = {.type = RC_RCM_ACK, .group = se->group, .source = se->source, .nonce = se->nonce,
                .role = role, .sender = from, .recipient = se->source, .payload = se->payload,
                .aux = sid};
    if (rc_mc_send(s->mc, from, &m)) se->inflight++;
}

/* ---------- session retirement (population mode) ---------- */

static void settle_later(rc_state *s, uint32_t sid)
{
    if (s->retire) idvec_push(&s->settle, sid);
}

/* Retires the sessions queued by this operation that nothing refers to any
 * more.  Runs at the end of an operation, never while a session is in use. */
static void settle(rc_state *s)
{
    for (uint32_t i = 0; i < s->settle.n; i++) {
        session *se = &s->sessions[s->settle.v[i]];
        if (se->order == NULL || se->inflight > 0 || se->live > 0) continue;
        free(se->order);
        free(se->entry_of_role);
        free(se->acked);
        free(se->handled);
        free(se->handled_other);
        uint32_t payload = se->payload;
        memset(se, 0, sizeof *se);
        idvec_push(&s->free_sessions, s->settle.v[i]);
        rc_mc_payload_release(s->mc, payload);
    }
    s->settle.n = 0;
}

/* ---------- timeouts ---------- */

static void kill_entry(rc_state *s, uint32_t e)
{
    if (!s->entries[e].alive) return;
    s->entries[e].alive = false;
    s->entries[e].gen++;
    idvec_push(&s->free_entries, e);
    s->sessions[s->entries[e].session].live--;
    settle_later(s, s->entries[e].session);
}

static uint32_t batch_open(rc_state *s)
{
    uint32_t b;
    if (s->free_batches.n > 0) {
        b = s->free_batches.v[--s->free_batches.n];
    } else {
        if (s->n_batches == s->cap_batches) {
            s->cap_batches = s->cap_batches ? s->cap_batches * 2 : 256;
            s->batches = rc_xrealloc(s->batches, s->cap_batches * sizeof *s->batches);
        }
        b = s->n_batches++;
        s->batches[b] = (tbatch){{NULL, 0, 0}, 0};
    }
    s->batches[b].s.n = s->batches[b].pos = 0;
    return b;
}

/* Firing order of a run: (due, seq); seqs are unique, so the order is total. */
static bool tslot_before(const tslot *a, const tslot *b)
{
    return a->due < b->due || (a->due == b->due && a->seq < b->seq);
}

/* Sorts a run into firing order.  Entries come in preorder of the subtree,
 * not in order of their deadlines, and a run is up to a group long, so an
 * insertion sort (quadratic: an RC-FT k = 1 job at m = 1000 ran 15 % more
 * instructions with it) will not do; this is a bottom-up merge sort through
 * s->tsort over insertion-sorted blocks of 16. */
static void batch_sort(rc_state *s, tbatch *tb)
{
    enum { BLOCK = 16 };
    uint32_t n = (uint32_t)tb->s.n;
    for (uint32_t lo = 0; lo < n; lo += BLOCK) {
        uint32_t hi = lo + BLOCK < n ? lo + BLOCK : n;
        for (uint32_t i = lo + 1; i < hi; i++) {
            tslot x = tb->s.v[i];
            uint32_t j = i;
            for (; j > lo && tslot_before(&x, &tb->s.v[j - 1]); j--) tb->s.v[j] = tb->s.v[j - 1];
            tb->s.v[j] = x;
        }
    }
    if (n <= BLOCK) return;
    if (s->tsort_cap < n) {
        s->tsort_cap = n;
        s->tsort = rc_xrealloc(s->tsort, n * sizeof *s->tsort);
    }
    tslot *from = tb->s.v, *to = s->tsort;
    for (uint32_t w = BLOCK; w < n; w *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * w) {
            uint32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            uint32_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) to[k++] = tslot_before(&from[j], &from[i]) ? from[j++] : from[i++];
            while (i < mid) to[k++] = from[i++];
            while (j < hi) to[k++] = from[j++];
        }
        tslot *t = from;
        from = to;
        to = t;
    }
    if (from != tb->s.v) memcpy(tb->s.v, from, n * sizeof *tb->s.v);
}

/* Queues the run's next entry that is still alive; frees the run when none is
 * left (or the rest fall after the end of the run). */
static void batch_next(rc_state *s, uint32_t b)
{
    tbatch *tb = &s->batches[b];
    while (tb->pos < tb->s.n) {
        const tslot *x = &tb->s.v[tb->pos++];
        const entry *en = &s->entries[x->e];
        if (!en->alive || en->gen != x->gen) continue;
        if (rc_mc_timer_at(s->mc, x->due, x->seq, b, TIMER_ENTRY)) return;
        break;
    }
    tb->s.n = tb->pos = 0;
    idvec_push(&s->free_batches, b);
}

static void arm(rc_state *s, uint32_t b, uint32_t sid, uint32_t node, uint32_t role,
                double est_ms, rc_time sent_at)
{
    session *se = &s->sessions[sid];
    uint32_t e;
    if (s->free_entries.n > 0) {
        e = s->free_entries.v[--s->free_entries.n];
    } else {
        if (s->n_entries == s->cap_entries) {
            s->cap_entries = s->cap_entries ? s->cap_entries * 2 : 4096;
            s->entries = rc_xrealloc(s->entries, s->cap_entries * sizeof *s->entries);
        }
        e = s->n_entries++;
        s->entries[e].gen = 0;
    }
    /* Deadlines are real numbers; checks run once per tick and fire when
     * deadline <= now (docs/spec.md §9.2), i.e. at the first tick at or after it. */
    double deadline_us = (double)sent_at + s->spec.multiplier * est_ms * 1000.0;
    rc_time fire = (rc_time)ceil(deadline_us);
    if (s->tick > 1) fire = ((fire + s->tick - 1) / s->tick) * s->tick;
    uint32_t gen = s->entries[e].gen;
    s->entries[e] = (entry){sid, node, role, fire, s->arm_seq++, gen, true};
    se->live++;
    int32_t prev = se->entry_of_role[role];
    if (prev >= 0) kill_entry(s, (uint32_t)prev);
    se->entry_of_role[role] = (int32_t)e;
    rc_time now = rc_mc_now(s->mc);
    tslotvec_push(&s->batches[b].s,
                  (tslot){fire < now ? now : fire, rc_mc_timer_reserve(s->mc), e, gen});
}

/* rc_sched_estimate_ms(n, k, root, c, t_msg, t_queue), the same sum in the
 * same order (so the same double), from per-role tables built once per size. */
static double estimate_ms(rc_state *s, uint32_t n, uint32_t root, uint32_t c)
{
    uint32_t k = (uint32_t)s->spec.k;
    if (s->est_n != n || s->est_term == NULL) {
        s->est_term = rc_xrealloc(s->est_term, (n ? n : 1) * sizeof *s->est_term);
        s->est_parent = rc_xrealloc(s->est_parent, (n ? n : 1) * sizeof *s->est_parent);
        for (uint32_t v = 0; v < n; v++) {
            s->est_term[v] =
                s->t_msg_ms + s->t_queue_ms * (1.0 + (double)rc_sched_child_count(n, k, v));
            s->est_parent[v] = v ? rc_sched_parent(k, v) : 0;
        }
        s->est_n = n;
    }
    double est = s->t_msg_ms;
    for (uint32_t v = c;; v = s->est_parent[v]) {
        est += s->est_term[v];
        if (v == root || v == 0) break;
    }
    return est;
}

/* rc_sched_descendants(n, k, role) in the same (pre)order, from the table;
 * sets *nd.  Valid until the next call for another group size. */
static const uint32_t *descendants(rc_state *s, uint32_t n, uint32_t role, size_t *nd)
{
    uint32_t k = (uint32_t)s->spec.k;
    if (s->desc_n != n || s->desc_off == NULL) {
        s->desc_off = rc_xrealloc(s->desc_off, (n ? n : 1) * sizeof *s->desc_off);
        s->desc_cnt = rc_xrealloc(s->desc_cnt, (n ? n : 1) * sizeof *s->desc_cnt);
        for (uint32_t v = 0; v < n; v++) s->desc_cnt[v] = UINT32_MAX;
        s->desc_used = 0;
        s->desc_n = n;
    }
    if (s->desc_cnt[role] == UINT32_MAX) {
        size_t m = rc_sched_descendants(n, k, role, NULL, 0);
        if (s->desc_used + m > s->desc_cap) {
            while (s->desc_used + m > s->desc_cap) s->desc_cap = s->desc_cap ? 2 * s->desc_cap : 1024;
            s->desc_pool = rc_xrealloc(s->desc_pool, s->desc_cap * sizeof *s->desc_pool);
        }
        rc_sched_descendants(n, k, role, s->desc_pool + s->desc_used, m);
        s->desc_off[role] = (uint32_t)s->desc_used;
        s->desc_cnt[role] = (uint32_t)m;
        s->desc_used += m;
    }
    *nd = s->desc_cnt[role];
    return s->desc_pool + s->desc_off[role];
}

/* The first copy to a role (or, unless arm-once, a reassigned one) left the
 * source: watch the role and its whole subtree (docs/spec.md §2.4 "Arming"). */
static void arm_subtree(rc_state *s, uint32_t sid, uint32_t node, uint32_t role, rc_time t)
{
    session *se = &s->sessions[sid];
    uint32_t n = se->n;
    uint32_t b = batch_open(s);
    arm(s, b, sid, node, role, estimate_ms(s, n, role, role), t);
    size_t nd;
    const uint32_t *desc = descendants(s, n, role, &nd);
    se = &s->sessions[sid];
    for (size_t i = 0; i < nd; i++) {
        uint32_t c = desc[i];
        /* Re-arming after a reassignment: members that already ACKed are done. */
        if ((se->acked[c / 8] >> (c % 8)) & 1) continue;
        arm(s, b, sid, se->order[c], c, estimate_ms(s, n, role, c), t);
    }
    batch_sort(s, &s->batches[b]);
    batch_next(s, b);
}

static void expire(rc_state *s, uint32_t e)
{
    entry en = s->entries[e];
    session *se = &s->sessions[en.session];
    kill_entry(s, e);
    if (se->entry_of_role[en.role] == (int32_t)e) se->entry_of_role[en.role] = -1;
    rc_mc_counters *c = rc_mc_counts(s->mc);
    c->timeouts++;
    seen_remove(s, se->group, se->source, en.node);
    if (is_leaf(s, se, en.role)) return; /* failed leaves are not retried (docs/spec.md §2.4 step 2) */
    uint32_t fresh;
    if (!seen_pop(s, se->group, se->source, &fresh)) {
        /* the successor of the failed node in receiver order, wrapping */
        uint32_t at = en.role;
        for (uint32_t i = 0; i < se->n; i++)
            if (se->order[i] == en.node) at = i;
        fresh = se->order[rc_sched_next(se->n, at)];
    }
    c->reassignments++;
    send_copy(s, se->source, en.session, fresh, en.role, !s->arm_once);
    /* Stop watching the subtree; entries expiring this very tick still run. */
    size_t nd;
    const uint32_t *desc = descendants(s, se->n, en.role, &nd);
    rc_time now = rc_mc_now(s->mc);
    for (size_t i = 0; i < nd; i++) {
        int32_t d = se->entry_of_role[desc[i]];
        if (d >= 0 && s->entries[d].alive && s->entries[d].fire > now) {
            kill_entry(s, (uint32_t)d);
            se->entry_of_role[desc[i]] = -1;
        }
    }
}

/* Pending expired entries are (slot, generation) pairs; sorting needs the
 * entries' arm order. */
static const entry *sort_entries;
static int cmp_pending(const void *a, const void *b)
{
    uint64_t x = sort_entries[((const uint32_t *)a)[0]].seq,
             y = sort_entries[((const uint32_t *)b)[0]].seq;
    return (x > y) - (x < y);
}

static void timer_op(rc_state *s, uint32_t obj, uint64_t arg)
{
    if ((arg & 1) == TIMER_PENDING) {
        idvec *pd = &s->pending[obj];
        if (!rc_mc_online(s->mc, obj) || pd->n == 0) return;
        /* Drop pairs whose entry died meanwhile, then handle the rest in the
         * order they were armed (docs/spec.md §2.4). */
        uint32_t n = 0;
        uint32_t *ids = rc_xmalloc(pd->n * sizeof *ids);
        for (uint32_t i = 0; i + 1 < pd->n; i += 2) {
            uint32_t e = pd->v[i], gen = pd->v[i + 1];
            if (s->entries[e].alive && s->entries[e].gen == gen) {
                ids[n++] = e;
                ids[n++] = gen;
            }
        }
        pd->n = 0;
        sort_entries = s->entries;
        qsort(ids, n / 2, 2 * sizeof *ids, cmp_pending);
        for (uint32_t i = 0; i < n; i += 2)
            if (s->entries[ids[i]].alive && s->entries[ids[i]].gen == ids[i + 1]) expire(s, ids[i]);
        free(ids);
        return;
    }
    /* obj is a run of timeouts; this event is for its entry v[pos - 1].  The
     * run's next live entry is queued after it is handled. */
    const tslot x = s->batches[obj].s.v[s->batches[obj].pos - 1];
    entry *en = &s->entries[x.e];
    if (en->alive && en->gen == x.gen) {
        uint32_t source = s->sessions[en->session].source;
        /* Timeouts are checked only while the source is online (docs/spec.md §1.8). */
        if (!rc_mc_online(s->mc, source)) {
            idvec_push(&s->pending[source], x.e);
            idvec_push(&s->pending[source], en->gen);
        } else {
            expire(s, x.e);
        }
    }
    batch_next(s, obj);
}

static void rcs_timer(void *self, uint32_t obj, uint64_t arg)
{
    rc_state *s = self;
    timer_op(s, obj, arg);
    settle(s);
}

static void rcs_online(void *self, uint32_t user, bool online)
{
    rc_state *s = self;
    if (online && s->pending && s->pending[user].n > 0)
        rc_mc_timer(s->mc, rc_mc_now(s->mc), user, TIMER_PENDING);
}

/* ---------- strategy ops ---------- */

static void *rcs_create(rc_mc *mc, const rc_strategy_spec *spec, const rc_mc_cfg *cfg)
{
    rc_state *s = rc_xcalloc(1, sizeof *s);
    s->mc = mc;
    rc_rc_params_of(spec, &s->spec);
    s->users = (uint32_t)cfg->users;
    s->groups = rc_mc_groups(mc);
    s->acks = s->spec.timeouts || cfg->acks_always;
    s->arm_once = cfg->arm_once;
    s->nonce0_plain = cfg->nonce0_plain;
    s->nonce_perm = cfg->nonce_perm;
    /* docs/spec.md §2.4: t_msg = 1000 * factor * hops / mu with hops = layers + 1;
     * t_queue = 1000 / (lambda_P x p), both after lambda scaling. */
    uint32_t hops = rc_mc_hops(mc);
    s->t_msg_ms = 1000.0 * cfg->rc_base_delay_factor * hops * rc_mc_mean_hop_delay_s(mc);
    /* With links (§2.4, §1.16) every t_msg term -- a copy's path or an ACK's --
     * also waits for the path's links, which no mixing delay covers. */
    double links = rc_mc_path_link_latency_s(mc);
    if (links > 0) s->t_msg_ms += 1000.0 * links;
    s->t_queue_ms = 1000.0 / rc_mc_payload_rate(mc);
    s->retire = rc_mc_population(mc);
    s->n_slots = rc_mc_slots(mc);
    s->nonce_next = rc_xcalloc(s->n_slots, sizeof(uint32_t));
    s->last_seen = rc_xcalloc(s->n_slots, sizeof(uint32_t *));
    s->pending = rc_xcalloc(s->users, sizeof(idvec));
    s->sched_rng = rc_rng_new(0, 0); /* reseeded per message */
    s->scratch = rc_xmalloc((size_t)s->users * sizeof(uint32_t));
    s->tick = rc_mc_tick(mc);
    return s;
}

static void rcs_destroy(void *self)
{
    rc_state *s = self;
    for (uint32_t i = 0; i < s->n_sessions; i++) {
        session *se = &s->sessions[i];
        free(se->order);
        free(se->entry_of_role);
        free(se->acked);
        free(se->handled);
        free(se->handled_other);
    }
    free(s->sessions);
    free(s->entries);
    idvec_free(&s->free_entries);
    for (uint32_t i = 0; i < s->n_batches; i++) tslotvec_free(&s->batches[i].s);
    free(s->batches);
    idvec_free(&s->free_batches);
    free(s->tsort);
    free(s->nonce_next);
    for (size_t i = 0; i < s->n_slots; i++) free(s->last_seen[i]);
    idvec_free(&s->free_sessions);
    idvec_free(&s->settle);
    free(s->last_seen);
    for (uint32_t i = 0; i < s->users; i++) idvec_free(&s->pending[i]);
    free(s->pending);
    gsl_rng_free(s->sched_rng);
    for (uint32_t i = 0; i < s->n_plans; i++) free(s->plan[i]);
    free(s->plan);
    free(s->plan_n);
    free(s->est_term);
    free(s->est_parent);
    free(s->desc_off);
    free(s->desc_cnt);
    free(s->desc_pool);
    free(s->scratch);
    free(s);
}

static void rcs_multicast(void *self, uint32_t group, uint32_t source, uint32_t payload)
{
    rc_state *s = self;
    uint32_t sid;
    if (s->free_sessions.n > 0) {
        sid = s->free_sessions.v[--s->free_sessions.n];
    } else {
        if (s->n_sessions == s->cap_sessions) {
            s->cap_sessions = s->cap_sessions ? s->cap_sessions * 2 : 1024;
            s->sessions = rc_xrealloc(s->sessions, s->cap_sessions * sizeof *s->sessions);
        }
        sid = s->n_sessions++;
    }
    session *se = &s->sessions[sid];
    memset(se, 0, sizeof *se);
    se->group = group;
    se->source = source;
    se->nonce = s->nonce_next[rc_mc_slot(s->mc, group, source)]++;
    se->payload = payload;
    rc_mc_payload_hold(s->mc, payload); /* released when the session retires */
    uint32_t n = se->n = rc_mc_group_size(s->mc, group);
    se->order = rc_xmalloc(n * sizeof(uint32_t));
    se->handled = rc_xcalloc((n + 7) / 8, 1);
    /* U = [source, the other members in group order], receivers shuffled per
     * message (docs/spec.md §2.3.2); the paper's nonce 0 keeps group order. */
    const uint32_t *mem = rc_mc_group_members(s->mc, group);
    uint32_t j = 0;
    se->order[j++] = source;
    for (uint32_t i = 0; i < n; i++)
        if (mem[i] != source) se->order[j++] = mem[i];
    RC_ASSERT(j == n);
    if (s->nonce0_plain && se->nonce == 0) {
        /* group order as it is */
    } else if (s->nonce_perm) {
        rc_pyrandom_shuffle_apply(shuffle_plan(s, se->nonce, n - 1), se->order + 1, n - 1);
    } else if (n > 2) {
        uint64_t key = ((uint64_t)group << 40) ^ ((uint64_t)source << 20) ^ se->nonce;
        rc_rng_reseed(s->sched_rng, rc_mc_seed(s->mc), 0x5c4ed00000000000ULL ^ key);
        rc_rng_shuffle_u32(s->sched_rng, se->order + 1, n - 1);
    }
    if (s->spec.timeouts) {
        se->entry_of_role = rc_xmalloc(n * sizeof(int32_t));
        se->acked = rc_xcalloc((n + 7) / 8, 1);
        for (uint32_t i = 0; i < n; i++) se->entry_of_role[i] = -1;
    }
    size_t nc = rc_sched_children(n, (uint32_t)s->spec.k, 0, s->scratch, s->users);
    uint32_t *kids = rc_xmalloc((nc ? nc : 1) * sizeof(uint32_t));
    memcpy(kids, s->scratch, nc * sizeof(uint32_t));
    for (size_t i = 0; i < nc; i++)
        send_copy(s, source, sid, s->sessions[sid].order[kids[i]], kids[i], s->spec.timeouts);
    free(kids);
    settle_later(s, sid);
    settle(s);
}

static void rcs_sent(void *self, uint32_t user, const rc_msg *m, rc_time t)
{
    rc_state *s = self;
    if (!m->arm || !s->spec.timeouts || m->type != RC_RCM_PAYLOAD) return;
    (void)user;
    arm_subtree(s, m->aux, m->recipient, m->role, t);
}

static void receive_op(rc_state *s, uint32_t user, const rc_msg *m, bool online_label)
{
    if (s->spec.timeouts) seen_push(s, m->group, user, m->sender);
    session *se = &s->sessions[m->aux];
    if (m->type == RC_RCM_ACK) {
        if (se->entry_of_role != NULL) {
            se->acked[m->role / 8] |= (uint8_t)(1u << (m->role % 8));
            int32_t e = se->entry_of_role[m->role];
            if (e >= 0 && s->entries[e].node == m->sender) {
                kill_entry(s, (uint32_t)e);
                se->entry_of_role[m->role] = -1;
            }
        }
        return;
    }
    if (s->spec.drop_offline && !online_label) {
        rc_mc_app_deliver(s->mc, user, m->payload, false);
        return;
    }
    if (handled_test_set(se, user, m->role)) {
        if (s->acks) send_ack(s, user, m->aux, m->role);
        rc_mc_app_deliver(s->mc, user, m->payload, online_label); /* counted as a duplicate */
        return;
    }
    rc_mc_app_deliver(s->mc, user, m->payload, online_label);
    size_t nc = rc_sched_children(se->n, (uint32_t)s->spec.k, m->role, s->scratch, s->users);
    uint32_t sid = m->aux;
    uint32_t kbuf[64]; /* a role has k per round: a malloc per receive was 3 % of a job */
    uint32_t *kids = nc <= 64 ? kbuf : rc_xmalloc(nc * sizeof(uint32_t));
    memcpy(kids, s->scratch, nc * sizeof(uint32_t));
    for (size_t i = 0; i < nc; i++) {
        uint32_t r = s->sessions[sid].order[kids[i]];
        if (r != user) send_copy(s, user, sid, r, kids[i], false);
    }
    if (kids != kbuf) free(kids);
    if (s->acks) send_ack(s, user, sid, m->role);
}

static void rcs_receive(void *self, uint32_t user, const rc_msg *m, bool online_label)
{
    rc_state *s = self;
    receive_op(s, user, m, online_label);
    s->sessions[m->aux].inflight--;
    settle_later(s, m->aux);
    settle(s);
}

const rc_strategy_ops rc_rollercoaster_ops = {
    .name = "rc",
    .create = rcs_create,
    .destroy = rcs_destroy,
    .multicast = rcs_multicast,
    .receive = rcs_receive,
    .sent = rcs_sent,
    .timer = rcs_timer,
    .online = rcs_online,
};
