/* disclosure: the long-term observer and its estimators (anon/disclosure.h,
 * docs/spec.md §11).
 *
 * Everything is a per-user count or sum, updated in O(1) per observation
 * (an arrival also visits the multicasts whose window is open, a handful),
 * plus one record per open multicast with a count and a first-arrival rank
 * per member of the target group.  The membership ranking is computed at
 * checkpoints (every multicast up to 64, then 32 per doubling): O(users) each.
 */
#include "anon/disclosure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/rng.h"

enum { STREAM_DISC = 52, STREAM_DISC_MIXES = 53, STREAM_DISC_PATH = 54 };
#define NONE32 UINT32_MAX
/* The source posterior's odds per unit of deviation from the typical count
 * (docs/spec.md §11.3): (1 - delta) / delta with delta = 0.05. */
#define SRC_DELTA 0.05
/* A member the provider fan-out's request revealed outranks every score. */
#define REVEALED_BONUS 1e6

typedef struct open_mc {
    rc_time t;
    uint32_t source;
    uint32_t relay; /* the client whose fan-out request a corrupted provider saw, or NONE32 */
    uint32_t first_from; /* the member whose linked send in the window left first, or NONE32 */
    rc_time first_sent;
    uint32_t *cnt;  /* per member: real arrivals observed in the window */
    uint8_t *on;    /* per member: online at t */
    uint8_t *rank;  /* per member with cnt > 0: its first arrival's rank (capped) */
    uint32_t n_first; /* members that have received in the window so far */
} open_mc;

/* Window counts above this are counted here (the source histograms). */
#define DISC_HIST 64
/* The prior of the non-sources' histogram: this weight on one copy (every
 * member but the source receives each multicast once), 1 on every count. */
#define PRIOR_ONE 10.0
/* First-arrival ranks above this are counted here (the rank histograms;
 * min(m, this) bins). */
#define DISC_RANK 32
/* The sources' rank law starts as the others' (a rank says nothing) but for
 * rank 0, this times as likely (a multicast's first copy goes to another
 * member than its source), and is learned with this weight on that start. */
#define RANK_FIRST_ODDS 0.1
#define RANK_PRIOR 10.0

typedef struct src_rec {
    uint32_t source;
    uint32_t relayed;
    double top1, h;
} src_rec;

typedef struct pending {
    rc_time t, sent;
    uint32_t user, sender; /* sender: RC_DISC_UNLINKED unless the mixes linked it */
} pending;

struct rc_disc {
    uint32_t users, providers, m;
    rc_time window;
    uint32_t *provider_of;
    bool *corrupt; /* per provider */
    uint64_t n_corrupt;
    bool *member;
    int32_t *pos;       /* per user: its position among the members, or -1 */
    /* the global passive view: online spans */
    bool *online;
    rc_time *since;     /* when it last came online */
    int64_t *online_us; /* closed online spans */
    uint64_t *trig_off; /* multicasts so far when it last went offline */
    uint64_t *missed;   /* multicasts that happened while it was offline (closed spans) */
    /* corrupted providers: arrivals of real sub-messages */
    double *a_win;      /* each weighted by the windows open at its arrival */
    uint64_t *a_out;    /* outside every window */
    uint64_t *a_tot;
    /* the comeback burst (observed users): arrivals during the current
     * offline span, and over the closed spans that held a multicast start:
     * their arrivals and their length (us) */
    rc_time *off_at;
    uint32_t *b_cur;
    double *b_sum, *b_len;
    /* linked messages with the user at either end: sent and arrived inside
     * a window (weighted by the windows), outside every window, in all */
    double *l_win;
    uint32_t *l_out, *l_tot;
    bool revealed;      /* a fan-out request showed the group's member list */
    /* the target group's multicasts */
    uint64_t k;         /* so far */
    open_mc *ring;      /* open windows, oldest first */
    uint32_t r_head, r_n, r_cap;
    double wsum_closed; /* closed windows' length (us) */
    rc_time cov_end;    /* the union of the windows: its end and length */
    double cov_total;
    /* the source attack: the window counts' histograms, learned (h_src: of
     * sources, h_non: of the other members), and one record per multicast */
    double h_src[DISC_HIST], h_non[DISC_HIST];
    double r_src[DISC_RANK], r_non[DISC_RANK]; /* likewise, of first-arrival ranks */
    double src_top1, src_h;
    uint64_t src_n;
    src_rec *rec;
    size_t n_rec, cap_rec;
    /* corrupted mixes: their links, and how often the earliest linked sender
     * of a multicast's window was its source (learned: link_hit of link_n) */
    bool *mix_corrupt;  /* layers x per_layer */
    uint32_t layers, per_layer;
    bool provider_mixes;
    uint64_t n_corrupt_mixes, linked;
    gsl_rng *rng_path;
    double link_hit, link_n;
    /* the learning curve */
    rc_disc_point *curve;
    size_t n_curve, cap_curve;
    double to90;
    double *score, *work; /* users */
    double *work0;        /* users: the source posterior the rank laws learn from */
    /* arrivals reported ahead of their time (the net decides a path when it
     * starts), a min-heap by time, taken when the run reaches them */
    pending *heap;
    size_t n_heap, cap_heap;
};

