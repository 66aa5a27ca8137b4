/* synth: trace statistics and the renewal-process trace generator (synth.h). */
#include "trace/synth.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <zlib.h>

#include "core/log.h"

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

void rc_synth_stats(const rc_trace *t, rc_trace_stats *out)
{
    size_t lines = rc_trace_lines(t);
    uint32_t period = rc_trace_period_s(t);
    *out = (rc_trace_stats){.lines = lines, .period_s = period};

    /* Pass 1 sizes the pooled gap array: n toggles make n+1 runs that
     * alternate, starting with the state at second 0. */
    size_t n_gaps = 0;
    for (size_t l = 0; l < lines; l++) {
        bool on0;
        size_t n;
        rc_trace_toggles(t, l, &on0, &n);
        n_gaps += on0 ? (n + 1) / 2 : n / 2 + 1;
    }
    uint32_t *gaps = rc_xmalloc((n_gaps ? n_gaps : 1) * sizeof *gaps);
    size_t g = 0, n_on = 0;
    double sum = 0, sum2 = 0, sum16 = 0, on_log = 0, on_log2 = 0;
    for (size_t l = 0; l < lines; l++) {
        double f = rc_trace_online_fraction(t, l);
        sum += f;
        sum2 += f * f;
        if (l < 16) sum16 += f;
        bool on;
        size_t n;
        const uint32_t *tg = rc_trace_toggles(t, l, &on, &n);
        uint32_t start = 0;
        for (size_t i = 0; i <= n; i++, on = !on) {
            uint32_t end = i < n ? tg[i] : period;
            uint32_t len = end - start;
            if (on) {
                double x = log((double)len);
                on_log += x;
                on_log2 += x * x;
                n_on++;
            } else {
                gaps[g++] = len;
            }
            start = end;
        }
    }
    RC_ASSERT(g == n_gaps);
    out->mean_online = sum / (double)lines;
    out->first16_online = sum16 / (double)(lines < 16 ? lines : 16);
    double var = sum2 / (double)lines - out->mean_online * out->mean_online;
    out->online_sd = var > 0 ? sqrt(var) : 0;
    out->gaps_per_line = (double)n_gaps / (double)lines;
    if (n_gaps > 0) {
        qsort(gaps, n_gaps, sizeof *gaps, cmp_u32);
        out->gap_median_s = n_gaps % 2 ? gaps[n_gaps / 2]
                                       : 0.5 * ((double)gaps[n_gaps / 2 - 1] + gaps[n_gaps / 2]);
    }
    if (n_on > 1) {
        double m = on_log / (double)n_on;
        double v = on_log2 / (double)n_on - m * m;
        out->on_log_sd = v > 0 ? sqrt(v) : 0;
    }
    free(gaps);
}

void rc_synth_default(rc_synth_model *m)
{
    *m = (rc_synth_model){.period_s = 86400, .online = 0.65, .gaps = 6.0, .gap_median_s = 1400,
                          .concentration = 2.6, .sigma_on = 1.8};
}

void rc_synth_fit(const rc_trace_stats *s, rc_synth_model *m)
{
    rc_synth_default(m);
    m->period_s = s->period_s;
    m->online = s->mean_online;
    m->gaps = s->gaps_per_line;
    m->gap_median_s = s->gap_median_s;
    /* Method of moments for a Beta: var = mu(1-mu)/(a+b+1). */
    double mu = s->mean_online, var = s->online_sd * s->online_sd;
    m->concentration = var > 0 ? fmax(mu * (1 - mu) / var - 1, 0.05) : 0;
    if (s->on_log_sd > 0) m->sigma_on = s->on_log_sd;
}

/* Mean offline session length that yields `gaps` offline periods per line:
 * a stationary line of online fraction f has about P(1-f)/E[off] on->off
 * transitions in a period P, plus a leading offline run with probability
 * 1-f.  Averaging over lines (linear in f) gives G = (P/E[off] + 1)(1-F). */
static double mean_off(const rc_synth_model *m)
{
    double q = 1 - m->online;
    return (double)m->period_s * q / (m->gaps - q);
}

double rc_synth_sigma_off(const rc_synth_model *m)
{
    /* For a log-normal, mean/median = exp(sigma^2 / 2). */
    double r = mean_off(m) / m->gap_median_s;
    return r > 1 ? sqrt(2 * log(r)) : 0;
}

