/* proto: the farm's MPI protocol (internal to src/farm).
 *
 * Request-driven (a worker asks when it is free, so no rank idles while jobs
 * remain and a slow rank gets fewer), in chunks: a worker sends a REPORT (READY
 * at start, then RESULTS for its last chunk; each report is also the request
 * for more work); a RESULTS report is followed by one DATA message holding a
 * frame per job of the chunk (rc_farm_frame, then the error message, the
 * job's canonical text and its rc_result_pack image).  Rank 0 answers every
 * report with a JOB message (an rc_farm_chunk header and `n` rc_farm_job
 * records, as bytes) or a STOP.  Chunk sizes follow guided self-scheduling
 * (farm.c): long jobs go one at a time, tiny ones in chunks, so they do not
 * pay a round trip each.  Only rank 0 touches HDF5 and the journal.
 * Messages are fixed-layout structs sent as MPI_BYTE: all ranks run the same
 * binary on the same architecture.
 */
#ifndef RCSIM_FARM_PROTO_H
#define RCSIM_FARM_PROTO_H

#include <mpi.h>
#include <stdint.h>

#include "exp/job.h"
#include "farm/farm.h"

typedef enum rc_farm_tag {
    RC_TAG_REPORT = 1, /* worker -> master: rc_farm_report */
    RC_TAG_DATA,       /* worker -> master: frames of a chunk's results */
    RC_TAG_JOB,        /* master -> worker: rc_farm_chunk + jobs */
    RC_TAG_STOP,       /* master -> worker: no more work (empty) */
    RC_TAG_COUNT
} rc_farm_tag;

extern const char *const rc_farm_tag_names[RC_TAG_COUNT];

typedef enum { RC_REPORT_READY = 0, RC_REPORT_RESULTS = 1 } rc_report_kind;

/* Most jobs in one chunk (bounds the JOB message: about 1 MB). */
#define RC_FARM_CHUNK_MAX 1024

typedef struct rc_farm_report {
    int32_t kind;
    uint32_t n_jobs;  /* frames in the DATA message that follows (RESULTS) */
    uint64_t len;     /* DATA bytes */
    char host[64];
} rc_farm_report;

/* One job's result inside DATA; msg, canonical text and image follow. */
typedef struct rc_farm_frame {
    uint64_t index;   /* sweep index */
    int32_t status;   /* 0 ok, else the failed job's exit code */
    uint32_t msg_len;
    uint32_t canon_len;
    uint32_t pad;
    uint64_t image_len;
    uint64_t events;
    double wall_s;
} rc_farm_frame;

typedef struct rc_farm_chunk {
    uint32_t n;
    uint32_t pad;
} rc_farm_chunk;

typedef struct rc_farm_job {
    uint64_t index;
    rc_job job;
} rc_farm_job;

/* Every MPI call is checked: a failure is an internal error, never ignored
 * (rc_farm_mpi_fail names the call and MPI's message, then aborts). */
#define RC_MPI_CHECK(call)                                                                   \
    do {                                                                                     \
        int rc_mpi_rc_ = (call);                                                             \
        if (rc_mpi_rc_ != MPI_SUCCESS) rc_farm_mpi_fail(__FILE__, __LINE__, #call, rc_mpi_rc_); \
    } while (0)

_Noreturn void rc_farm_mpi_fail(const char *file, int line, const char *call, int code);

/* The worker side (worker.c); returns the rank's exit code. */
int rc_farm_worker(MPI_Comm comm, const rc_farm_opts *o);

#endif