/* Marks `want` of the n places in out[], chosen by a partial Fisher-Yates
 * shuffle on stream `stream` of the job's seed (a stream of their own, so the
 * choice does not move any other draw). */
static void mark_some(uint64_t seed, uint64_t stream, uint32_t n, uint32_t want, bool *out)
{
    gsl_rng *r = rc_rng_new(seed, stream);
    uint32_t *idx = rc_xmalloc((n ? n : 1) * sizeof *idx);
    for (uint32_t i = 0; i < n; i++) idx[i] = i;
    for (uint32_t i = 0; i < want; i++) {
        uint32_t j = i + rc_rng_below(r, n - i), t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
        out[idx[i]] = true;
    }
    free(idx);
    rc_rng_free(r);
}

rc_disc *rc_disc_new(const rc_disc_cfg *cfg)
{
    rc_disc *d = rc_xcalloc(1, sizeof *d);
    uint32_t n = cfg->users, np = cfg->providers;
    d->users = n;
    d->providers = np;
    d->window = cfg->window;
    d->provider_of = rc_xmalloc((n ? n : 1) * sizeof *d->provider_of);
    memcpy(d->provider_of, cfg->provider_of, n * sizeof *d->provider_of);
    d->corrupt = rc_xcalloc(np ? np : 1, sizeof *d->corrupt);
    /* round(f x providers) of them, a partial Fisher-Yates shuffle on a stream of their own */
    uint32_t want = (uint32_t)llround(cfg->corrupt_providers * np);
    if (want > np) want = np;
    mark_some(cfg->seed, STREAM_DISC, np, want, d->corrupt);
    d->n_corrupt = want;
    /* corrupted mixes: round(f x mixes), likewise on a stream of their own */
    d->provider_mixes = cfg->provider_mixes;
    d->layers = cfg->mix_layers;
    d->per_layer = cfg->mixes_per_layer;
    uint32_t nm = d->layers * d->per_layer;
    d->mix_corrupt = rc_xcalloc(nm ? nm : 1, sizeof *d->mix_corrupt);
    uint32_t wm = (uint32_t)llround(cfg->corrupt_mixes * nm);
    if (wm > nm) wm = nm;
    if (wm > 0) {
        mark_some(cfg->seed, STREAM_DISC_MIXES, nm, wm, d->mix_corrupt);
        d->rng_path = rc_rng_new(cfg->seed, STREAM_DISC_PATH);
    }
    d->n_corrupt_mixes = wm;
    size_t nn = n ? n : 1;
    d->member = rc_xcalloc(nn, sizeof *d->member);
    d->pos = rc_xmalloc(nn * sizeof *d->pos);
    for (uint32_t u = 0; u < n; u++) d->pos[u] = -1;
    d->online = rc_xcalloc(nn, sizeof *d->online);
    d->since = rc_xcalloc(nn, sizeof *d->since);
    d->online_us = rc_xcalloc(nn, sizeof *d->online_us);
    d->trig_off = rc_xcalloc(nn, sizeof *d->trig_off);
    d->missed = rc_xcalloc(nn, sizeof *d->missed);
    d->a_win = rc_xcalloc(nn, sizeof *d->a_win);
    d->a_out = rc_xcalloc(nn, sizeof *d->a_out);
    d->a_tot = rc_xcalloc(nn, sizeof *d->a_tot);
    d->off_at = rc_xcalloc(nn, sizeof *d->off_at);
    d->b_cur = rc_xcalloc(nn, sizeof *d->b_cur);
    d->b_sum = rc_xcalloc(nn, sizeof *d->b_sum);
    d->b_len = rc_xcalloc(nn, sizeof *d->b_len);
    d->l_win = rc_xcalloc(nn, sizeof *d->l_win);
    d->l_out = rc_xcalloc(nn, sizeof *d->l_out);
    d->l_tot = rc_xcalloc(nn, sizeof *d->l_tot);
    d->score = rc_xmalloc(nn * sizeof *d->score);
    d->work = rc_xmalloc(nn * sizeof *d->work);
    d->work0 = rc_xmalloc(nn * sizeof *d->work0);
    d->to90 = NAN;
    for (int c = 0; c < DISC_HIST; c++) d->h_src[c] = d->h_non[c] = 1;
    d->h_non[1] += PRIOR_ONE;
    for (int r = 0; r < DISC_RANK; r++) d->r_non[r] = 1; /* r_src: 0 */
    return d;
}

