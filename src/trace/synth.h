/* synth: statistics of availability traces and a generator of synthetic ones.
 *
 * Statistics (rc_synth_stats) are the columns of docs/spec.md §4's table: lines,
 * period, mean online fraction, the first-16-lines fraction, offline periods
 * per line and their pooled median length, plus what the generator fits.
 *
 * The generator (rc_synth_write) is an alternating on/off renewal process per
 * line, with log-normal session lengths:
 *   - each line draws its own online fraction f_i ~ Beta with mean `online`
 *     and concentration a+b = `concentration` (the reference traces range
 *     from 0.09 to 1.0 per line; concentration 0 gives every line `online`);
 *   - offline sessions ~ LogNormal(ln gap_median_s, sigma_off), pooled over
 *     lines, where sigma_off is derived so that the expected number of
 *     offline periods per line is `gaps` (rc_synth_sigma_off);
 *   - online sessions ~ LogNormal with log-sd `sigma_on` and the mean that
 *     makes line i online a fraction f_i of the time in steady state.
 * Each line starts after a warm-up of at least 100 mean cycles, so the state
 * at second 0 is (nearly) stationary.  A seed fixes the output: gsl_rng
 * mt19937 seeded with it, drawn in a fixed order.
 *
 * Errors: rc_synth_check and rc_synth_write report bad models and I/O errors
 * through rc_err (usage: 2, I/O: 1).  Nothing here keeps memory between calls.
 */
#ifndef RCSIM_TRACE_SYNTH_H
#define RCSIM_TRACE_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "trace/avail.h"

typedef struct rc_trace_stats {
    size_t lines;
    uint32_t period_s;
    double mean_online;    /* mean over lines of each line's online fraction */
    double first16_online; /* the same over lines 0..15 (the reference uses only these) */
    double online_sd;      /* standard deviation over lines of the online fraction */
    double gaps_per_line;  /* mean number of offline periods (maximal runs of 0) per line */
    double gap_median_s;   /* median length of all offline periods, pooled over lines */
    double on_log_sd;      /* standard deviation of ln(online period length), pooled */
} rc_trace_stats;

void rc_synth_stats(const rc_trace *t, rc_trace_stats *out);

typedef struct rc_synth_model {
    uint32_t period_s;    /* line length in seconds */
    double online;        /* mean online fraction over lines, in (0, 1) */
    double gaps;          /* mean offline periods per line and period */
    double gap_median_s;  /* median offline period length, seconds */
    double concentration; /* Beta a+b of the per-line online fraction; 0 = all equal */
    double sigma_on;      /* log-sd of online session lengths */
} rc_synth_model;

/* Defaults for the parameters a direct model does not set: period 86,400 s,
 * concentration 2.6 and sigma_on 1.8 (typical of the reference traces). */
void rc_synth_default(rc_synth_model *m);

/* Fits a model to a trace's statistics (method of moments for the Beta). */
void rc_synth_fit(const rc_trace_stats *s, rc_synth_model *m);

/* Validates the model: 0 or RC_EXIT_USAGE with the reason. */
int rc_synth_check(const rc_synth_model *m, rc_err *err);

/* The log-sd of offline session lengths implied by the model (see above). */
double rc_synth_sigma_off(const rc_synth_model *m);

/* Generates n_lines lines and writes them to `path` (gzip, rc_trace_load
 * reads it back).  Deterministic for a given model, n_lines and seed. */
int rc_synth_write(const rc_synth_model *m, size_t n_lines, uint64_t seed, const char *path,
                   rc_err *err);

#endif
