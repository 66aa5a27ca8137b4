/* manifest: what produced the finished jobs of a results file, kept beside it.
 *
 * `<results>.manifest.json` records, for the jobs the journal holds, the
 * builds of rcsim that ran them (core/build.h), the trace files they read
 * (trace/trace_id.h: spelling, canonical name, path, SHA-256, lines) and
 * the options that change what is stored (exp/param.h RC_PF_STORED, e.g.
 * store_raw).  It is written (atomically: temporary file, fsync, rename)
 * before the journal receives its first record, and compared at every
 * resume, so a resume can say exactly what changed: another trace file
 * behind the same name, another build, another store_raw.  The journal stays
 * the authority on WHICH jobs are done; the manifest says under WHAT.
 *
 * Plain value structs; the file is JSON (jansson), one object:
 *   {"format": "rcsim-manifest/1", "sweep": {"name", "file", "hash"},
 *    "stored": "store_raw=false",
 *    "builds": [{"id", "revision", "dirty", "sources_sha256", "config", "first_used_utc"}],
 *    "traces": [{"written", "name", "path", "sha256", "lines"}]}
 * Errors are rc_err: RC_EXIT_USAGE for an unreadable or foreign manifest and
 * for a resume that would mix (the message names old and new), else
 * RC_EXIT_RUNTIME.
 */
#ifndef RCSIM_IO_MANIFEST_H
#define RCSIM_IO_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/build.h"
#include "core/err.h"
#include "trace/trace_id.h"

#define RC_MANIFEST_FORMAT "rcsim-manifest/1"

typedef struct rc_manifest_build {
    char id[17];
    char revision[128];
    int dirty; /* 1, 0, -1 unknown */
    char sources_sha256[65];
    char config[1024];
    char first_used_utc[32];
} rc_manifest_build;

typedef struct rc_manifest_trace {
    char written[256]; /* the trace as the sweep spells it */
    rc_trace_id id;
} rc_manifest_trace;

typedef struct rc_manifest {
    char sweep_name[256];
    char sweep_file[1024];
    uint64_t sweep_hash;
    char stored[1024]; /* "store_raw=false" (sorted distinct settings joined by " | ") */
    rc_manifest_build *builds;
    size_t n_builds;
    rc_manifest_trace *traces;
    size_t n_traces;
} rc_manifest;

/* "<results>.manifest.json" (malloc'ed). */
char *rc_manifest_path(const char *out);

void rc_manifest_init(rc_manifest *m);
void rc_manifest_free(rc_manifest *m);
void rc_manifest_add_build(rc_manifest *m, const rc_build_info *b);
void rc_manifest_add_trace(rc_manifest *m, const char *written, const rc_trace_id *id);

/* Reads `<out>.manifest.json` into m (initialised inside).  *found = false
 * (and 0) when there is no such file. */
int rc_manifest_read(const char *out, rc_manifest *m, bool *found, rc_err *err);
int rc_manifest_write(const char *out, const rc_manifest *m, rc_err *err);

/* May a sweep described by `now` (its builds: this binary first, then any other
 * build its workers run) add jobs to results
 * recorded in `old`?  0, or RC_EXIT_USAGE with a message naming both sides:
 * a trace spelled the same or of the same canonical name but with other
 * content; other stored options; a build not in `old` unless
 * allow_other_build. */
int rc_manifest_check(const rc_manifest *old, const rc_manifest *now, const char *out,
                      bool allow_other_build, rc_err *err);

/* old := old plus what `now` adds (its sweep, new traces, new builds).
 * Returns whether anything changed (the file then needs writing). */
bool rc_manifest_merge(rc_manifest *old, const rc_manifest *now);

#endif
