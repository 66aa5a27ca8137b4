/* Binding a sweep's jobs to the content of their trace files (rc_sweep_bind,
 * exp/sweep.h): each distinct trace is read once, and the jobs take its identity. */
#include "exp/sweep_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

/* "FILE:LINE: MESSAGE [job I of N: trace=VALUE]": the line that set the trace. */
static int bind_fail(const rc_sweep *s, size_t i, rc_err *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int bind_fail(const rc_sweep *s, size_t i, rc_err *err, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line = s->trace_line[i];
    char where[32] = "";
    if (line > 0) snprintf(where, sizeof where, ":%d", line);
    return rc_err_set(err, RC_EXIT_USAGE, "%s%s: %s [job %zu of %zu: trace=%s%s]", s->path, where,
                      msg, i + 1, s->n, s->jobs[i].trace, line == 0 ? " (from --set)" : "");
}

static bound_trace *find_bound(rc_sweep *s, const char *written, const char *dir)
{
    for (size_t k = 0; k < s->n_traces; k++)
        if (!strcmp(s->traces[k].written, written) && !strcmp(s->traces[k].data_dir, dir))
            return &s->traces[k];
    return NULL;
}

/* Back to the ids of the spelling (after a failed bind). */
static void unbind(rc_sweep *s)
{
    for (size_t i = 0; i < s->n; i++) {
        rc_job *job = &s->jobs[i];
        job->trace_name[0] = job->trace_sha256[0] = '\0';
        job->trace_lines = 0;
        s->ids[i] = rc_job_id(job);
    }
    for (size_t i = 0; i < s->n_traces; i++) {
        free(s->traces[i].written);
        free(s->traces[i].data_dir);
    }
    free(s->traces);
    s->traces = NULL;
    s->n_traces = 0;
    size_t a, b;
    int dup = sweep_hash_ids(s, &a, &b);
    RC_ASSERT(!dup); /* the load checked these ids */
}

static int bind_all(rc_sweep *s, const char *data_dir, rc_err *err)
{
    for (size_t i = 0; i < s->n; i++) {
        rc_job *job = &s->jobs[i];
        const char *dir = data_dir != NULL && data_dir[0] != '\0' ? data_dir : job->data_dir;
        if (dir != job->data_dir) {
            /* The job as the farm will hand it out (with --data-dir), checked
             * now rather than by the job itself at run time. */
            rc_job run = *job;
            snprintf(run.data_dir, sizeof run.data_dir, "%s", dir);
            rc_err e = {0};
            if (rc_job_validate(&run, &e) != 0) return bind_fail(s, i, err, "%s", e.msg);
        }
        if (!strcmp(job->trace, "online")) continue;
        bound_trace *b = find_bound(s, job->trace, dir);
        if (b == NULL) {
            /* Each distinct trace is read once, completely: a bad file is
             * found here, before any job runs, not by every job. */
            rc_trace_id id;
            rc_err e = {0};
            /* through the cache: a serial sweep then runs its jobs on it */
            if (rc_trace_id_get(job->trace, dir, 0, &id, &e) == NULL)
                return bind_fail(s, i, err, "%s", e.msg);
            s->traces = rc_xrealloc(s->traces, (s->n_traces + 1) * sizeof *s->traces);
            b = &s->traces[s->n_traces++];
            b->written = rc_xstrdup(job->trace);
            b->data_dir = rc_xstrdup(dir);
            b->id = id;
        }
        size_t need = rc_job_trace_lines_needed(job);
        if (need > b->id.lines)
            return bind_fail(s, i, err, "trace %s has %u lines, the job needs %zu", b->id.path,
                             b->id.lines, need);
        rc_job_bind_trace(job, &b->id);
        s->ids[i] = rc_job_id(job);
    }
    size_t a, b;
    if (sweep_hash_ids(s, &a, &b)) {
        char hex[17];
        rc_job_id_hex(s->ids[b], hex);
        return bind_fail(s, b, err,
                         "job %zu (trace=%s) and job %zu (trace=%s) are the same job (id %s): "
                         "both traces are %s (sha256 %s); remove one of them",
                         a + 1, s->jobs[a].trace, b + 1, s->jobs[b].trace, hex,
                         s->jobs[b].trace_name, s->jobs[b].trace_sha256);
    }
    return 0;
}

int rc_sweep_bind(rc_sweep *s, const char *data_dir, rc_err *err)
{
    int rc = bind_all(s, data_dir, err);
    if (rc != 0) unbind(s);
    return rc;
}

size_t rc_sweep_trace_count(const rc_sweep *s) { return s->n_traces; }

const rc_trace_id *rc_sweep_trace(const rc_sweep *s, size_t i, const char **written)
{
    RC_ASSERTF(i < s->n_traces, "trace %zu of %zu", i, s->n_traces);
    if (written != NULL) *written = s->traces[i].written;
    return &s->traces[i].id;
}
