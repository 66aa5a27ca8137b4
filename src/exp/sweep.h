/* sweep: a sweep file (YAML, parsed with libyaml) expanded into jobs.
 *
 * A sweep file names a sweep, sets per-sweep defaults for any job parameter
 * (exp/param.h keys), and lists axes whose cartesian product (times the seeds)
 * is the job list.  Errors name file:line:key and the bad value; nothing is
 * run or written when a sweep file is bad.  The expansion order is stable and
 * every job carries its stable id (rc_job_id).  Format: docs/sweep-format.md.
 */
#ifndef RCSIM_EXP_SWEEP_H
#define RCSIM_EXP_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "exp/job.h"

typedef struct rc_sweep rc_sweep;

/* Loads, validates and expands.  `overrides` are "key=value" strings applied
 * on top of the file's defaults (e.g. from --set on the command line).
 * Returns NULL with err set (code RC_EXIT_USAGE) on a bad file. */
rc_sweep *rc_sweep_load(const char *path, const char *const *overrides, size_t n_overrides,
                        rc_err *err);
/* The same with the seeds chosen by a stopping rule (`rcsim sweep --until`,
 * exp/until.h): seeds 1..until->max run in rounds, in place of the file's
 * `seeds:`, exactly as the file's `seeds: {min, max, until, step}` would.
 * until NULL: rc_sweep_load. */
struct rc_until;
rc_sweep *rc_sweep_load_until(const char *path, const char *const *overrides,
                              size_t n_overrides, const struct rc_until *until, rc_err *err);
void rc_sweep_free(rc_sweep *s);

const char *rc_sweep_name(const rc_sweep *s);
const char *rc_sweep_path(const rc_sweep *s);
const char *rc_sweep_text(const rc_sweep *s);       /* the file's bytes, for provenance */
/* What the jobs actually run with, after --set overrides (malloc'ed text):
 * every parameter whose value differs between jobs, with its values in
 * first-seen order, then every one that is the same in all jobs but not the
 * registry default.  Not a sweep file (zips and includes are not rebuilt):
 * a description of what ran, for the results file's provenance. */
char *rc_sweep_effective(const rc_sweep *s);
uint64_t rc_sweep_hash(const rc_sweep *s);          /* FNV-1a over the sorted job ids */
size_t rc_sweep_count(const rc_sweep *s);
const rc_job *rc_sweep_job(const rc_sweep *s, size_t i); /* resolved, validated */
uint64_t rc_sweep_job_id(const rc_sweep *s, size_t i);

/* Binds every job to the content of its trace (trace/trace_id.h): each
 * distinct (trace, data directory) is resolved and read once, completely
 * (gzip, every line), each job's line requirement is checked, and the jobs
 * get the trace's canonical name, SHA-256 and line count, which changes
 * their ids and the sweep hash.  `data_dir`, if not NULL or empty, replaces
 * the jobs' own (as `rcsim sweep --data-dir` does for the runs; the jobs are
 * validated again with it, rc_job_validate).  Errors are
 * RC_EXIT_USAGE naming the sweep file, the line that set the trace and the
 * problem; so are two jobs that turn out to be one (os15 and gen_os15 on one
 * axis).  Until bound (and after a failed bind), ids use the trace as
 * spelled.  Reads no other file. */
int rc_sweep_bind(rc_sweep *s, const char *data_dir, rc_err *err);
/* The traces bound, in first-use order; *written (if not NULL) = the spelling. */
size_t rc_sweep_trace_count(const rc_sweep *s);
struct rc_trace_id;
const struct rc_trace_id *rc_sweep_trace(const rc_sweep *s, size_t i, const char **written);

/* The sweep's dimensions in expansion order, slowest first: one per axis, one
 * per zip group ("zip(strategy,lambda_div)"), then "seed" when the file lists
 * seeds.  The product of their sizes is the number of grid jobs; include
 * entries come on top (rc_sweep_count minus that product).  Used by `rcsim plan`. */
size_t rc_sweep_axis_count(const rc_sweep *s);
const char *rc_sweep_axis_name(const rc_sweep *s, size_t i);
size_t rc_sweep_axis_size(const rc_sweep *s, size_t i);
const char *rc_sweep_description(const rc_sweep *s); /* "" when the file has none */

/* The stopping rule of `seeds: {min, max, until}` (exp/until.h), NULL for a
 * fixed list of seeds.  `--set seed=N` replaces the seeds and the rule. */
const struct rc_until *rc_sweep_until(const rc_sweep *s);

#endif
