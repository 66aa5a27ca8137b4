#include "exp/job.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "exp/param.h"
#include "multicast/strategy_name.h"

void rc_job_defaults(rc_job *job)
{
    /* Parsed once per process: a sweep expands every job from the defaults,
     * and parsing ~45 default texts costs microseconds per job. */
    static rc_job parsed;
    static bool have;
    if (!have) {
        memset(&parsed, 0, sizeof parsed);
        size_t n;
        const rc_param_def *t = rc_param_table(&n);
        for (size_t i = 0; i < n; i++) {
            int rc = rc_param_set(&parsed, &t[i], t[i].def, NULL);
            (void)rc; /* the defaults are checked by the unit tests */
        }
        have = true;
    }
    *job = parsed;
}

static void resolve_quirk(int *q, bool on)
{
    if (*q == RC_AUTO) *q = on ? 1 : 0;
}

void rc_job_resolve(rc_job *job)
{
    bool paper = job->model == RC_MODEL_PAPER;
    rc_quirks *q = &job->quirks;
    resolve_quirk(&q->lattice, paper);
    resolve_quirk(&q->trace16, paper);
    resolve_quirk(&q->frozen_pull, paper);
    /* Loopix providers mix too (the sender's provider is the first mix of
     * the path), so the exact model keeps the ingress delay; the switch is
     * there to measure what it does. */
    resolve_quirk(&q->ingress_delay, true);
    resolve_quirk(&q->arm_once, paper);
    resolve_quirk(&q->acks_always, paper);
    resolve_quirk(&q->seed0_groups, paper);
    resolve_quirk(&q->nonce0_plain, paper);
    resolve_quirk(&q->nonce_perm, paper);
    if (job->group_size == 0) job->group_size = job->users;
}

int rc_job_group_size(const rc_job *job)
{
    return job->group_size == 0 ? job->users : job->group_size;
}

int rc_job_providers(const rc_job *job)
{
    return (job->users + job->users_per_provider - 1) / job->users_per_provider;
}

int rc_job_validate(const rc_job *job, rc_err *err)
{
    int gs = rc_job_group_size(job);
    if (gs > job->users)
        return rc_err_set(err, RC_EXIT_USAGE,
                          "group_size: %d is larger than the population (users = %d)", gs,
                          job->users);
    if (gs < 2) return rc_err_set(err, RC_EXIT_USAGE, "group_size: %d is below 2", gs);
    rc_strategy_spec s;
    int rc = rc_strategy_parse(job->strategy, &s, err);
    if (rc) return rc;
    if (job->data_dir[0] != '\0') {
        struct stat st;
        if (stat(job->data_dir, &st) != 0 || !S_ISDIR(st.st_mode))
            return rc_err_set(err, RC_EXIT_USAGE, "data_dir: '%s' is not a directory",
                              job->data_dir);
    }
    if (job->trace[0] == '\0')
        return rc_err_set(err, RC_EXIT_USAGE, "trace: empty (use 'online' for no trace)");
    if (job->rate_payload <= 0)
        return rc_err_set(err, RC_EXIT_USAGE, "rate_payload: must be > 0");
    if (job->quirks.lattice == 1) {
        double ticks = job->duration_s / job->tick_s;
        if (ticks > 9e15)
            return rc_err_set(err, RC_EXIT_USAGE, "duration: too many ticks of %g s", job->tick_s);
    }
    if (job->offline_members[0] != '\0') {
        const char *p = job->offline_members;
        while (*p) {
            int pos, used;
            if (sscanf(p, "%d%n", &pos, &used) != 1 || pos < 0 || pos >= gs)
                return rc_err_set(err, RC_EXIT_USAGE,
                                  "offline_members: '%s' must be a comma list of positions 0..%d",
                                  job->offline_members, gs - 1);
            p += used;
            if (*p == ',') p++;
            else if (*p != '\0')
                return rc_err_set(err, RC_EXIT_USAGE,
                                  "offline_members: '%s' must be a comma list of positions",
                                  job->offline_members);
        }
    }
    if (job->source_offline[0] != '\0') {
        double at, len;
        char extra;
        if (sscanf(job->source_offline, "%lf:%lf%c", &at, &len, &extra) != 2 || at < 0 || len <= 0)
            return rc_err_set(err, RC_EXIT_USAGE, "source_offline: '%s' must be AT:FOR seconds",
                              job->source_offline);
    }
    return 0;
}

size_t rc_job_canonical(const rc_job *job, char *buf, size_t n)
{
    rc_job r = *job;
    rc_job_resolve(&r);
    size_t count, used = 0;
    const rc_param_def *t = rc_param_table(&count);
    for (size_t i = 0; i < count; i++) {
        if (!(t[i].flags & RC_PF_CANON)) continue;
        char val[300];
        rc_param_format(&r, &t[i], val, sizeof val);
        /* "name=value\n" without another printf (this runs for every job id) */
        size_t ln = strlen(t[i].name), lv = strlen(val);
        for (size_t k = 0; k < ln + lv + 2; k++) {
            char ch = k < ln ? t[i].name[k] : k == ln ? '=' : k < ln + 1 + lv ? val[k - ln - 1] : '\n';
            if (used + k + 1 < n) buf[used + k] = ch;
        }
        used += ln + lv + 2;
        if (n > 0) buf[used < n ? used : n - 1] = '\0';
    }
    return used;
}

uint64_t rc_job_id(const rc_job *job)
{
    char buf[8192];
    size_t len = rc_job_canonical(job, buf, sizeof buf);
    if (len >= sizeof buf) len = sizeof buf - 1;
    uint64_t h = 1469598103934665603ULL; /* FNV-1a 64 */
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)buf[i];
        h *= 1099511628211ULL;
    }
    return h;
}

void rc_job_id_hex(uint64_t id, char out[17]) { snprintf(out, 17, "%016llx", (unsigned long long)id); }
