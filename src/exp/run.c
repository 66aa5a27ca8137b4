#include "exp/run.h"

#include <math.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "core/log.h"
#include "core/sim.h"
#include "loopix/net.h"
#include "multicast/mc.h"
#include "trace/avail.h"
#include "workload/app.h"

typedef struct progress_ctx {
    rc_run_progress_fn fn;
    void *ctx;
} progress_ctx;

static void progress_hook(void *c, double f)
{
    progress_ctx *p = c;
    p->fn(p->ctx, f);
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int rc_run_job(const rc_job *job_in, rc_result *out, rc_run_progress_fn progress, void *ctx,
               rc_err *err)
{
    rc_job job = *job_in;
    rc_job_resolve(&job);
    int rc = rc_job_validate(&job, err);
    if (rc) return rc;
    bool saved_check = rc_check_enabled;
    if (job.check) rc_check_enabled = true;

    rc_trace *trace = NULL;
    if (strcmp(job.trace, "online") != 0) {
        char path[1024];
        rc = rc_trace_resolve(job.trace, job.data_dir, path, sizeof path, err);
        if (rc) return rc;
        /* Paper mapping: user U_i of each provider takes line i, so the trace
         * needs one line per provider slot; intended mapping: one per user. */
        size_t need = job.quirks.trace16 == 1
                          ? (size_t)(job.users < job.users_per_provider ? job.users
                                                                         : job.users_per_provider)
                          : (size_t)job.users;
        trace = rc_trace_load(path, need, err);
        if (trace == NULL) return err && err->code ? err->code : RC_EXIT_USAGE;
    }

    double t0 = wall_now();
    rc_sim sim;
    rc_sim_init(&sim, (rc_time)llround(job.duration_s * 1e6));
    rc_net_cfg net_cfg;
    rc_mc_cfg mc_cfg;
    rc_job_net_cfg(&job, &net_cfg);
    rc_job_mc_cfg(&job, &mc_cfg);
    rc_mc *mc = rc_mc_new(&sim, &mc_cfg, &net_cfg, trace, err);
    if (mc == NULL) {
        rc_sim_free(&sim);
        rc_trace_free(trace);
        return err && err->code ? err->code : RC_EXIT_USAGE;
    }
    rc_app_cfg app_cfg;
    rc_job_app_cfg(&job, &app_cfg);
    rc_app *app = rc_app_new(&sim, mc, &app_cfg);
    rc_mc_start(mc);
    rc_app_start(app);
    progress_ctx pc = {progress, ctx};
    rc_sim_run(&sim, progress ? progress_hook : NULL, &pc, (rc_time)3600 * 1000000);

    rc_result_init(out);
    out->job_id = rc_job_id(&job);
    rc_result_gather(out, mc, job.store_raw);
    out->c.events = sim.events;
    out->c.sim_s = job.duration_s;
    out->c.wall_s = wall_now() - t0;
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0) out->c.peak_rss_kb = (uint64_t)ru.ru_maxrss;

    rc_app_free(app);
    rc_mc_free(mc);
    rc_sim_free(&sim);
    rc_trace_free(trace);
    rc_check_enabled = saved_check;
    return 0;
}