int rc_synth_check(const rc_synth_model *m, rc_err *err)
{
    if (m->period_s < 1) return rc_err_set(err, RC_EXIT_USAGE, "period must be >= 1 s");
    if (!(m->online > 0 && m->online < 1))
        return rc_err_set(err, RC_EXIT_USAGE, "online fraction %g is not in (0, 1)", m->online);
    if (!(m->gap_median_s >= 1 && m->gap_median_s < m->period_s))
        return rc_err_set(err, RC_EXIT_USAGE, "gap median %g s is not in [1, %u)",
                          m->gap_median_s, m->period_s);
    if (!(m->gaps > 1 - m->online) || !isfinite(m->gaps))
        return rc_err_set(err, RC_EXIT_USAGE,
                          "%g offline periods per line is too few for online fraction %g "
                          "(need more than %g: a line starts offline with probability 1-F)",
                          m->gaps, m->online, 1 - m->online);
    if (!(mean_off(m) > m->gap_median_s))
        return rc_err_set(err, RC_EXIT_USAGE,
                          "%g offline periods per line of median %g s are too many for online "
                          "fraction %g: the mean gap would be %.0f s, below the median "
                          "(use fewer or shorter gaps)",
                          m->gaps, m->gap_median_s, m->online, mean_off(m));
    if (!(m->concentration >= 0) || !isfinite(m->concentration))
        return rc_err_set(err, RC_EXIT_USAGE, "concentration %g must be >= 0", m->concentration);
    if (!(m->sigma_on >= 0 && m->sigma_on < 10))
        return rc_err_set(err, RC_EXIT_USAGE, "sigma_on %g is not in [0, 10)", m->sigma_on);
    return 0;
}

/* Per-line online fractions stay away from 0 and 1 so that both session
 * means are finite; 1e-6 of a day is well below one second. */
#define F_EPS 1e-6

/* Fills buf[0..period) with one line.  Sessions are laid out in continuous
 * time from -warmup; each covers [round(start), round(end)) of the line, so
 * consecutive sessions partition it exactly. */
static void gen_line(const rc_synth_model *m, double sigma_off, gsl_rng *r, char *buf)
{
    double P = m->period_s;
    double f = m->online;
    if (m->concentration > 0) {
        double a = m->online * m->concentration, b = (1 - m->online) * m->concentration;
        f = gsl_ran_beta(r, a, b);
    }
    f = fmin(fmax(f, F_EPS), 1 - F_EPS);
    double e_off = mean_off(m);
    double e_on = f / (1 - f) * e_off;
    double zeta_off = log(m->gap_median_s);
    double zeta_on = log(e_on) - 0.5 * m->sigma_on * m->sigma_on;
    double cycle = e_on + e_off;
    /* Session lengths are heavy-tailed (log-sd up to ~2.6), so the process
     * needs many cycles to forget its fresh start; with 10 the gap counts
     * came out ~9 % high, with 100 within ~3 % (docs/traces.md). */
    double t = -fmax(P, 100 * cycle);
    bool on = gsl_rng_uniform(r) < f;
    while (t < P) {
        double len = on ? gsl_ran_lognormal(r, zeta_on, m->sigma_on)
                        : gsl_ran_lognormal(r, zeta_off, sigma_off);
        double end = t + len;
        if (end > 0) {
            double a = fmax(round(t), 0), b = fmin(round(end), P);
            if (b > a) memset(buf + (size_t)a, on ? '1' : '0', (size_t)(b - a));
        }
        t = end;
        on = !on;
    }
}

int rc_synth_write(const rc_synth_model *m, size_t n_lines, uint64_t seed, const char *path,
                   rc_err *err)
{
    int rc = rc_synth_check(m, err);
    if (rc) return rc;
    if (n_lines == 0) return rc_err_set(err, RC_EXIT_USAGE, "number of lines must be >= 1");
    errno = 0;
    gzFile g = gzopen(path, "wb");
    if (g == NULL)
        return rc_err_set(err, RC_EXIT_RUNTIME, "cannot write %s: %s", path,
                          errno ? strerror(errno) : "out of memory");
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    /* mt19937 takes an unsigned long seed; fold 64-bit seeds so that they
     * all differ on 32-bit longs too. */
    gsl_rng_set(r, (unsigned long)(seed ^ (seed >> 32)));
    double sigma_off = rc_synth_sigma_off(m);
    char *buf = rc_xmalloc((size_t)m->period_s + 1);
    bool ok = true;
    for (size_t l = 0; l < n_lines && ok; l++) {
        gen_line(m, sigma_off, r, buf);
        buf[m->period_s] = '\n';
        ok = gzwrite(g, buf, m->period_s + 1) == (int)(m->period_s + 1);
    }
    free(buf);
    gsl_rng_free(r);
    if (gzclose_w(g) != Z_OK) ok = false;
    if (!ok) return rc_err_set(err, RC_EXIT_RUNTIME, "error writing %s", path);
    return 0;
}
