/* cmd_merge: `rcsim merge PART.h5 ... --out ALL.h5`, combining the files of
 * `rcsim sweep --shard I/N` (or any results files of one sweep) into one.
 *
 * Refuses (exit 2, nothing written) files of another sweep (their sweep_hash
 * differs), a job present in two inputs, and an existing --out.  The output
 * gets a journal too, built from the rows, so `rcsim sweep FILE --out ALL.h5`
 * afterwards runs exactly the jobs no shard finished.  Every row keeps its
 * parameters, canonical text, provenance and results as they were.
 */
#include <getopt.h>
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
            "Refuses inputs of different sweeps and jobs present in two inputs.\n"
            "\n"
            "options:\n"
            "  -o, --out FILE   the merged results file (must not exist)\n"
            "  -q, --quiet      no summary line\n"
            "  -h, --help       this help\n"
            "\n"
            "exit codes: 0 merged, every job of the sweep present; 1 merged, but jobs of the\n"
            "sweep are missing (rerun the sweep into ALL.h5 to run them) or a runtime error;\n"
            "2 bad usage, inputs of different sweeps or duplicate jobs (nothing written).\n");
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

/* Checks the inputs: one sweep, no job twice.  Fills *info0 from the first. */
static int check_inputs(char **parts, unsigned n, rc_h5out_info *info0, rc_err *err)
{
    size_t total = 0, cap = 0;
    seen_id *ids = NULL;
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
            free(image);
            if (total == cap) {
                cap = cap ? 2 * cap : 4096;
                ids = rc_xrealloc(ids, cap * sizeof *ids);
            }
            ids[total++] = (seen_id){id, p};
        }
        rc_h5in_close(in);
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
    free(ids);
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
    static const struct option longopts[] = {
        {"out", required_argument, NULL, 'o'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *out = NULL;
    bool quiet = false;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'q': quiet = true; break;
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
    int rc = check_inputs(parts, n, &info0, &err);
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