void rc_disc_free(rc_disc *d)
{
    if (d == NULL) return;
    for (uint32_t i = 0; i < d->r_cap; i++) {
        free(d->ring[i].cnt);
        free(d->ring[i].on);
        free(d->ring[i].rank);
    }
    free(d->ring);
    free(d->provider_of);
    free(d->corrupt);
    free(d->member);
    free(d->pos);
    free(d->online);
    free(d->since);
    free(d->online_us);
    free(d->trig_off);
    free(d->missed);
    free(d->a_win);
    free(d->a_out);
    free(d->a_tot);
    free(d->off_at);
    free(d->b_cur);
    free(d->b_sum);
    free(d->b_len);
    free(d->l_win);
    free(d->l_out);
    free(d->l_tot);
    free(d->rec);
    free(d->curve);
    free(d->score);
    free(d->work);
    free(d->work0);
    free(d->heap);
    free(d->mix_corrupt);
    if (d->rng_path) rc_rng_free(d->rng_path);
    free(d);
}

bool rc_disc_provider_corrupt(const rc_disc *d, uint32_t provider)
{
    return provider < d->providers && d->corrupt[provider];
}

void rc_disc_member(rc_disc *d, uint32_t user)
{
    RC_ASSERT(user < d->users && d->k == 0);
    if (d->member[user]) return;
    d->member[user] = true;
    d->pos[user] = (int32_t)d->m++;
}

void rc_disc_start(rc_disc *d, const bool *online)
{
    for (uint32_t u = 0; u < d->users; u++) {
        d->online[u] = online[u];
        d->since[u] = 0;
    }
}

static bool observed(const rc_disc *d, uint32_t u) { return d->corrupt[d->provider_of[u]]; }

static void drain(rc_disc *d, rc_time limit);

void rc_disc_online(rc_disc *d, uint32_t u, bool on, rc_time now)
{
    if (on == d->online[u]) return;
    /* An observed user's arrivals up to now are taken in the state they
     * arrived in (offline: into the burst its first pull will hold).  At one
     * instant a postbox is filled before availability changes (docs/spec.md
     * §1.2), so an arrival at the instant it comes back is in that pull, and
     * one at the instant it leaves waits for the next. */
    if (observed(d, u)) drain(d, on ? now + 1 : now);
    d->online[u] = on;
    if (on) {
        d->since[u] = now;
        /* the burst: a span that held a multicast of the target group */
        if (d->k > d->trig_off[u]) {
            d->b_sum[u] += d->b_cur[u];
            d->b_len[u] += (double)(now - d->off_at[u]);
        }
        d->missed[u] += d->k - d->trig_off[u];
    } else {
        d->online_us[u] += now - d->since[u];
        d->trig_off[u] = d->k;
        d->off_at[u] = now;
    }
    d->b_cur[u] = 0;
}

/* ---------- the source attack (docs/spec.md §11.3) ---------- */

/* A closed multicast's contribution to the source metrics (kept so that a
 * fan-out request seen after its window closed can still settle it). */
static void src_record(rc_disc *d, uint32_t source, double top1, double h, bool relayed)
{
    if (d->n_rec == d->cap_rec) {
        d->cap_rec = d->cap_rec ? 2 * d->cap_rec : 256;
        d->rec = rc_xrealloc(d->rec, d->cap_rec * sizeof *d->rec);
    }
    d->rec[d->n_rec++] = (src_rec){source, relayed, top1, h};
    d->src_top1 += top1;
    d->src_h += h;
    d->src_n++;
}

