#include "io/run_out.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/log.h"
#include "io/h5out.h"
#include "io/journal.h"
#include "io/manifest.h"

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* A sweep's companion files: run never writes beside them. */
static int check_not_sweep(const char *out, const char *path, rc_err *err)
{
    char *j = rc_journal_path(path), *m = rc_manifest_path(path);
    const char *found = exists(j) ? j : exists(m) ? m : NULL;
    int rc = 0;
    if (found != NULL)
        rc = rc_err_set(err, RC_EXIT_USAGE,
                        "--out %s belongs to a sweep (%s exists): rcsim run never writes into a "
                        "sweep's results; choose another --out",
                        out, found);
    free(j);
    free(m);
    return rc;
}

static int check_existing(const char *out, const char *path, uint64_t job_id, bool force,
                          rc_err *err)
{
    struct stat st;
    if (stat(path, &st) != 0) return 0; /* nothing there: write it */
    if (!S_ISREG(st.st_mode))
        return rc_err_set(err, RC_EXIT_USAGE, "--out %s exists and is not a regular file", out);
    rc_h5out_info info;
    rc_err herr = {0};
    int rc = rc_h5out_check(path, &info, &herr);
    if (rc == RC_EXIT_RUNTIME)
        return rc_err_set(err, RC_EXIT_USAGE,
                          "--out %s exists and is not an HDF5 results file (or is damaged); "
                          "rcsim run does not overwrite it: choose another --out",
                          out);
    if (rc != 0)
        return rc_err_set(err, RC_EXIT_USAGE, "--out %s: %s; rcsim run does not overwrite it",
                          out, herr.msg);
    if (strcmp(info.sweep_name, "run") != 0 || info.rows > 1 || info.shard[0] ||
        info.converted_from[0])
        return rc_err_set(err, RC_EXIT_USAGE,
                          "--out %s is the results file of sweep '%s' (%" PRIu64 " job(s)%s%s): "
                          "rcsim run never replaces a sweep's results; choose another --out",
                          out, info.sweep_name, info.rows, info.shard[0] ? ", shard " : "",
                          info.shard);
    /* A run file's sweep hash is its job id (rc_h5out_write_job). */
    if (info.sweep_hash != job_id && !force)
        return rc_err_set(err, RC_EXIT_USAGE,
                          "--out %s holds the result of another run (job %016" PRIx64 ", this "
                          "one is %016" PRIx64 "); pass --force to replace it, or choose "
                          "another --out",
                          out, info.sweep_hash, job_id);
    return 0;
}

int rc_run_out_claim(const char *out, uint64_t job_id, bool force, rc_run_out *ro, rc_err *err)
{
    memset(ro, 0, sizeof *ro);
    char *path = rc_lock_canonical(out);
    int rc = check_not_sweep(out, path, err);
    rc_lock *lock = NULL;
    if (rc == 0) {
        lock = rc_lock_take(path, err);
        if (lock == NULL) rc = err->code ? err->code : RC_EXIT_USAGE;
    }
    /* Checked again under the lock: a sweep may have started in between. */
    if (rc == 0) rc = check_not_sweep(out, path, err);
    if (rc == 0) rc = check_existing(out, path, job_id, force, err);
    if (rc != 0) {
        rc_lock_release(lock);
        free(path);
        return rc;
    }
    ro->path = path;
    ro->lock = lock;
    return 0;
}

void rc_run_out_release(rc_run_out *ro)
{
    if (ro == NULL) return;
    rc_lock_release(ro->lock);
    free(ro->path);
    memset(ro, 0, sizeof *ro);
}
