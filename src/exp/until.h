/* until: sweeps that add seeds until a configuration's interval is narrow.
 *
 * A sweep file's `seeds: {min: 5, max: 200, until: "p99 rel_halfwidth < 0.05"}`
 * expands seeds 1..max like `seeds: 200`, but runs them in rounds: every
 * configuration (a job without its seed) first gets its first `min` seeds;
 * once all of a configuration's seeds so far are finished, its online
 * statistic over them is summarised with the interval of docs/analysis.md
 * ("One centre": geometric mean, log-scale t-interval), and unless the
 * relative half-width is below the target it gets `step` more seeds, up to
 * `max`.  The decision uses only that configuration's finished seeds of the
 * completed round, so the seeds chosen do not depend on the number of ranks,
 * on timing or on how often the sweep was interrupted: replaying the rounds
 * from the finished jobs (rc_until_plan) continues the same way.
 * Format: docs/sweep-format.md, "Seeds until narrow".
 */
#ifndef RCSIM_EXP_UNTIL_H
#define RCSIM_EXP_UNTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "exp/result.h"
#include "exp/sweep.h"

/* The interval needs this many seeds (below it the views show the range). */
#define RC_UNTIL_MIN_SEEDS 5

typedef struct rc_until {
    unsigned min, max, step; /* seeds: first round, most, added per round */
    int stat;                /* -1: mean; else an index into rc_summary_q */
    double target;           /* stop when the relative half-width is below this */
    char rule[96];           /* the rule as written, e.g. "p99 rel_halfwidth < 0.05" */
} rc_until;

/* Parses "STAT rel_halfwidth < X" (STAT: mean, p1 ... p99.9 of the online
 * latency; 0 < X < 1) into u->stat, u->target and u->rule.  Returns 0, or -1
 * with a message for the user in why. */
int rc_until_parse_rule(const char *text, rc_until *u, char *why, size_t n);

/* The seed counts of a rule: min (>= RC_UNTIL_MIN_SEEDS), max (>= min) and step
 * (0: min), the same checks for a sweep file's `seeds:` mapping and for
 * `rcsim sweep --until`.  Returns 0, or -1 with a message in why (naming the
 * count as `name_min`/`name_max` call it: "min" in a file, "--min-seeds" on a
 * command line). */
int rc_until_set_counts(rc_until *u, long min, long max, long step, const char *name_min,
                        const char *name_max, char *why, size_t n);

/* The command-line form (`rcsim sweep|slurm --until RULE [--min-seeds N]
 * --max-seeds N [--seed-step N]`): counts[] are --min-seeds, --max-seeds and
 * --seed-step, 0 where not given; sets the --set overrides (a seed= among
 * them chooses the seeds too, and is refused with a rule).  Returns 1 with *u
 * set, 0 when there is no rule (and no count), -1 with a message in why. */
int rc_until_from_options(const char *rule, const long counts[3], const char *const *sets,
                          size_t n_sets, rc_until *u, char *why, size_t n);

/* The rule's statistic from a job's online summary (NaN without deliveries). */
double rc_until_value(const rc_until *u, const rc_summary *online);

/* The interval of a positive statistic over seeds, as stats.seed_interval
 * (positive=True) in the analysis, over the finite values (NaN: a job
 * without deliveries): with RC_UNTIL_MIN_SEEDS or more the log-scale 95 %
 * t-interval around the geometric mean, fewer give the min-max range.
 * Returns the number of values used; *rel = (hi - lo) / (2 est), +inf below
 * two values or with a value <= 0 (the analysis would not use the log scale;
 * a latency is never <= 0, so such a configuration just runs to max). */
size_t rc_until_interval(const double *v, size_t n, double *est, double *lo, double *hi,
                         double *rel);

enum { RC_UNTIL_RUNNING = 0, RC_UNTIL_NARROW = 1, RC_UNTIL_MAX = 2 };

typedef struct rc_until_config {
    size_t first;   /* sweep index of its first seed's job */
    size_t seeds;   /* seeds chosen so far (its jobs active) */
    double est, rel; /* at the last decision (NaN before the first) */
    int state;      /* RC_UNTIL_* */
} rc_until_config;

/* Replays the rounds from the finished jobs: done[i] and value[i] (the rule's
 * statistic of finished job i, NaN if none) per sweep job.  Sets active[i]
 * for every job chosen so far and returns the configurations (malloc'ed, *n
 * of them, in sweep order).  Jobs that set their own seed (include entries
 * with `seed:`) are configurations of one seed. */
rc_until_config *rc_until_plan(const rc_until *u, const rc_sweep *sw, const bool *done,
                               const double *value, bool *active, size_t *n);

/* One line per configuration for the results file: "<id of its first job>
 * seeds=N estimate=E rel_halfwidth=R stopped=narrow|max|running" (malloc'ed). */
char *rc_until_report(const rc_until *u, const rc_sweep *sw, const rc_until_config *c, size_t n);

#endif
