/* avail: availability traces (docs/spec.md §4) as on/off intervals.
 *
 * A trace file is gzipped text, one line per client, each line a string of
 * '0'/'1' per second of the day (86,400 characters in the reference traces).
 * Empty lines are skipped (the reference does so); any other line of the
 * wrong length or with other characters is an error naming file and line.
 * A truncated or corrupt gzip is an error too.  Lines are converted once to
 * run-length intervals; the engine schedules only the transitions.
 *
 * Ownership: rc_trace owns everything; rc_trace_free releases it.
 */
#ifndef RCSIM_TRACE_AVAIL_H
#define RCSIM_TRACE_AVAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

typedef struct rc_trace rc_trace;

/* Resolves a trace name: "online" -> *path = "" (no trace); an existing path
 * is used as is; otherwise NAME, NAME.txt.gz, schedules_NAME.txt.gz and
 * schedules_gen_NAME.txt.gz are tried in data_dir (if non-empty), then in
 * $RCSIM_DATA_DIR, then ./data/availability (scripts/get-traces.sh's default).
 * Returns 0 or RC_EXIT_USAGE naming what was tried. */
int rc_trace_resolve(const char *name, const char *data_dir, char *path, size_t n, rc_err *err);

/* Reads a trace.  min_lines: the caller's requirement (error if fewer lines). */
rc_trace *rc_trace_load(const char *path, size_t min_lines, rc_err *err);
/* The same parser on uncompressed text already in memory; `name` is used in
 * error messages only.  (The fuzz harnesses drive the parser through it.) */
rc_trace *rc_trace_parse(const char *name, const void *text, size_t n, size_t min_lines,
                         rc_err *err);
void rc_trace_free(rc_trace *t);

size_t rc_trace_lines(const rc_trace *t);
uint32_t rc_trace_period_s(const rc_trace *t);     /* line length in seconds (86400) */
/* SHA-256 of the decompressed text as read (every byte, empty lines and line
 * ends included), 64 lower-case hex digits plus NUL: the trace's identity
 * (trace/trace_id.h). */
void rc_trace_sha256(const rc_trace *t, char hex[65]);
double rc_trace_online_fraction(const rc_trace *t, size_t line);

/* State of `line` at second `s` (taken modulo the period). */
bool rc_trace_online_at(const rc_trace *t, size_t line, uint64_t s);

/* The transitions of one line within one period: *n toggles at the seconds
 * returned (ascending, each in (0, period)), starting from the state at 0.
 * The array is owned by the trace. */
const uint32_t *rc_trace_toggles(const rc_trace *t, size_t line, bool *online_at_0, size_t *n);

/* Writes a trace (gzip) from explicit lines of '0'/'1' (tests, generator). */
int rc_trace_write(const char *path, const char *const *lines, size_t n_lines, rc_err *err);

#endif
