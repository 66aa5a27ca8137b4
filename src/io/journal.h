/* journal: the append-only resume journal `<results>.journal` (docs/running-sweeps.md).
 *
 * The journal, not the HDF5 file, is the authority on which jobs of a sweep
 * are finished.  It holds only what rebuilds the results table: a header
 * (magic "RCJRNL02", the hash of the sweep that created it) followed by
 * records
 *
 *     u32 magic 0x324a4352 ("RCJ2")  u32 type  u32 body length  u32 crc32
 *
 * where the CRC (zlib crc32) covers the type and the body, and the body is
 *
 *     SESSION (type 1): f64 start (Unix s), then the build identity text
 *     JOB     (type 2): u64 job id, i32 rank, f64 finished (Unix s),
 *                       u8 host length, the host name, then the job's
 *                       rc_result_pack image
 *
 * all little-endian as the host writes them (a journal is read back on the
 * machine family that wrote it).  A SESSION record starts every run that
 * appends; the JOB records after it were produced by that build.
 *
 * Group commit: rc_journal_append only buffers; rc_journal_commit writes the
 * buffer with one write() and makes it durable with one fsync().  The caller
 * commits when rc_journal_due says so (RC_JOURNAL_COMMIT_RECORDS records or
 * RC_JOURNAL_COMMIT_S seconds since the oldest uncommitted one, whichever
 * first) and counts a job as done only once committed.  kill -9 or a power
 * cut therefore loses at most the uncommitted records, whose jobs a resume
 * runs again.  A failed commit (a full disk) cuts the file back to its last
 * committed length, so what is on disk is always a whole number of records
 * (plus, after a crash mid-write, a torn tail that reading drops and reports
 * and opening for append truncates).  Damage in the middle (a flipped byte)
 * is told from a torn tail by the whole records after it: reading skips it,
 * and a resume cuts only it (rc_journal_repair), keeping a copy.
 *
 * Errors (I/O, a journal of the old format) are user-tier rc_err; the journal
 * owns its file descriptor and its buffer.  Images handed to the read
 * callback are valid only during the call.
 */
#ifndef RCSIM_IO_JOURNAL_H
#define RCSIM_IO_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define RC_JOURNAL_HOST_MAX 64
#define RC_JOURNAL_COMMIT_RECORDS 256
#define RC_JOURNAL_COMMIT_S 0.025

typedef struct rc_journal rc_journal;

/* Where, when and by what a job was finished (kept so a rebuilt HDF5 file
 * keeps its provenance). */
typedef struct rc_journal_meta {
    int32_t rank;
    char host[RC_JOURNAL_HOST_MAX];
    double finished;   /* Unix time, seconds */
    const char *build; /* reading: the build of the record's session ("" if none) */
} rc_journal_meta;

/* Called once per valid JOB record, in file order.  Return 0 to go on,
 * non-zero to stop reading (that value is returned by rc_journal_read). */
typedef int (*rc_journal_record_fn)(void *ctx, uint64_t job_id, const rc_journal_meta *meta,
                                    const void *image, size_t len);

/* Damaged spans in the middle that a scan names (and rc_journal_repair cuts). */
#define RC_JOURNAL_GAPS_NAMED 16

typedef struct rc_journal_scan {
    int exists;           /* 0: no journal file (a fresh sweep) */
    uint64_t sweep_hash;  /* from the header */
    size_t records;       /* valid JOB records seen */
    size_t sessions;      /* SESSION records seen */
    size_t valid_bytes;   /* end of the last whole record (where appending goes on) */
    size_t dropped_bytes; /* bytes after it (a torn or corrupt last record) */
    /* Damage in the middle: spans with whole records after them (a flipped
     * byte, a bad sector), skipped by reading; the first RC_JOURNAL_GAPS_NAMED
     * by offset and length. */
    size_t gaps, gap_bytes;
    size_t gap_at[RC_JOURNAL_GAPS_NAMED], gap_len[RC_JOURNAL_GAPS_NAMED];
} rc_journal_scan;

/* Reads `path`.  A missing file is not an error (scan->exists = 0).  A file
 * that is not a journal, or one of the old format (RCJRNL01), is an
 * RC_EXIT_USAGE error.  A record that is not whole (bad magic, length, type
 * or CRC) is damage: if a whole record follows somewhere after it, the span
 * up to that record is a gap in the middle and reading goes on there (only
 * the jobs in the span are lost); if none follows, it is the torn tail.  Both
 * are reported in scan. */
int rc_journal_read(const char *path, rc_journal_record_fn fn, void *ctx, rc_journal_scan *scan,
                    rc_err *err);

/* Before appending to a journal that rc_journal_read found damaged: keeps a
 * copy of every span that is cut (the gaps and the torn tail), each in
 * rc_journal_cut_path(path, its offset), then rewrites the journal without
 * its gaps (beside it, then renamed over it).  Updates scan->valid_bytes for
 * rc_journal_open, which cuts the torn tail.  Nothing to do: 0.  More gaps
 * than RC_JOURNAL_GAPS_NAMED: RC_EXIT_USAGE, the journal untouched. */
int rc_journal_repair(const char *path, rc_journal_scan *scan, rc_err *err);

/* "<journal>.cut-at-<offset>": where the bytes cut at `offset` are kept. */
char *rc_journal_cut_path(const char *journal_path, size_t offset);

/* Opens for appending: creates the file with its header if missing (the
 * header names `sweep_hash`), else truncates it to `valid_bytes` (from
 * rc_journal_read) first.  Buffers a SESSION record naming `build`. */
rc_journal *rc_journal_open(const char *path, uint64_t sweep_hash, size_t valid_bytes,
                            const char *build, rc_err *err);

/* Buffers a SESSION record: the JOB records after it were made by `build`
 * (rcsim merge keeps each row's build this way). */
void rc_journal_session(rc_journal *j, const char *build);

/* Buffers one JOB record (not yet durable). */
void rc_journal_append(rc_journal *j, uint64_t job_id, const rc_journal_meta *meta,
                       const void *image, size_t len);

/* JOB records buffered since the last commit. */
size_t rc_journal_uncommitted(const rc_journal *j);

/* True when a commit is due (enough records, or the oldest is old enough). */
bool rc_journal_due(const rc_journal *j);

/* Writes and fsyncs the buffer.  On failure the file is cut back to its last
 * committed length, the buffer is dropped, and an rc_err names the cause. */
int rc_journal_commit(rc_journal *j, rc_err *err);

/* Commits counted so far (each one write + one fsync). */
size_t rc_journal_commits(const rc_journal *j);

/* Closes without committing (NULL is fine). */
void rc_journal_close(rc_journal *j);

/* The journal path for a results file: "<results>.journal" (malloc'ed). */
char *rc_journal_path(const char *results_path);

#endif