/* Normalises the log weights w[0..m) into a posterior in place; returns the
 * sum of exp(w - max) and, in *ties, how many share the largest weight. */
static double normalise(double *w, uint32_t m, uint32_t *ties)
{
    double mx = -INFINITY, z = 0;
    for (uint32_t i = 0; i < m; i++)
        if (w[i] > mx) mx = w[i];
    uint32_t t = 0;
    for (uint32_t i = 0; i < m; i++) {
        z += exp(w[i] - mx);
        if (w[i] == mx) t++;
    }
    for (uint32_t i = 0; i < m; i++) w[i] = exp(w[i] - mx) / z;
    if (ties) *ties = t;
    return z;
}

/* The posterior over the members of a closed multicast (docs/spec.md §11.3):
 * each observed member's count in the window is scored by the learned odds
 * H_src[c] / H_non[c], its first arrival's rank by the rank laws, members
 * offline at the multicast by 1/RHO, the unobserved by 1; then the count
 * histograms learn from the posterior, the rank laws from the posterior with
 * the ranks scored by their start only. */
static void source_posterior(rc_disc *d, const open_mc *o, const uint32_t *members)
{
    if (d->m == 0) return;
    if (o->relay != NONE32) {
        /* The source's own corrupted provider received its fan-out request. */
        src_record(d, o->source, o->relay == o->source ? 1.0 : 0.0, 0.0, true);
        return;
    }
    double zs = 0, zn = 0;
    for (int c = 0; c < DISC_HIST; c++) {
        zs += d->h_src[c];
        zn += d->h_non[c];
    }
    /* the first-arrival ranks' log odds, source against not, per rank:
     * the others' law p_non; the sources' law learned from r_src on a start
     * of weight RANK_PRIOR shaped as p_non but less likely at rank 0 (and,
     * for the learning below, that start alone: rank_lr0) */
    uint32_t nb = d->m < DISC_RANK ? d->m : DISC_RANK;
    double rank_lr[DISC_RANK], rank_lr0[DISC_RANK], rzs = 0, rzn = 0, rzp = 0;
    for (uint32_t r = 0; r < nb; r++) {
        rzs += d->r_src[r];
        rzn += d->r_non[r];
    }
    for (uint32_t r = 0; r < nb; r++) rzp += d->r_non[r] / rzn * (r == 0 ? RANK_FIRST_ODDS : 1.0);
    for (uint32_t r = 0; r < nb; r++) {
        double pn = d->r_non[r] / rzn;
        double ps = (d->r_src[r] + RANK_PRIOR * pn * (r == 0 ? RANK_FIRST_ODDS : 1.0) / rzp) /
                    (rzs + RANK_PRIOR);
        rank_lr[r] = log(ps) - log(pn);
        rank_lr0[r] = log(r == 0 ? RANK_FIRST_ODDS : 1.0) - log(rzp); /* r_src = 0 */
    }
    double lr = log((1 - SRC_DELTA) / SRC_DELTA);
    double *lw = d->work, *lw0 = d->work0;
    for (uint32_t i = 0; i < d->m; i++) {
        double w = 0, w0;
        if (observed(d, members[i])) {
            uint32_t c = o->cnt[i] < DISC_HIST ? o->cnt[i] : DISC_HIST - 1;
            w = log(d->h_src[c] / zs) - log(d->h_non[c] / zn);
            w0 = w;
            /* a member that received: the rank of its first arrival among the
             * members' (the source's children receive first), given c > 0;
             * where a link shows the order of the sends (below), that order
             * outranks the arrivals' (combined, the two overcount one fact) */
            if (c > 0 && o->first_from == NONE32) {
                w += rank_lr[o->rank[i] < nb ? o->rank[i] : nb - 1];
                w0 += rank_lr0[o->rank[i] < nb ? o->rank[i] : nb - 1];
            }
        } else {
            w0 = 0;
        }
        if (!o->on[i]) { /* sources are online when they multicast */
            w -= lr;
            w0 -= lr;
        }
        lw[i] = w;
        lw0[i] = w0;
    }
    /* The earliest linked send of the window came from the source with
     * probability q, learned (below), else from any other member: odds
     * q (m - 1) / (1 - q) on its sender. */
    double q = (d->link_hit + 1) / (d->link_n + 2);
    if (o->first_from != NONE32 && d->m > 1) {
        lw[o->first_from] += log(q * (d->m - 1) / (1 - q));
        lw0[o->first_from] += log(q * (d->m - 1) / (1 - q));
    }
    uint32_t ties = 0;
    double z = normalise(lw, d->m, &ties);
    normalise(lw0, d->m, NULL);
    double h = 0;
    for (uint32_t i = 0; i < d->m; i++)
        if (lw[i] > 0) h -= lw[i] * log2(lw[i]);
    if (o->first_from != NONE32) {
        d->link_hit += lw[o->first_from];
        d->link_n += 1;
    }
    /* learn: each observed member's count, split by its posterior; its rank,
     * by the posterior whose rank term is the laws' start.  A multicast's
     * ranks are a permutation of its receivers, as likely under any law of
     * the source's rank, so the ranks cannot teach that law by themselves;
     * learned from a posterior that holds it, the law confirmed its own
     * guesses: the first receivers' bursts (other multicasts' ACKs) taught
     * it that sources receive first, which put more weight on them,
     * and the guess got worse the longer the adversary watched
     * (docs/disclosure.md, "Why the source guess fell over the day") */
    for (uint32_t i = 0; i < d->m; i++) {
        if (!observed(d, members[i])) continue;
        uint32_t c = o->cnt[i] < DISC_HIST ? o->cnt[i] : DISC_HIST - 1;
        d->h_src[c] += lw[i];
        d->h_non[c] += 1 - lw[i];
        if (c > 0) {
            uint32_t r = o->rank[i] < nb ? o->rank[i] : nb - 1;
            d->r_src[r] += lw0[i];
            d->r_non[r] += 1 - lw0[i];
        }
    }
    int32_t s = d->pos[o->source];
    double mxp = 1.0 / z;
    src_record(d, o->source, s >= 0 && lw[s] == mxp ? 1.0 / ties : 0.0, h, false);
}

