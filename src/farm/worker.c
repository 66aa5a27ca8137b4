/* The worker side of the farm protocol (farm/proto.h): ask, run a chunk, report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "farm/exec.h"
#include "farm/proto.h"

typedef struct out_buf {
    char *p;
    size_t len, cap;
    const rc_farm_job *jobs;
} out_buf;

static void put(out_buf *b, const void *x, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = b->cap ? b->cap : 1 << 16;
        while (b->len + n > b->cap) b->cap *= 2;
        b->p = rc_xrealloc(b->p, b->cap);
    }
    if (n) memcpy(b->p + b->len, x, n);
    b->len += n;
}

/* One frame per finished job.  The canonical text is formatted here, where
 * CPU is plentiful, rather than on the master (about 20 us a job). */
static void on_done(void *ctx, size_t i, rc_exec_out *out)
{
    out_buf *b = ctx;
    char canon[8192] = "";
    if (out->status == 0) rc_job_canonical(&b->jobs[i].job, canon, sizeof canon);
    rc_farm_frame f = {.index = b->jobs[i].index,
                       .status = out->status,
                       .msg_len = out->status ? (uint32_t)strlen(out->msg) : 0,
                       .canon_len = (uint32_t)strlen(canon),
                       .image_len = out->status ? 0 : out->len,
                       .events = out->events,
                       .wall_s = out->wall_s};
    put(b, &f, sizeof f);
    put(b, out->msg, f.msg_len);
    put(b, canon, f.canon_len);
    if (out->status == 0) put(b, out->image, out->len);
}

int rc_farm_worker(MPI_Comm comm, const rc_farm_opts *o)
{
    char host[64] = "";
    gethostname(host, sizeof host - 1);
    rc_farm_report rep;
    memset(&rep, 0, sizeof rep);
    rep.kind = RC_REPORT_READY;
    snprintf(rep.host, sizeof rep.host, "%s", host);
    RC_MPI_CHECK(MPI_Send(&rep, (int)sizeof rep, MPI_BYTE, 0, RC_TAG_REPORT, comm));
    size_t cap = sizeof(rc_farm_chunk) + RC_FARM_CHUNK_MAX * sizeof(rc_farm_job);
    char *msg = rc_xmalloc(cap);
    out_buf b = {0};
    for (;;) {
        /* Every report (READY, RESULTS) is answered by JOB or STOP. */
        MPI_Status st;
        RC_MPI_CHECK(MPI_Probe(0, MPI_ANY_TAG, comm, &st));
        if (st.MPI_TAG == RC_TAG_STOP) {
            RC_MPI_CHECK(MPI_Recv(NULL, 0, MPI_BYTE, 0, RC_TAG_STOP, comm, MPI_STATUS_IGNORE));
            break;
        }
        RC_ASSERTF(st.MPI_TAG == RC_TAG_JOB, "worker: unexpected tag %d (%s) from the master",
                   st.MPI_TAG,
                   st.MPI_TAG > 0 && st.MPI_TAG < RC_TAG_COUNT ? rc_farm_tag_names[st.MPI_TAG]
                                                               : "?");
        int bytes = 0;
        RC_MPI_CHECK(MPI_Get_count(&st, MPI_BYTE, &bytes));
        RC_ASSERTF(bytes >= (int)sizeof(rc_farm_chunk) && (size_t)bytes <= cap,
                   "worker: JOB message of %d bytes", bytes);
        RC_MPI_CHECK(MPI_Recv(msg, bytes, MPI_BYTE, 0, RC_TAG_JOB, comm, MPI_STATUS_IGNORE));
        rc_farm_chunk ch;
        memcpy(&ch, msg, sizeof ch);
        RC_ASSERTF(ch.n >= 1 && ch.n <= RC_FARM_CHUNK_MAX &&
                       (size_t)bytes == sizeof ch + ch.n * sizeof(rc_farm_job),
                   "worker: chunk of %u jobs in %d bytes", ch.n, bytes);
        const rc_farm_job *jobs = (const rc_farm_job *)(void *)(msg + sizeof ch);
        rc_job *run = rc_xmalloc(ch.n * sizeof *run);
        for (uint32_t i = 0; i < ch.n; i++) run[i] = jobs[i].job;
        b.len = 0;
        b.jobs = jobs;
        rc_exec_chunk(run, ch.n, o->isolate, NULL, NULL, 0, on_done, &b);
        free(run);
        memset(&rep, 0, sizeof rep);
        snprintf(rep.host, sizeof rep.host, "%s", host);
        rep.kind = RC_REPORT_RESULTS;
        rep.n_jobs = ch.n;
        rep.len = b.len;
        RC_ASSERTF(b.len < (size_t)1 << 31, "worker: %zu bytes of results in one chunk", b.len);
        RC_MPI_CHECK(MPI_Send(&rep, (int)sizeof rep, MPI_BYTE, 0, RC_TAG_REPORT, comm));
        RC_MPI_CHECK(MPI_Send(b.p, (int)b.len, MPI_BYTE, 0, RC_TAG_DATA, comm));
    }
    free(b.p);
    free(msg);
    return 0;
}
