/* cmd_merge: `rcsim merge PART.h5 ... --out ALL.h5`, combining the files of
 * `rcsim sweep --shard I/N` (or any results files of one sweep) into one.
 *
 * Refuses (exit 2, nothing written) files of another sweep (their sweep_hash
 * differs), a job present in two inputs, an existing --out (a dangling
 * symbolic link included), a part still being written (its lock held) or
 * whose journal holds jobs its table does not (io/merge_check.c); and what a
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
#include <unistd.h>

#include "cli/commands.h"
#include "core/err.h"
#include "core/log.h"
#include "io/h5out.h"
#include "io/journal.h"
#include "io/manifest.h"
#include "io/merge_check.h"

/* Exit codes beyond the common ones (core/err.h): 1 (RC_EXIT_RUNTIME) means
 * only "merged, jobs missing", so that a script can tell a merge worth
 * installing from a failed one (slurm/rcsim-merge.sbatch.in). */
enum { MERGE_EXIT_MISSING = RC_EXIT_RUNTIME, MERGE_EXIT_IO = 4 };

/* Anything that is not a refusal of the inputs is a failure to read or write. */
static int io_code(int rc) { return rc == RC_EXIT_USAGE ? rc : MERGE_EXIT_IO; }

/* 0 when nothing is at `path`; else says what is there (a dangling symbolic
 * link counts: writing through it would create a file elsewhere). */
static int taken(const char *path, const char *what)
{
    struct stat st;
    if (lstat(path, &st) != 0) return 0;
    if (S_ISLNK(st.st_mode) && stat(path, &st) != 0) {
        char target[4096];
        ssize_t n = readlink(path, target, sizeof target - 1);
        target[n > 0 ? n : 0] = '\0';
        fprintf(stderr,
                "rcsim merge: %s%s is a symbolic link to %s, which does not exist; merge writes "
                "a new file and neither follows nor removes links: name the file itself\n",
                what, path, target);
    } else {
        fprintf(stderr, "rcsim merge: %s%s exists; merge writes a new file\n", what, path);
    }
    return RC_EXIT_USAGE;
}

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
            "exit codes (docs/slurm.md, \"Array jobs\"):\n"
            "  0  merged: ALL.h5 holds every job of the sweep\n"
            "  1  merged, but jobs of the sweep are in none of the parts (ALL.h5 is written;\n"
            "     rerun the sweep into ALL.h5 to run them)\n"
            "  2  refused, nothing written: bad usage, an existing --out, inputs of different\n"
            "     sweeps, a job in two inputs, different stored options or builds, a part\n"
            "     still being written (its lock held), or a part whose journal holds jobs its\n"
            "     table does not\n"
            "  4  could not read or write (an I/O error, a full disk): nothing written (a\n"
            "     half-written ALL.h5 is removed); the inputs are untouched\n");
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
    char *jpath = rc_journal_path(out);
    char *mpath0 = rc_manifest_path(out);
    int trc = taken(out, "--out ");
    if (trc == 0) trc = taken(jpath, "the journal of --out, ");
    if (trc == 0) trc = taken(mpath0, "the manifest of --out, ");
    free(mpath0);
    if (trc != 0) {
        free(jpath);
        return trc;
    }
    rc_err err = {0};
    rc_h5out_info info0;
    int rc = rc_merge_check_parts(parts, n, allow_other_build, &info0, &err);
    if (rc != 0) {
        fprintf(stderr, "rcsim merge: %s\n", err.msg);
        free(jpath);
        return io_code(rc);
    }
    /* The sweep as the first input recorded it. */
    rc_h5in *first = rc_h5in_open(parts[0], &err);
    if (first == NULL) {
        fprintf(stderr, "rcsim merge: %s\n", err.msg);
        free(jpath);
        return io_code(err.code);
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
    if (rc == 0) rc = rc_merge_manifests(parts, n, out, &err);
    bool locked;
    if (rc == 0 && h != NULL) rc = rc_h5out_flush(h, &locked, &err);
    if (h == NULL || j == NULL) rc = err.code ? err.code : RC_EXIT_RUNTIME;
    rc_journal_close(j);
    rc_h5out_close(h);
    if (rc != 0) {
        fprintf(stderr, "rcsim merge: %s\n", err.msg);
        rc = io_code(rc);
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
            rc = MERGE_EXIT_MISSING;
        }
    }
    free(text);
    free(file);
    free(jpath);
    return rc;
}
