/* cmd_merge: `rcsim merge PART.h5 ... --out ALL.h5`, combining the files of
 * `rcsim sweep --shard I/N` (or any results files of one sweep) into one.
 *
 * Refuses (exit 2, nothing written) files of another sweep (their sweep_hash
 * differs), a job present in two inputs, and an existing --out; and what a
 * resume of `rcsim sweep` refuses too: parts stored with different options
 * (store_raw: seen in the rows, and in the parts' manifests) and parts made by
 * different builds (the rows' build ids) unless --allow-other-build.  The output
 * gets a journal too, built from the rows, so `rcsim sweep FILE --out ALL.h5`
 * afterwards runs exactly the jobs no shard finished.  Every row keeps its
 * parameters, canonical text, provenance and results as they were.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "core/err.h"
#include "core/log.h"
#include "io/h5out.h"
#include "io/journal.h"
#include "io/manifest.h"

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: rcsim merge PART.h5 [PART.h5 ...] --out ALL.h5\n"
            "\n"
            "Combines results files of one sweep (typically the shards written by\n"
            "`rcsim sweep FILE --shard I/N --out part-I.h5`) into ALL.h5 and its journal\n"
            "ALL.h5.journal, as if one `rcsim sweep FILE --out ALL.h5` had run them.\n"
            "Refuses inputs of different sweeps, jobs present in two inputs, inputs stored\n"
            "with different options (store_raw) and, unless --allow-other-build, inputs\n"
            "made by different builds.\n"
            "\n"
            "options:\n"
            "  -o, --out FILE   the merged results file (must not exist)\n"
            "      --allow-other-build  merge parts whose jobs were run by different builds\n"
            "                   of rcsim (each row keeps the build that ran it)\n"
            "  -q, --quiet      no summary line\n"
            "  -h, --help       this help\n"
            "\n"
            "exit codes: 0 merged, every job of the sweep present; 1 merged, but jobs of the\n"
            "sweep are missing (rerun the sweep into ALL.h5 to run them) or a runtime error;\n"
            "2 bad usage, inputs of different sweeps, duplicate jobs, different stored\n"
            "options or builds (nothing written).\n");
}

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

/* Checks the inputs: one sweep, no job twice, stored and built alike.  Fills
 * *info0 from the first. */