static uint32_t *member_list(const rc_disc *d, uint32_t *out)
{
    for (uint32_t u = 0; u < d->users; u++)
        if (d->pos[u] >= 0) out[d->pos[u]] = u;
    return out;
}

static void close_until(rc_disc *d, rc_time now)
{
    uint32_t *members = NULL;
    while (d->r_n > 0) {
        open_mc *o = &d->ring[d->r_head];
        if (o->t + d->window > now) break;
        if (members == NULL) members = member_list(d, rc_xmalloc((d->m ? d->m : 1) * sizeof *members));
        source_posterior(d, o, members);
        d->wsum_closed += (double)d->window;
        d->r_head = (d->r_head + 1) % d->r_cap;
        d->r_n--;
    }
    free(members);
}

/* A linked message from `s` to `u` (docs/spec.md §11.3, membership): it
 * counts at both ends, inside the windows it left and arrived in, or outside
 * every window (the background), or neither (it left in a window closed since
 * or before the open ones). */
static void take_link(rc_disc *d, uint32_t s, uint32_t u, rc_time sent)
{
    if (s == u) return;
    d->l_tot[s]++;
    d->l_tot[u]++;
    if (d->r_n == 0) {
        if (sent >= d->cov_end) {
            d->l_out[s]++;
            d->l_out[u]++;
        }
        return;
    }
    uint32_t nw = 0;
    for (uint32_t i = 0; i < d->r_n; i++) nw += sent >= d->ring[(d->r_head + i) % d->r_cap].t;
    d->l_win[s] += nw;
    d->l_win[u] += nw;
}

