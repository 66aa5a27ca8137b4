/* merge_check: what `rcsim merge` checks of its parts before it writes anything, and
 * the manifest it gives the merged file (io/merge_check.h).  The same refusals a
 * resume of `rcsim sweep` makes (farm/preflight.c): rows of another sweep, a job in
 * two parts, jobs stored both ways (store_raw, seen in the rows and in the parts'
 * manifests), and jobs of builds the parts do not share unless allowed. */
#include "io/merge_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "exp/job.h"
#include "exp/result.h"
#include "io/journal.h"
#include "io/lock.h"
#include "io/manifest.h"

typedef struct seen_id {
    uint64_t id;
    unsigned part;
} seen_id;

static int cmp_seen(const void *a, const void *b)
{
    uint64_t x = ((const seen_id *)a)->id, y = ((const seen_id *)b)->id;
    return x < y ? -1 : x > y;
}

/* What the rows of one input say about how they were made. */
typedef struct part_facts {
    char builds[4][17]; /* distinct build ids of its rows (the first 4) */
    unsigned n_builds;
    size_t raw_row, plain_row; /* a row with per-delivery records / one without (+1; 0 none) */
    char stored[1024];         /* its manifest's stored options ("" without one) */
} part_facts;

static void note_build(part_facts *f, const char *id)
{
    for (unsigned k = 0; k < f->n_builds; k++)
        if (!strcmp(f->builds[k], id)) return;
    if (f->n_builds < 4) snprintf(f->builds[f->n_builds++], sizeof f->builds[0], "%s", id);
}

static bool same_builds(const part_facts *a, const part_facts *b)
{
    if (a->n_builds != b->n_builds) return false;
    for (unsigned i = 0; i < a->n_builds; i++) {
        bool found = false;
        for (unsigned k = 0; k < b->n_builds && !found; k++)
            found = !strcmp(a->builds[i], b->builds[k]);
        if (!found) return false;
    }
    return true;
}

static void list_builds(const part_facts *f, char *out, size_t n)
{
    size_t used = 0;
    out[0] = '\0';
    for (unsigned k = 0; k < f->n_builds && used < n; k++) {
        int w = snprintf(out + used, n - used, "%s%s", k ? ", " : "",
                         f->builds[k][0] ? f->builds[k] : "(none recorded)");
        if (w > 0) used += (size_t)w;
    }
}

/* store_raw and the build, as the inputs' rows and manifests show them: a
 * merged file must not hold jobs stored both ways, nor (unless allowed) jobs
 * of builds the parts do not share -- `rcsim sweep` refuses both on resume. */
