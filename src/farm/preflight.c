#include "farm/preflight.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/build.h"
#include "core/log.h"
#include "exp/param.h"
#include "io/journal.h"
#include "io/lock.h"
#include "io/manifest.h"

struct rc_preflight {
    rc_lock *lock;
    char *manifest;  /* path of the manifest if this run wrote it, else NULL */
    char *before;    /* its bytes before (NULL: there was none), for a refusal */
    size_t before_len;
};

/* The whole file, or NULL if it cannot be read. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = rc_xmalloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) buf = rc_xrealloc(buf, cap *= 2);
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

/* Puts back what a refused run changed: the old bytes (temporary file, rename) or nothing. */
static void restore_manifest(const rc_preflight *p)
{
    if (p->before == NULL) {
        unlink(p->manifest);
        return;
    }
    size_t n = strlen(p->manifest) + 8;
    char *tmp = rc_xmalloc(n);
    snprintf(tmp, n, "%s.tmp", p->manifest);
    FILE *f = fopen(tmp, "wb");
    bool ok = f != NULL && fwrite(p->before, 1, p->before_len, f) == p->before_len;
    if (f != NULL && fclose(f) != 0) ok = false;
    if (!ok || rename(tmp, p->manifest) != 0) {
        fprintf(stderr, "rcsim sweep: could not restore %s: %s\n", p->manifest, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
}

/* The directory --out goes into must exist and take new files. */
static int check_out_dir(const char *out, rc_err *err)
{
    if (out[0] == '\0') return rc_err_set(err, RC_EXIT_USAGE, "--out: empty file name");
    size_t n = strlen(out);
    if (out[n - 1] == '/')
        return rc_err_set(err, RC_EXIT_USAGE, "--out %s: names a directory, not a file", out);
    char *dir = rc_xstrdup(out);
    char *slash = strrchr(dir, '/');
    if (slash == NULL) strcpy(dir, ".");
    else if (slash == dir) dir[1] = '\0';
    else *slash = '\0';
    struct stat st;
    int rc = 0;
    if (stat(dir, &st) != 0)
        rc = rc_err_set(err, RC_EXIT_USAGE, "--out %s: directory %s %s", out, dir,
                        errno == ENOENT ? "does not exist" : strerror(errno));
    else if (!S_ISDIR(st.st_mode))
        rc = rc_err_set(err, RC_EXIT_USAGE, "--out %s: %s is not a directory", out, dir);
    else if (access(dir, W_OK | X_OK) != 0)
        rc = rc_err_set(err, RC_EXIT_USAGE, "--out %s: directory %s is not writable: %s", out,
                        dir, strerror(errno));
    else if (stat(out, &st) == 0 && S_ISDIR(st.st_mode))
        rc = rc_err_set(err, RC_EXIT_USAGE, "--out %s: is a directory", out);
    free(dir);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The stored options of the sweep's jobs: "store_raw=false", or the distinct
 * combinations, sorted, joined by " | " when jobs differ. */
static void stored_options(const rc_sweep *sw, char *out, size_t cap)
{
    size_t np, n = rc_sweep_count(sw), k = 0;
    const rc_param_def *t = rc_param_table(&np);
    char **combos = rc_xcalloc(n ? n : 1, sizeof *combos);
    for (size_t i = 0; i < n; i++) {
        char buf[512] = "";
        size_t used = 0;
        for (size_t p = 0; p < np; p++) {
            if (!(t[p].flags & RC_PF_STORED)) continue;
            char v[300];
            rc_param_format(rc_sweep_job(sw, i), &t[p], v, sizeof v);
            int w = snprintf(buf + used, sizeof buf - used, "%s%s=%s", used ? " " : "", t[p].name,
                             v);
            if (w > 0 && (size_t)w < sizeof buf - used) used += (size_t)w;
        }
        bool seen = false;
        for (size_t j = 0; j < k && !seen; j++) seen = !strcmp(combos[j], buf);
        if (!seen) combos[k++] = rc_xstrdup(buf);
    }
    qsort(combos, k, sizeof *combos, cmp_str);
    size_t used = 0;
    out[0] = '\0';
    for (size_t j = 0; j < k; j++) {
        int w = snprintf(out + used, cap - used, "%s%s", j ? " | " : "", combos[j]);
        if (w > 0 && (size_t)w < cap - used) used += (size_t)w;
        free(combos[j]);
    }
    free(combos);
}

static void describe_now(const rc_sweep *sw, const rc_preflight_opts *o, rc_manifest *m)
{
    rc_manifest_init(m);
    snprintf(m->sweep_name, sizeof m->sweep_name, "%s", rc_sweep_name(sw));
    snprintf(m->sweep_file, sizeof m->sweep_file, "%s", rc_sweep_path(sw));
    m->sweep_hash = rc_sweep_hash(sw);
    stored_options(sw, m->stored, sizeof m->stored);
    rc_manifest_add_build(m, rc_build());
    for (size_t i = 0; i < o->n_worker_builds; i++) rc_manifest_add_build(m, &o->worker_builds[i]);
    for (size_t i = 0; i < rc_sweep_trace_count(sw); i++) {
        const char *written;
        const rc_trace_id *id = rc_sweep_trace(sw, i, &written);
        rc_manifest_add_trace(m, written, id);
    }
}

int rc_preflight_run(rc_sweep *sw, const rc_preflight_opts *o, rc_preflight **pf, rc_err *err)
{
    *pf = NULL;
    int rc = rc_sweep_bind(sw, o->data_dir, err);
    if (rc == 0) rc = check_out_dir(o->out, err);
    if (rc != 0) return rc;
    rc_preflight *p = rc_xcalloc(1, sizeof *p);
    if (!o->dry_run) {
        p->lock = rc_lock_take(o->out, err);
        if (p->lock == NULL) {
            free(p);
            return err->code ? err->code : RC_EXIT_RUNTIME;
        }
    }
    rc_manifest now, old;
    describe_now(sw, o, &now);
    bool found = false;
    rc = rc_manifest_read(o->out, &old, &found, err);
    char *jpath = rc_journal_path(o->out);
    struct stat st;
    bool resumed = stat(jpath, &st) == 0;
    if (rc == 0 && resumed) {
        if (found) {
            rc = rc_manifest_check(&old, &now, o->out, o->allow_other_build, err);
        } else if (!o->allow_other_build) {
            char *mpath = rc_manifest_path(o->out);
            rc = rc_err_set(err, RC_EXIT_USAGE,
                            "%s holds finished jobs but %s is missing, so what produced them "
                            "(build, traces, stored options) cannot be checked; choose another "
                            "--out, or pass --allow-other-build to accept them as they are",
                            jpath, mpath);
            free(mpath);
        }
    }
    if (rc == 0 && !o->dry_run) {
        /* A fresh start (no journal) forgets an old manifest: there is
         * nothing finished that it could describe.  An unchanged one is not
         * rewritten (a resume on a full disk fails where it did before). */
        const rc_manifest *m = &now;
        if (resumed && found) m = rc_manifest_merge(&old, &now) ? &old : NULL;
        if (m != NULL) {
            /* Kept so that a run the farm then refuses (a results file of another
             * sweep) leaves the manifest as it found it. */
            p->manifest = rc_manifest_path(o->out);
            if (found) p->before = slurp(p->manifest, &p->before_len);
            rc = rc_manifest_write(o->out, m, err);
        }
    }
    free(jpath);
    rc_manifest_free(&now);
    rc_manifest_free(&old);
    if (rc != 0 || o->dry_run) {
        rc_preflight_release(p, false);
        return rc;
    }
    *pf = p;
    return 0;
}

void rc_preflight_release(rc_preflight *pf, bool refused)
{
    if (pf == NULL) return;
    if (refused && pf->manifest != NULL) restore_manifest(pf);
    rc_lock_release(pf->lock);
    free(pf->manifest);
    free(pf->before);
    free(pf);
}