static void take_arrival(rc_disc *d, uint32_t u, rc_time now, uint32_t sender, rc_time sent)
{
    close_until(d, now);
    if (sender != RC_DISC_UNLINKED) {
        take_link(d, sender, u, sent);
        if (d->pos[sender] >= 0) {
            /* a member's linked send: the earliest since the start of each open window */
            for (uint32_t i = 0; i < d->r_n; i++) {
                open_mc *o = &d->ring[(d->r_head + i) % d->r_cap];
                if (sent >= o->t && (o->first_from == NONE32 || sent < o->first_sent)) {
                    o->first_from = (uint32_t)d->pos[sender];
                    o->first_sent = sent;
                }
            }
        }
    }
    d->a_tot[u]++;
    if (!d->online[u]) d->b_cur[u]++; /* waits for its comeback pull */
    if (d->r_n == 0) {
        d->a_out[u]++;
        return;
    }
    d->a_win[u] += d->r_n;
    int32_t p = d->pos[u];
    if (p < 0) return;
    for (uint32_t i = 0; i < d->r_n; i++) {
        open_mc *o = &d->ring[(d->r_head + i) % d->r_cap];
        if (o->cnt[p]++ == 0) {
            o->rank[p] = (uint8_t)(o->n_first < DISC_RANK ? o->n_first : DISC_RANK - 1);
            o->n_first++;
        }
    }
}

/* Whether the corrupted mixes link a sub-message: its path, one mix per
 * layer drawn uniformly, is corrupted at every layer. */
static bool path_linked(rc_disc *d)
{
    if (d->rng_path == NULL || d->layers == 0) return false;
    for (uint32_t l = 0; l < d->layers; l++)
        if (!d->mix_corrupt[l * d->per_layer + rc_rng_below(d->rng_path, d->per_layer)]) return false;
    return true;
}