static int check_made_alike(char **parts, unsigned n, const part_facts *facts,
                            bool allow_other_build, rc_err *err)
{
    for (unsigned p = 0; p < n; p++) {
        if (facts[p].raw_row == 0) continue;
        for (unsigned q = 0; q < n; q++) {
            if (facts[q].plain_row == 0) continue;
            return rc_err_set(err, RC_EXIT_USAGE,
                              "%s holds jobs stored with store_raw=true (row %zu has per-delivery "
                              "records), %s jobs stored with store_raw=false (row %zu delivered "
                              "without records): the merged file would hold jobs stored both "
                              "ways; merge parts of one setting (rerun the other shards with the "
                              "same store_raw)",
                              parts[p], facts[p].raw_row - 1, parts[q], facts[q].plain_row - 1);
        }
    }
    for (unsigned p = 1; p < n; p++)
        if (facts[p].stored[0] && facts[0].stored[0] && strcmp(facts[p].stored, facts[0].stored))
            return rc_err_set(err, RC_EXIT_USAGE,
                              "%s was stored with %s, %s with %s (their manifests): the merged "
                              "file would hold jobs stored both ways",
                              parts[0], facts[0].stored, parts[p], facts[p].stored);
    if (allow_other_build) return 0;
    for (unsigned p = 1; p < n; p++) {
        if (same_builds(&facts[0], &facts[p])) continue;
        char a[100], b[100];
        list_builds(&facts[0], a, sizeof a);
        list_builds(&facts[p], b, sizeof b);
        return rc_err_set(err, RC_EXIT_USAGE,
                          "the jobs in %s were run by build %s, those in %s by build %s: merging "
                          "would mix results of different builds; rerun the shards with one "
                          "build, or pass --allow-other-build (each row keeps the build that "
                          "ran it)",
                          parts[0], a, parts[p], b);
    }
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct id_list {
    uint64_t *v;
    size_t n, cap;
} id_list;

static int on_journal_id(void *ctx, uint64_t id, const rc_journal_meta *meta, const void *image,
                         size_t len)
{
    (void)meta, (void)image, (void)len;
    id_list *l = ctx;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 4096;
        l->v = rc_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = id;
    return 0;
}

/* A part is whole: its journal -- the authority on what is finished
 * (io/journal.h) -- holds no job its table lacks (a sweep killed before its
 * table write, or one that ended while a reader held the file, leaves them
 * in the journal only).  Merging such a part would silently leave those jobs
 * out, so it is refused with what to do.  `table` holds the part's row ids. */
static int check_part_whole(const char *part, const rc_h5out_info *info, const char *sweep_file,
                            const seen_id *table, size_t rows, rc_err *err)
{
    char *canon = rc_lock_canonical(part);
    char *jpath = rc_journal_path(canon);
    free(canon);
    id_list l = {0};
    rc_journal_scan scan;
    int rc = rc_journal_read(jpath, on_journal_id, &l, &scan, err);
    if (rc == 0 && l.n > 0) {
        uint64_t *mine = rc_xmalloc(rows ? rows * sizeof *mine : 1);
        for (size_t r = 0; r < rows; r++) mine[r] = table[r].id;
        if (rows > 1) qsort(mine, rows, sizeof *mine, cmp_u64);
        size_t lacking = 0;
        uint64_t example = 0;
        for (size_t i = 0; i < l.n; i++) {
            if (rows > 0 && bsearch(&l.v[i], mine, rows, sizeof *mine, cmp_u64) != NULL) continue;
            if (lacking++ == 0) example = l.v[i];
        }
        free(mine);
        if (lacking > 0) {
            char hex[17];
            rc_job_id_hex(example, hex);
            rc = rc_err_set(
                err, RC_EXIT_USAGE,
                "%s: its journal %s holds %zu finished job(s) that its table does not (%zu rows; "
                "e.g. job %s): the sweep that wrote it ended before writing them to the table "
                "(killed, or a reader held the file).  Run `rcsim sweep %s --out %s%s%s` (with "
                "the options it was run with) again: it writes them from the journal and runs "
                "only what is missing; then merge",
                part, jpath, lacking, rows, hex, sweep_file[0] ? sweep_file : "SWEEP.yaml", part,
                info->shard[0] ? " --shard " : "", info->shard);
        }
    }
    free(l.v);
    free(jpath);
    return rc;
}

/* Checks the inputs: one sweep, no job twice, no part still being written
 * (its lock held by a sweep), each part whole (check_part_whole), stored and built alike.  Fills *info0 from the first. */
int rc_merge_check_parts(char **parts, unsigned n, bool allow_other_build, rc_h5out_info *info0,
                         rc_err *err)
{
    size_t total = 0, cap = 0;
    seen_id *ids = NULL;
    part_facts *facts = rc_xcalloc(n, sizeof *facts);
    int rc = 0;
    for (unsigned p = 0; p < n && rc == 0; p++) {
        char holder[256];
        if (rc_lock_held(parts[p], holder, sizeof holder)) {
            rc = rc_err_set(err, RC_EXIT_USAGE,
                            "%s is being written by a running sweep (%s holds its lock "
                            "%s.lock): merge it once that sweep has ended",
                            parts[p], holder[0] ? holder : "a process", parts[p]);
            break;
        }
        rc_h5in *in = rc_h5in_open(parts[p], err);
        if (in == NULL) {
            rc = err->code ? err->code : RC_EXIT_USAGE;
            break;
        }
        const rc_h5out_info *info = rc_h5in_info(in);
        size_t first_row = total;
        if (p == 0) {
            *info0 = *info;
        } else if (info->sweep_hash != info0->sweep_hash) {
            rc = rc_err_set(err, RC_EXIT_USAGE,
                            "%s belongs to sweep '%s' (hash %016llx), %s to '%s' (hash %016llx): "
                            "only results of one sweep (as it is now) can be merged",
                            parts[p], info->sweep_name, (unsigned long long)info->sweep_hash,
                            parts[0], info0->sweep_name, (unsigned long long)info0->sweep_hash);
        }
        for (size_t r = 0; r < info->rows && rc == 0; r++) {
            uint64_t id;
            const char *canon;
            rc_h5out_prov prov;
            void *image;
            size_t len;
            rc = rc_h5in_row(in, r, &id, &canon, &prov, &image, &len, err);
            if (rc == 0) {
                rc_result_view v;
                rc = rc_result_view_parse(&v, image, len, err);
                if (rc == 0) {
                    note_build(&facts[p], v.build_id);
                    if (v.n_deliveries > 0 && facts[p].raw_row == 0) facts[p].raw_row = r + 1;
                    if (v.n_deliveries == 0 && v.c.deliveries > 0 && facts[p].plain_row == 0)
                        facts[p].plain_row = r + 1;
                    rc_result_view_release(&v);
                }
            }
            free(image);
            if (total == cap) {
                cap = cap ? 2 * cap : 4096;
                ids = rc_xrealloc(ids, cap * sizeof *ids);
            }
            ids[total++] = (seen_id){id, p};
        }
        if (rc == 0)
            rc = check_part_whole(parts[p], info, rc_h5in_sweep_file(in), ids + first_row,
                                  total - first_row, err);
        rc_h5in_close(in);
        if (rc == 0) {
            rc_manifest m;
            bool found = false;
            rc = rc_manifest_read(parts[p], &m, &found, err);
            if (rc == 0 && found) snprintf(facts[p].stored, sizeof facts[p].stored, "%s", m.stored);
            if (rc == 0) rc_manifest_free(&m);
        }
    }
    if (rc == 0) {
        if (total > 1) qsort(ids, total, sizeof *ids, cmp_seen);
        for (size_t i = 1; i < total && rc == 0; i++)
            if (ids[i].id == ids[i - 1].id) {
                char hex[17];
                rc_job_id_hex(ids[i].id, hex);
                unsigned a = ids[i - 1].part, b = ids[i].part;
                rc = rc_err_set(err, RC_EXIT_USAGE,
                                "job %s is in %s and in %s: each job must come from one input "
                                "(the same shard given twice?)",
                                hex, parts[a < b ? a : b], parts[a < b ? b : a]);
            }
    }
    if (rc == 0) rc = check_made_alike(parts, n, facts, allow_other_build, err);
    free(ids);
    free(facts);
    return rc;
}

/* The parts' manifests (what produced their jobs: builds, traces, stored
 * options; io/manifest.h) combined into ALL.h5's, so that a sweep resumed
 * into the merged file checks against them like against its own.  Parts
 * without one: the merged file gets none (a resume then needs
 * --allow-other-build), and merge says so. */
int rc_merge_manifests(char **parts, unsigned n, const char *out, rc_err *err)
{
    rc_manifest all;
    rc_manifest_init(&all);
    bool have = false, missing = false;
    int rc = 0;
    for (unsigned p = 0; p < n && rc == 0; p++) {
        rc_manifest m;
        bool found = false;
        rc = rc_manifest_read(parts[p], &m, &found, err);
        if (rc != 0) break;
        if (!found) {
            missing = true;
        } else if (!have) {
            rc_manifest_free(&all);
            all = m;
            have = true;
            continue;
        } else {
            rc_manifest_merge(&all, &m);
        }
        rc_manifest_free(&m);
    }
    if (rc == 0 && have && !missing) rc = rc_manifest_write(out, &all, err);
    else if (rc == 0)
        fprintf(stderr, "rcsim merge: not every input has its manifest (.manifest.json); %s gets "
                "none, so a sweep resumed into it needs --allow-other-build\n", out);
    rc_manifest_free(&all);
    return rc;
}