static int check_inputs(char **parts, unsigned n, bool allow_other_build, rc_h5out_info *info0,
                        rc_err *err)
{
    size_t total = 0, cap = 0;
    seen_id *ids = NULL;
    part_facts *facts = rc_xcalloc(n, sizeof *facts);
    int rc = 0;
    for (unsigned p = 0; p < n && rc == 0; p++) {
        rc_h5in *in = rc_h5in_open(parts[p], err);
        if (in == NULL) {
            rc = err->code ? err->code : RC_EXIT_USAGE;
            break;
        }
        const rc_h5out_info *info = rc_h5in_info(in);
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
static int merge_manifests(char **parts, unsigned n, const char *out, rc_err *err)
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

int rc_cmd_merge(int argc, char **argv)
{
    enum { OPT_ALLOW_BUILD = 256 };
    static const struct option longopts[] = {
        {"out", required_argument, NULL, 'o'},
        {"allow-other-build", no_argument, NULL, OPT_ALLOW_BUILD},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *out = NULL;
    bool quiet = false, allow_other_build = false;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'q': quiet = true; break;
        case OPT_ALLOW_BUILD: allow_other_build = true; break;
        case 'h': print_usage(stdout); return 0;
        default:
            fprintf(stderr, "rcsim merge: unknown or incomplete option '%s' (see --help)\n",
                    argv[optind - 1]);
            return RC_EXIT_USAGE;
        }
    }
    unsigned n = (unsigned)(argc - optind);
    if (out == NULL || n == 0) {
        fprintf(stderr, "rcsim merge: expected PART.h5 ... and --out ALL.h5 (see --help)\n");
        return RC_EXIT_USAGE;
    }
    char **parts = argv + optind;
    struct stat st;
    char *jpath = rc_journal_path(out);
    if (stat(out, &st) == 0 || stat(jpath, &st) == 0) {
        fprintf(stderr, "rcsim merge: %s or its journal exists; merge writes a new file\n", out);
        free(jpath);
        return RC_EXIT_USAGE;
    }
    rc_err err = {0};
    rc_h5out_info info0;
    int rc = check_inputs(parts, n, allow_other_build, &info0, &err);
    if (rc != 0) {
        fprintf(stderr, "rcsim merge: %s\n", err.msg);
        free(jpath);
        return rc;
    }
    /* The sweep as the first input recorded it. */
    rc_h5in *first = rc_h5in_open(parts[0], &err);
    if (first == NULL) {
        fprintf(stderr, "rcsim merge: %s\n", err.msg);
        free(jpath);
        return err.code ? err.code : RC_EXIT_RUNTIME;
    }
    char *text = rc_xstrdup(rc_h5in_sweep_text(first)), *file = rc_xstrdup(rc_h5in_sweep_file(first));
    uint64_t sweep_jobs = rc_h5in_sweep_jobs(first);
    rc_h5in_close(first);
    rc_h5out_sweep sw = {info0.sweep_name, file, text, info0.sweep_hash, sweep_jobs, ""};
    rc_h5out *h = rc_h5out_open(out, &sw, 2048, &err);
    /* Each job's image names the build that ran it; the session names the merge. */
    rc_journal *j = h != NULL ? rc_journal_open(jpath, info0.sweep_hash, 0, rc_h5out_build(), &err)
                              : NULL;
    size_t merged = 0;
    for (unsigned p = 0; p < n && rc == 0 && j != NULL; p++) {
        rc_h5in *in = rc_h5in_open(parts[p], &err);
        if (in == NULL) {
            rc = err.code ? err.code : RC_EXIT_RUNTIME;
            break;
        }
        for (size_t r = 0; r < rc_h5in_info(in)->rows && rc == 0; r++) {
            uint64_t id;
            rc = rc_h5out_add_from(h, in, r, &id, &err);
            if (rc != 0) break;
            /* The journal gets the same row (and its build, as a session). */
            const char *canon;
            rc_h5out_prov prov;
            void *image;
            size_t len;
            rc = rc_h5in_row(in, r, &id, &canon, &prov, &image, &len, &err);
            if (rc != 0) break;
            rc_journal_meta meta = {.rank = prov.rank, .finished = prov.finished};
            snprintf(meta.host, sizeof meta.host, "%s", prov.host ? prov.host : "");
            rc_result_deflate(&image, &len); /* as a worker would have sent it */
            rc_journal_append(j, id, &meta, image, len);
            free(image);
            merged++;
            bool locked;
            if (rc_journal_uncommitted(j) >= RC_JOURNAL_COMMIT_RECORDS)
                rc = rc_journal_commit(j, &err);
            if (rc == 0 && rc_h5out_pending(h) >= 4096) rc = rc_h5out_flush(h, &locked, &err);
        }
        rc_h5in_close(in);
    }
    if (rc == 0 && j != NULL) rc = rc_journal_commit(j, &err);
    if (rc == 0) rc = merge_manifests(parts, n, out, &err);
    bool locked;
    if (rc == 0 && h != NULL) rc = rc_h5out_flush(h, &locked, &err);
    if (h == NULL || j == NULL) rc = err.code ? err.code : RC_EXIT_RUNTIME;
    rc_journal_close(j);
    rc_h5out_close(h);
    if (rc != 0) {
        fprintf(stderr, "rcsim merge: %s\n", err.msg);
        /* A half-written merge is worth nothing; the inputs are untouched. */
        remove(out);
        remove(jpath);
        char *mpath = rc_manifest_path(out);
        remove(mpath);
        free(mpath);
    } else {
        if (!quiet)
            printf("rcsim merge: %zu jobs from %u file(s) into %s (sweep '%s': %zu of %llu "
                   "jobs)\n",
                   merged, n, out, info0.sweep_name, merged, (unsigned long long)sweep_jobs);
        if (merged < sweep_jobs) {
            fprintf(stderr,
                    "rcsim merge: %llu job(s) of sweep '%s' are in none of the inputs; run them "
                    "with `rcsim sweep %s --out %s`\n",
                    (unsigned long long)(sweep_jobs - merged), info0.sweep_name,
                    file[0] ? file : "SWEEP.yaml", out);
            rc = RC_EXIT_RUNTIME;
        }
    }
    free(text);
    free(file);
    free(jpath);
    return rc;
}