void rc_disc_arrived(rc_disc *d, uint32_t u, rc_time at, uint32_t sender, rc_time sent)
{
    if (!observed(d, u)) return;
    if (sender != RC_DISC_UNLINKED &&
        (sender >= d->users || !path_linked(d) ||
         (d->provider_mixes && !d->corrupt[d->provider_of[sender]])))
        sender = RC_DISC_UNLINKED;
    d->linked += sender != RC_DISC_UNLINKED;
    if (d->n_heap == d->cap_heap) {
        d->cap_heap = d->cap_heap ? 2 * d->cap_heap : 1024;
        d->heap = rc_xrealloc(d->heap, d->cap_heap * sizeof *d->heap);
    }
    size_t i = d->n_heap++;
    while (i > 0 && d->heap[(i - 1) / 2].t > at) {
        d->heap[i] = d->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    d->heap[i] = (pending){at, sent, u, sender};
}

/* Takes the arrivals before `limit`, in time order. */
static void drain(rc_disc *d, rc_time limit)
{
    while (d->n_heap > 0 && d->heap[0].t < limit) {
        pending top = d->heap[0], last = d->heap[--d->n_heap];
        size_t i = 0;
        for (;;) {
            size_t c = 2 * i + 1;
            if (c >= d->n_heap) break;
            if (c + 1 < d->n_heap && d->heap[c + 1].t < d->heap[c].t) c++;
            if (d->heap[c].t >= last.t) break;
            d->heap[i] = d->heap[c];
            i = c;
        }
        if (d->n_heap > 0) d->heap[i] = last;
        take_arrival(d, top.user, top.t, top.sender, top.sent);
    }
}

void rc_disc_relay(rc_disc *d, uint32_t u, rc_time now)
{
    if (!observed(d, u)) return;
    drain(d, now);
    close_until(d, now);
    d->revealed = true; /* the request lists the group's members */
    /* The provider reads the request: which multicast it is, and that u sent
     * it.  The oldest open one of u's not settled yet ... */
    for (uint32_t i = 0; i < d->r_n; i++) {
        open_mc *o = &d->ring[(d->r_head + i) % d->r_cap];
        if (o->relay == NONE32 && o->source == u) {
            o->relay = u;
            return;
        }
    }
    /* ... or one whose window has closed: settled now. */
    for (size_t i = d->n_rec, n = 0; i-- > 0 && n < 256; n++) {
        src_rec *r = &d->rec[i];
        if (r->relayed || r->source != u) continue;
        d->src_top1 += 1.0 - r->top1;
        d->src_h -= r->h;
        r->top1 = 1.0;
        r->h = 0;
        r->relayed = 1;
        return;
    }
}

/* ---------- the membership attack (docs/spec.md §11.3) ---------- */

/* Every user's score after the multicasts so far, at `now`. */
static void membership_scores(rc_disc *d, rc_time now)
{
    double el = (double)now, k = (double)d->k;
    double open_w = 0;
    for (uint32_t i = 0; i < d->r_n; i++) {
        rc_time a = now - d->ring[(d->r_head + i) % d->r_cap].t;
        open_w += (double)(a < d->window ? a : d->window);
    }
    double wsum = d->wsum_closed + open_w;
    double cov = d->cov_total - (d->cov_end > now ? (double)(d->cov_end - now) : 0);
    for (uint32_t u = 0; u < d->users; u++) {
        double s = 0;
        if (k > 0 && el > 0) {
            if (observed(d, u)) {
                /* statistical disclosure: arrivals in the windows beyond the background's */
                double rate = el - cov > 0 ? (double)d->a_out[u] / (el - cov)
                                           : (double)d->a_tot[u] / el;
                s += (d->a_win[u] - rate * wsum) / k;
                /* the comeback bursts: arrivals over the offline spans that
                 * held a multicast, beyond the background's */
                s += (d->b_sum[u] - rate * d->b_len[u]) / k;
            }
            /* linked messages with u at either end inside the windows, beyond
             * its background of linked messages */
            if (d->l_tot[u] > 0) {
                double lrate = el - cov > 0 ? (double)d->l_out[u] / (el - cov)
                                            : (double)d->l_tot[u] / el;
                s += (d->l_win[u] - lrate * wsum) / k;
            }
            /* online at the multicasts beyond its share of time online */
            double missed = (double)d->missed[u] + (d->online[u] ? 0 : k - (double)d->trig_off[u]);
            double on_us = (double)d->online_us[u] + (d->online[u] ? (double)(now - d->since[u]) : 0);
            s += (k - missed) / k - on_us / el;
        }
        if (d->revealed && d->member[u]) s += REVEALED_BONUS;
        d->score[u] = s;
    }
}

/* One point of the learning curve from the scores just computed. */
static void curve_push(rc_disc *d, rc_time now, double prec)
{
    if (d->n_curve == d->cap_curve) {
        d->cap_curve = d->cap_curve ? 2 * d->cap_curve : 128;
        d->curve = rc_xrealloc(d->curve, d->cap_curve * sizeof *d->curve);
    }
    double n = (double)d->src_n;
    d->curve[d->n_curve++] = (rc_disc_point){
        (uint32_t)d->k, 0, (double)now / 1e6, prec, prec,
        rc_disc_auc(d->score, d->member, d->users),
        d->src_n ? d->src_top1 / n : NAN, d->src_n ? d->src_h / n : NAN};
    if (isnan(d->to90) && prec >= 0.9) d->to90 = (double)d->k;
}

static void checkpoint(rc_disc *d, rc_time now)
{
    if (d->m == 0) return;
    membership_scores(d, now);
    curve_push(d, now, rc_disc_top_m_precision(d->score, d->member, d->users, d->m, d->work));
}

static bool checkpoint_due(uint64_t k)
{
    if (k == 0) return false;
    if (k <= 64) return true;
    int b = 63 - __builtin_clzll(k); /* 2^b <= k */
    return (k & ((1ULL << (b - 5)) - 1)) == 0;
}

void rc_disc_multicast(rc_disc *d, uint32_t source, rc_time now)
{
    drain(d, now);
    close_until(d, now);
    /* what the multicasts so far disclosed, seen at the start of the next */
    if (checkpoint_due(d->k)) checkpoint(d, now);
    if (d->r_n == d->r_cap) {
        uint32_t cap = d->r_cap ? 2 * d->r_cap : 16;
        open_mc *ring = rc_xcalloc(cap, sizeof *ring);
        for (uint32_t i = 0; i < d->r_n; i++) ring[i] = d->ring[(d->r_head + i) % d->r_cap];
        for (uint32_t i = d->r_n; i < cap; i++) {
            ring[i].cnt = rc_xmalloc((d->m ? d->m : 1) * sizeof *ring[i].cnt);
            ring[i].on = rc_xmalloc(d->m ? d->m : 1);
            ring[i].rank = rc_xmalloc(d->m ? d->m : 1);
        }
        free(d->ring);
        d->ring = ring;
        d->r_head = 0;
        d->r_cap = cap;
    }
    open_mc *o = &d->ring[(d->r_head + d->r_n) % d->r_cap];
    d->r_n++;
    o->t = now;
    o->source = source;
    o->relay = NONE32;
    o->first_from = NONE32;
    o->first_sent = 0;
    o->n_first = 0;
    memset(o->cnt, 0, (d->m ? d->m : 1) * sizeof *o->cnt);
    for (uint32_t u = 0; u < d->users; u++)
        if (d->pos[u] >= 0) o->on[d->pos[u]] = d->online[u];
    d->k++;
    rc_time end = now + d->window;
    d->cov_total += (double)(now >= d->cov_end ? d->window : end - d->cov_end);
    d->cov_end = end;
}

void rc_disc_finish(rc_disc *d, rc_time now, rc_disc_summary *out)
{
    drain(d, now + 1);
    close_until(d, now);
    /* the windows still open are cut at the end of the run */
    uint32_t *members = member_list(d, rc_xmalloc((d->m ? d->m : 1) * sizeof *members));
    while (d->r_n > 0) {
        open_mc *o = &d->ring[d->r_head];
        source_posterior(d, o, members);
        d->r_head = (d->r_head + 1) % d->r_cap;
        d->r_n--;
        rc_time a = now - o->t;
        d->wsum_closed += (double)(a < d->window ? a : d->window);
    }
    free(members);
    *out = (rc_disc_summary){d->k, d->n_corrupt, d->n_corrupt_mixes, d->linked,
                             NAN, NAN, NAN, NAN, NAN, NAN};
    if (d->k > 0 && d->m > 0) {
        membership_scores(d, now);
        double prec = rc_disc_top_m_precision(d->score, d->member, d->users, d->m, d->work);
        if (d->n_curve == 0 || d->curve[d->n_curve - 1].multicasts != d->k)
            curve_push(d, now, prec);
        out->membership_precision = out->membership_recall = prec;
        out->membership_auc = rc_disc_auc(d->score, d->member, d->users);
        out->multicasts_to_90 = d->to90;
    }
    if (d->src_n > 0) {
        out->source_top1 = d->src_top1 / (double)d->src_n;
        out->source_entropy_bits = d->src_h / (double)d->src_n;
    }
}

const rc_disc_point *rc_disc_curve(const rc_disc *d, size_t *n)
{
    *n = d->n_curve;
    return d->curve;
}

/* ---------- ranking metrics ---------- */

/* The k-th largest (0-based) of v[0..n), reordering v (Hoare's selection). */
static double kth_largest(double *v, int64_t n, int64_t k)
{
    int64_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double piv = v[lo + (hi - lo) / 2];
        int64_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] > piv) i++;
            while (v[j] < piv) j--;
            if (i <= j) {
                double t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else return v[k];
    }
    return v[k];
}

