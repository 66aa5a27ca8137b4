/* trace_id: an availability trace identified by its content, not its spelling.
 *
 * `os15`, `gen_os15`, `schedules_gen_os15.txt.gz` and an absolute path can all
 * name one file, and one name can stand for different files in two data
 * directories.  What a job used is therefore recorded as the file's canonical
 * name (its file name without directories, a leading `schedules_` and a
 * trailing `.txt.gz`), the SHA-256 of its decompressed text and its line
 * count.  Jobs carry these in their canonical text (exp/job.h), so they are
 * part of the job id; the path a trace was read from is provenance only.
 *
 * Loading here is the full rc_trace_load (gzip, every line, enough lines):
 * a trace that yields an id is one every job that needs at most `lines`
 * lines can run on.  User errors are rc_err (RC_EXIT_USAGE).
 */
#ifndef RCSIM_TRACE_TRACE_ID_H
#define RCSIM_TRACE_TRACE_ID_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "trace/avail.h"

#define RC_TRACE_NAME_MAX 64
#define RC_TRACE_PATH_MAX 4096

typedef struct rc_trace_id {
    char name[RC_TRACE_NAME_MAX]; /* canonical name, e.g. "gen_os15" */
    char sha256[65];              /* of the decompressed text, lower-case hex */
    uint32_t lines;               /* lines of '0'/'1' */
    char path[RC_TRACE_PATH_MAX]; /* absolute path it was read from */
} rc_trace_id;

/* The canonical name of a trace file (see above); truncated to n - 1 bytes. */
void rc_trace_id_name(const char *path, char *out, size_t n);

/* Resolves `trace` like a job does (rc_trace_resolve: data_dir, then
 * $RCSIM_DATA_DIR, ...), loads it with `min_lines` (0: any) and fills `id`.
 * Returns the loaded trace (the caller frees it), or NULL with err set; "online"
 * is not a trace (RC_EXIT_USAGE). */
rc_trace *rc_trace_id_load(const char *trace, const char *data_dir, size_t min_lines,
                           rc_trace_id *id, rc_err *err);

/* As rc_trace_id_load, but through a small per-process cache: a file whose
 * bytes are exactly those a cached trace was loaded from is not decoded
 * again.  Loading a paper trace (66 MB of text: inflate, SHA-256, parse)
 * costs about 0.17 CPU s, as much as a whole 24 h job, and a sweep runs
 * hundreds of jobs on the same few traces.  The returned trace belongs to the
 * cache: do not free it; it stays valid until the next call (a full cache
 * evicts its least recently used entry).  Not thread-safe (one job at a time
 * per process). */
const rc_trace *rc_trace_id_get(const char *trace, const char *data_dir, size_t min_lines,
                                rc_trace_id *id, rc_err *err);

#endif
