/* proto: the farm's MPI protocol (internal to src/farm).
 *
 * Request-driven (style rule 15): a worker sends a REPORT (READY at start,
 * then DONE or FAILED for its last job; each report is also the request for
 * more work); a DONE report is followed by one DATA message with the packed
 * result (its length is in the report).  Rank 0 answers every report with a
 * JOB (an rc_farm_job_msg as bytes) or a STOP.  Only rank 0 touches HDF5 and
 * the journal.  Messages are fixed-size structs sent as MPI_BYTE: all ranks
 * run the same binary on the same architecture.
 */
#ifndef RCSIM_FARM_PROTO_H
#define RCSIM_FARM_PROTO_H

#include <mpi.h>
#include <stdint.h>

#include "exp/job.h"
#include "farm/farm.h"

typedef enum rc_farm_tag {
    RC_TAG_REPORT = 1, /* worker -> master: rc_farm_report */
    RC_TAG_DATA,       /* worker -> master: result image bytes */
    RC_TAG_JOB,        /* master -> worker: rc_farm_job_msg */
    RC_TAG_STOP,       /* master -> worker: no more work (empty) */
    RC_TAG_COUNT
} rc_farm_tag;

extern const char *const rc_farm_tag_names[RC_TAG_COUNT];

typedef enum { RC_REPORT_READY = 0, RC_REPORT_DONE = 1, RC_REPORT_FAILED = 2 } rc_report_kind;

typedef struct rc_farm_report {
    int32_t kind;
    int32_t status;  /* exit code of a failed job */
    uint64_t index;  /* sweep index of the job reported on */
    uint64_t len;    /* DATA bytes that follow (DONE) */
    uint64_t events;
    double wall_s;
    char host[64];
    char msg[512];
} rc_farm_report;

typedef struct rc_farm_job_msg {
    uint64_t index;
    rc_job job;
} rc_farm_job_msg;

/* Every MPI call is checked; a failure is an internal error (style rule 15). */
#define RC_MPI_CHECK(call)                                                                   \
    do {                                                                                     \
        int rc_mpi_rc_ = (call);                                                             \
        if (rc_mpi_rc_ != MPI_SUCCESS) rc_farm_mpi_fail(__FILE__, __LINE__, #call, rc_mpi_rc_); \
    } while (0)

_Noreturn void rc_farm_mpi_fail(const char *file, int line, const char *call, int code);

/* The worker side (worker.c); returns the rank's exit code. */
int rc_farm_worker(MPI_Comm comm, const rc_farm_opts *o);

#endif