double rc_disc_top_m_precision(const double *score, const bool *member, uint32_t n, uint32_t m,
                               double *work)
{
    if (m == 0 || n == 0) return NAN;
    if (m > n) m = n;
    memcpy(work, score, n * sizeof *work);
    double th = kth_largest(work, n, m - 1);
    uint32_t gt = 0, eq = 0, mgt = 0, meq = 0;
    for (uint32_t u = 0; u < n; u++) {
        if (score[u] > th) {
            gt++;
            mgt += member[u];
        } else if (score[u] == th) {
            eq++;
            meq += member[u];
        }
    }
    /* the m - gt places left go to the tied users uniformly at random */
    double hits = mgt + (eq ? (double)meq * (double)(m - gt) / (double)eq : 0);
    return hits / m;
}

typedef struct scored {
    double s;
    bool member;
} scored;

static int cmp_scored(const void *x, const void *y)
{
    double a = ((const scored *)x)->s, b = ((const scored *)y)->s;
    return (a > b) - (a < b);
}

double rc_disc_auc(const double *score, const bool *member, uint32_t n)
{
    scored *v = rc_xmalloc((n ? n : 1) * sizeof *v);
    uint64_t pos = 0;
    for (uint32_t u = 0; u < n; u++) {
        v[u] = (scored){score[u], member[u]};
        pos += member[u];
    }
    uint64_t neg = n - pos;
    if (pos == 0 || neg == 0) {
        free(v);
        return NAN;
    }
    qsort(v, n, sizeof *v, cmp_scored);
    /* the members' rank sum, ties at their mean rank (1-based) */
    double rs = 0;
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i, mm = 0;
        while (j < n && v[j].s == v[i].s) mm += v[j++].member;
        rs += mm * (0.5 * ((double)i + 1 + (double)j));
        i = j;
    }
    free(v);
    return (rs - (double)pos * ((double)pos + 1) / 2) / ((double)pos * (double)neg);
}
