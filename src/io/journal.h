/* journal: the append-only resume journal `<results>.journal` (docs/running-sweeps.md).
 *
 * The journal, not the HDF5 file, is the authority on which jobs of a sweep
 * are finished.  It is a header (magic "RCJRNL01", the sweep hash) followed by
 * one record per finished job:
 *
 *     u32 magic 0x52434a52 ("RCJR")   u32 body length   u64 job id   u32 crc32
 *     body: u32 rank, char host[64], f64 finished (Unix seconds), then the
 *           rc_result_pack image
 *
 * all little-endian as the host writes them (a journal is read back on the
 * machine family that wrote it).  The CRC (zlib crc32) covers the job id and
 * the body.  Each append is fsync'ed before it returns, so a record that was
 * acknowledged survives kill -9 and power loss; a process killed mid-append
 * leaves a short or corrupt last record, which reading drops and reports.
 * Opening for append truncates such a tail so new records follow valid ones.
 *
 * Errors (I/O, a journal of another sweep) are user-tier rc_err; the journal
 * owns its file descriptor and nothing else.  Record images handed to the
 * read callback are only valid during the call.
 */
#ifndef RCSIM_IO_JOURNAL_H
#define RCSIM_IO_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define RC_JOURNAL_HOST_MAX 64

typedef struct rc_journal rc_journal;

/* Where and by whom a job was finished (kept so a rebuilt HDF5 file keeps
 * its provenance). */
typedef struct rc_journal_meta {
    int32_t rank;
    char host[RC_JOURNAL_HOST_MAX];
    double finished; /* Unix time, seconds */
} rc_journal_meta;

/* Called once per valid record, in file order.  Return 0 to go on, non-zero
 * to stop reading (that value is returned by rc_journal_read). */
typedef int (*rc_journal_record_fn)(void *ctx, uint64_t job_id, const rc_journal_meta *meta,
                                    const void *image, size_t len);

typedef struct rc_journal_scan {
    int exists;          /* 0: no journal file (a fresh sweep) */
    size_t records;      /* valid records seen */
    size_t valid_bytes;  /* length of the valid prefix */
    size_t dropped_bytes;/* bytes after it (a torn or corrupt last record) */
} rc_journal_scan;

/* Reads `path`.  A missing file is not an error (scan->exists = 0).  A file
 * whose header is not a journal, or whose sweep hash differs from
 * `sweep_hash`, is an RC_EXIT_USAGE error.  A torn tail is reported in scan. */
int rc_journal_read(const char *path, uint64_t sweep_hash, rc_journal_record_fn fn, void *ctx,
                    rc_journal_scan *scan, rc_err *err);

/* Opens for appending: creates the file with its header if missing, else
 * truncates it to `valid_bytes` (from rc_journal_read) first. */
rc_journal *rc_journal_open(const char *path, uint64_t sweep_hash, size_t valid_bytes,
                            rc_err *err);

/* Appends one record and fsyncs it. */
int rc_journal_append(rc_journal *j, uint64_t job_id, const rc_journal_meta *meta,
                      const void *image, size_t len, rc_err *err);

/* Closes (NULL is fine). */
void rc_journal_close(rc_journal *j);

/* The journal path for a results file: "<results>.journal" (malloc'ed). */
char *rc_journal_path(const char *results_path);

#endif
