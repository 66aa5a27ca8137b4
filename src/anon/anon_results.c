/* anon_results: what the adversary's run adds up to (anon/anonymity.h,
 * docs/spec.md §10.4): at the run's end, the queue drained, the sender log's
 * waiting exits read, every tracked message's figures, the summary and the
 * observation file closed.  The observer itself is anonymity.c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anon/anon_internal.h"
#include "anon/anonymity.h"

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* numpy.percentile's linear rule on a sorted array. */
static double percentile(const double *v, size_t n, double q)
{
    if (n == 0) return NAN;
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    return v[lo] + (pos - (double)lo) * (v[hi] - v[lo]);
}

int rc_anon_finish(rc_anon *a, rc_err *err)
{
    rc_anon__drain(a, a->stop);
    rc_anon__slog_flush(a);
    for (uint32_t k = 0; k < a->n_tg; k++) {
        const tracked *g = &a->tg[k];
        a->missed += g->ghost && g->exited && !g->dropped;
    }
    a->rec = rc_xcalloc(a->n_tg ? a->n_tg : 1, sizeof *a->rec);
    double *h = rc_xmalloc((a->n_tg ? a->n_tg : 1) * sizeof *h);
    double hsum = 0, minsum = 0, ssum = 0;
    double *eps = rc_xmalloc((a->n_tg ? a->n_tg : 1) * sizeof *eps);
    size_t n_eps = 0, n_pair = 0;
    for (uint32_t k = 0; k < a->n_tg; k++) {
        const tracked *g = &a->tg[k];
        if (!g->exited || g->dropped) continue;
        rc_anon_record *r = &a->rec[a->n_rec++];
        r->target = k;
        r->sender = g->sender;
        r->recipient = g->recipient;
        r->sent_s = (double)g->sent / 1e6;
        r->latency_s = g->pulled >= 0 ? (double)(g->pulled - g->sent) / 1e6 : NAN;
        /* Normalised over the probability that left the mixes (docs/spec.md §10.4):
         * -sum (q/M) log2(q/M) = h/M + log2 M. */
        const exit_sums *x = &a->xs[k];
        r->entropy_bits = x->mass > 0 ? x->h / x->mass + log2(x->mass) : NAN;
        r->min_entropy_bits = x->maxq > 0 ? -log2(x->maxq / x->mass) : NAN;
        r->sender_entropy_bits = g->sender_h;
        r->mass = x->mass;
        h[a->n_rec - 1] = r->entropy_bits;
        hsum += r->entropy_bits;
        minsum += r->min_entropy_bits;
        ssum += g->sender_h;
        if (!isnan(g->eps)) {
            n_pair++;
            if (isfinite(g->eps)) eps[n_eps++] = g->eps;
        }
    }
    size_t n = a->n_rec;
    qsort(h, n, sizeof *h, cmp_double);
    a->sum.targets = n;
    a->sum.entropy_mean_bits = n ? hsum / (double)n : NAN;
    a->sum.entropy_median_bits = percentile(h, n, 0.5);
    a->sum.entropy_p5_bits = percentile(h, n, 0.05);
    a->sum.min_entropy_mean_bits = n ? minsum / (double)n : NAN;
    a->sum.sender_entropy_mean_bits = n && (a->sender_view || a->sl) ? ssum / (double)n : NAN;
    free(h);
    /* Unlinkability (docs/spec.md §10.4): epsilon over the messages where both
     * challenge senders are possible, delta the share where one is not. */
    double esum = 0;
    for (size_t i = 0; i < n_eps; i++) esum += eps[i];
    qsort(eps, n_eps, sizeof *eps, cmp_double);
    a->sum.eps_mean = n_eps ? esum / (double)n_eps : NAN;
    a->sum.eps_p95 = percentile(eps, n_eps, 0.95);
    a->sum.delta = n_pair ? (double)(n_pair - n_eps) / (double)n_pair : NAN;
    free(eps);
    /* The sender log's own figures, for sizing it (docs/anonymity.md, "Sender view"). */
    if (getenv("RCSIM_ANON_SLOG_DEBUG") && a->sl)
        fprintf(stderr,
                "anonymity: sender log: %zu entries at most (%zu allocated, ring %zu, %llu "
                "wide values), %llu exits read, %llu entries visited, largest share unplaced "
                "%.3g; %llu passes read %llu entries; the longest sweep %llu entries, the closest "
                "to the log's start %llu entries above it; sweeps' vectors: %s\n",
                a->sl->peak_n, a->sl->cap, a->sl->alpha_len,
                (unsigned long long)a->sl->n_wide_all, (unsigned long long)a->sl->sweeps,
                (unsigned long long)a->sl->swept, a->sl->max_unresolved,
                (unsigned long long)a->sl->passes, (unsigned long long)a->sl->read,
                (unsigned long long)a->sl->longest, (unsigned long long)a->sl->closest,
                rc_anon__sweep_isa_name(a->sl->isa));
    if (getenv("RCSIM_ANON_MEM_DEBUG")) {
        uint32_t nm = 0;
        for (uint32_t v = 0; v < a->nodes; v++) nm += a->role[v] == ROLE_MIXING;
        uint64_t tl = 0, tlf = 0;
        for (unsigned c = 0; c < TL_CLASSES; c++) {
            tl += a->tl_used[c] * (4ull << c) * 12;
            tlf += a->tl_nfree[c] * (4ull << c) * 12;
        }
        fprintf(stderr,
                "anon mem: n_tg %u cap_tg %u mixing %u pools %.1f MB; slots %u (%.1f MB); ev %u "
                "(%.1f MB); hcap %u (%.1f MB); tl in use %.1f MB free %.1f MB peak held %.1f MB; slog cap %zu "
                "(%.1f MB) ring %zu (%.1f MB); sv_free %u\n",
                a->n_tg, a->cap_tg, nm, nm * (double)a->cap_tg * 4 / 1e6, a->cap_slots,
                a->cap_slots * (double)sizeof(pkt) / 1e6, a->cap_ev,
                a->cap_ev * (double)sizeof(ev_rec) / 1e6, a->hcap, a->hcap * 12.0 / 1e6, tl / 1e6,
                tlf / 1e6, a->tl_peak / 1e6, a->sl ? a->sl->cap : 0, a->sl ? a->sl->cap * (double)sizeof(slog_e) / 1e6 : 0,
                a->sl ? a->sl->alpha_len : 0,
                a->sl ? a->sl->alpha_len * 8.0 * SL_LANES / 1e6 : 0, a->n_sv_free);
        fprintf(stderr,
                "anon sample: %llu candidates in the window (E %.0f), %llu keys drawn ahead, "
                "%u held at their sending, %llu of them ghosts, %llu missed\n",
                (unsigned long long)a->n_cand, a->ahead_expect, (unsigned long long)a->ahead_n,
                a->n_tg, (unsigned long long)a->n_ghost, (unsigned long long)a->missed);
    }
    if (a->trace == NULL) return 0;
    /* The simulator's own values, beside the observations, for comparison. */
    int bad = ferror(a->trace);
    bad |= fclose(a->trace);
    a->trace = NULL;
    size_t len = strlen(a->trace_path) + 16;
    char *path = rc_xmalloc(len);
    snprintf(path, len, "%s.targets.csv", a->trace_path);
    FILE *f = fopen(path, "w");
    if (f != NULL) {
        fprintf(f, "target,sender,recipient,sent_s,latency_s,entropy_bits,min_entropy_bits,"
                   "sender_entropy_bits,mass,partner,eps\n");
        for (size_t i = 0; i < a->n_rec; i++) {
            const rc_anon_record *r = &a->rec[i];
            const tracked *g = &a->tg[r->target];
            fprintf(f, "%u,%u,%u,%.6f,%.17g,%.17g,%.17g,%.17g,%.17g,%u,%.17g\n", r->target,
                    r->sender, r->recipient, r->sent_s, r->latency_s, r->entropy_bits,
                    r->min_entropy_bits, r->sender_entropy_bits, r->mass, g->partner, g->eps);
        }
        bad |= ferror(f);
        bad |= fclose(f);
    } else {
        bad = 1;
    }
    if (bad) {
        rc_err_set(err, RC_EXIT_RUNTIME, "anon_trace: writing '%s' or '%s' failed", a->trace_path,
                   path);
        free(path);
        return RC_EXIT_RUNTIME;
    }
    free(path);
    return 0;
}

void rc_anon_summarize(const rc_anon *a, rc_anon_summary *out) { *out = a->sum; }

bool rc_anon_sample_missed(const rc_anon *a) { return a->missed > 0; }

const rc_anon_record *rc_anon_records(const rc_anon *a, size_t *n)
{
    *n = a->n_rec;
    return a->rec;
}

