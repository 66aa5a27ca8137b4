/* The worker side of the farm protocol (farm/proto.h): ask, run, report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "farm/exec.h"
#include "farm/proto.h"

int rc_farm_worker(MPI_Comm comm, const rc_farm_opts *o)
{
    char host[64] = "";
    gethostname(host, sizeof host - 1);
    rc_farm_report rep;
    memset(&rep, 0, sizeof rep);
    rep.kind = RC_REPORT_READY;
    snprintf(rep.host, sizeof rep.host, "%s", host);
    RC_MPI_CHECK(MPI_Send(&rep, (int)sizeof rep, MPI_BYTE, 0, RC_TAG_REPORT, comm));
    rc_farm_job_msg *msg = rc_xmalloc(sizeof *msg);
    for (;;) {
        /* Every report (READY, DONE, FAILED) is answered by JOB or STOP. */
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
        RC_MPI_CHECK(MPI_Recv(msg, (int)sizeof *msg, MPI_BYTE, 0, RC_TAG_JOB, comm,
                              MPI_STATUS_IGNORE));
        rc_exec_out r;
        rc_exec_job(&msg->job, o->isolate, NULL, NULL, 0, &r);
        memset(&rep, 0, sizeof rep);
        snprintf(rep.host, sizeof rep.host, "%s", host);
        rep.index = msg->index;
        if (r.status == 0) {
            rep.kind = RC_REPORT_DONE;
            rep.len = r.len;
            rep.events = r.events;
            rep.wall_s = r.wall_s;
            RC_MPI_CHECK(MPI_Send(&rep, (int)sizeof rep, MPI_BYTE, 0, RC_TAG_REPORT, comm));
            RC_MPI_CHECK(MPI_Send(r.image, (int)r.len, MPI_BYTE, 0, RC_TAG_DATA, comm));
        } else {
            rep.kind = RC_REPORT_FAILED;
            rep.status = r.status;
            snprintf(rep.msg, sizeof rep.msg, "%s", r.msg);
            RC_MPI_CHECK(MPI_Send(&rep, (int)sizeof rep, MPI_BYTE, 0, RC_TAG_REPORT, comm));
        }
        free(r.image);
    }
    free(msg);
    return 0;
}
