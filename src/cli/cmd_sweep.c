/* cmd_sweep: `rcsim sweep FILE --out results.h5`, the MPI batch runner.
 *
 * The only subcommand that uses MPI: it calls MPI_Init/MPI_Finalize itself,
 * so `rcsim sweep` works the same under mpirun/srun (rank 0 master, the
 * others workers) and as a plain process (one rank runs everything).  Usage
 * errors and a bad sweep file exit 2 before any output file is touched.
 * The work itself is farm/farm.h; docs/running-sweeps.md is the manual.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/sweep_until.h"
#include "core/err.h"
#include "core/log.h"
#include "exp/sweep.h"
#include "exp/until.h"
#include "farm/farm.h"
#include "farm/preflight.h"
#include "io/lock.h"

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: rcsim sweep FILE --out RESULTS.h5 [options]\n"
            "       mpirun -np N rcsim sweep FILE --out RESULTS.h5 [options]\n"
            "       rcsim sweep FILE --shard I/N --out part-I.h5 [options]\n"
            "\n"
            "Runs every job of the sweep file FILE and writes the results to RESULTS.h5\n"
            "(layout: docs/results-layout.md).  Under MPI, rank 0 hands out jobs (most\n"
            "expensive first) and writes the file; the other ranks run jobs.  With one rank\n"
            "the jobs run one after the other in this process.  Every finished job is also\n"
            "appended to RESULTS.h5.journal; rerunning the same command resumes: only jobs\n"
            "not in the journal run (docs/running-sweeps.md).\n"
            "\n"
            "options:\n"
            "  -o, --out FILE        results file (required); FILE.journal is created beside it\n"
            "  -s, --set KEY=VALUE   override a parameter for every job (repeatable; changes\n"
            "                        job ids, so it is a different sweep)\n"
            "      --progress S      seconds between progress lines when stderr is not a\n"
            "                        terminal (default 10; on a terminal a live line)\n"
            "      --grace S         after SIGTERM/SIGINT, wait this long for running jobs\n"
            "                        before saving and exiting with code 3 (default 60)\n"
            "      --data-dir DIR    where availability traces are looked up\n"
            "      --allow-other-build  resume results made by another build of rcsim (each\n"
            "                        job records the build that ran it; default: refuse)\n"
            "      --dry-run         list the jobs and which are already done; write nothing\n"
            "      --retry-failed    give each job that fails one more try at the end of this\n"
            "                        run (failed jobs are always retried by a rerun)\n"
            "      --no-fork         run jobs in the worker process itself instead of a forked\n"
            "                        child (a crashing job then takes the whole sweep down;\n"
            "                        for networks where forking an MPI process is not allowed)\n"
            "      --until RULE      add seeds only where a configuration's interval is still\n"
            "                        wide: seeds 1..--max-seeds in rounds, each configuration\n"
            "                        stopping once RULE holds, e.g. \"p99 rel_halfwidth < 0.05\"\n"
            "                        (replaces the file's seeds; the same as its `seeds: {min,\n"
            "                        max, until, step}`, docs/sweep-format.md \"Seeds until\n"
            "                        narrow\"; resumable; not with --shard)\n"
            "      --min-seeds N     with --until: seeds every configuration runs first\n"
            "                        (default 5, the fewest an interval is computed from)\n"
            "      --max-seeds N     with --until (required): most seeds of a configuration\n"
            "      --seed-step N     with --until: seeds added per round (default --min-seeds)\n"
            "      --shard I/N       run only shard I (0 <= I < N) of the sweep: the jobs whose\n"
            "                        id modulo N is I (one rank is enough); combine the shard\n"
            "                        files with `rcsim merge part-*.h5 --out ALL.h5`\n"
            "      --lock-wait S     at the end, wait up to S seconds for a reader that holds\n"
            "                        the results file open (default 60); then the journal\n"
            "                        keeps the results and the sweep still exits 0\n"
            "  -v, --verbose         one line per finished job\n"
            "  -h, --help            this help\n"
            "\n"
            "A sweep file extended with more seeds or axis values can be rerun into the same\n"
            "--out: only the new jobs run.\n"
            "Before the first job every trace is read and checked, RESULTS.h5.lock is taken\n"
            "(one sweep per results file) and, on resume, the traces, stored options and\n"
            "build are compared with RESULTS.h5.manifest.json (docs/running-sweeps.md).\n"
            "\n"
            "exit codes: 0 all jobs done; 1 some jobs failed or a runtime error; 2 bad usage,\n"
            "bad sweep file or trace, --out unusable or in use, a results file of another\n"
            "sweep or a resume that would mix traces, builds or stored options (nothing\n"
            "written); 3 stopped by SIGTERM/SIGINT with the finished results saved (rerun to\n"
            "resume).\n");
}

/* Under a launcher every rank parses the same argv; only one should talk. */
static int launcher_rank(void)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v != NULL) return atoi(v);
    }
    return 0;
}

static int parse_seconds(const char *opt, const char *text, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(v) || v < 0) {
        if (launcher_rank() == 0)
            fprintf(stderr, "rcsim sweep: %s: '%s' is not a number of seconds >= 0\n", opt, text);
        return RC_EXIT_USAGE;
    }
    *out = v;
    return 0;
}

/* "I/N" with 0 <= I < N. */
static int parse_shard(const char *text, rc_farm_opts *o)
{
    unsigned i, n;
    char tail;
    if (sscanf(text, "%u/%u%c", &i, &n, &tail) != 2 || n == 0 || i >= n || n > 1000000) {
        if (launcher_rank() == 0)
            fprintf(stderr, "rcsim sweep: --shard: '%s' is not I/N with 0 <= I < N (e.g. 0/8)\n",
                    text);
        return RC_EXIT_USAGE;
    }
    o->shard_index = i;
    o->shard_count = n;
    return 0;
}

/* A count of seeds, 1 or more. */
static int parse_count(const char *opt, const char *text, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno != 0 || v < 1) {
        if (launcher_rank() == 0)
            fprintf(stderr, "rcsim sweep: %s: '%s' is not a count of seeds >= 1\n", opt, text);
        return RC_EXIT_USAGE;
    }
    *out = v;
    return 0;
}

static void abort_hook(void) { MPI_Abort(MPI_COMM_WORLD, RC_EXIT_RUNTIME); }

int rc_cmd_sweep(int argc, char **argv)
{
    enum {
        OPT_PROGRESS = 256,
        OPT_GRACE,
        OPT_DATA_DIR,
        OPT_DRY_RUN,
        OPT_RETRY,
        OPT_NO_FORK,
        OPT_ALLOW_BUILD,
        OPT_SHARD,
        OPT_LOCK_WAIT,
        OPT_UNTIL,
        OPT_MIN_SEEDS,
        OPT_MAX_SEEDS,
        OPT_SEED_STEP
    };
    static const struct option longopts[] = {
        {"out", required_argument, NULL, 'o'},
        {"set", required_argument, NULL, 's'},
        {"progress", required_argument, NULL, OPT_PROGRESS},
        {"grace", required_argument, NULL, OPT_GRACE},
        {"data-dir", required_argument, NULL, OPT_DATA_DIR},
        {"dry-run", no_argument, NULL, OPT_DRY_RUN},
        {"retry-failed", no_argument, NULL, OPT_RETRY},
        {"no-fork", no_argument, NULL, OPT_NO_FORK},
        {"shard", required_argument, NULL, OPT_SHARD},
        {"lock-wait", required_argument, NULL, OPT_LOCK_WAIT},
        {"allow-other-build", no_argument, NULL, OPT_ALLOW_BUILD},
        {"until", required_argument, NULL, OPT_UNTIL},
        {"min-seeds", required_argument, NULL, OPT_MIN_SEEDS},
        {"max-seeds", required_argument, NULL, OPT_MAX_SEEDS},
        {"seed-step", required_argument, NULL, OPT_SEED_STEP},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    rc_farm_opts o = {.progress_s = 10, .grace_s = 60, .isolate = true, .lock_wait_s = 60};
    /* Provenance: the command line as typed, before getopt permutes argv. */
    char *command = rc_cli_command_line(argc, argv);

    bool allow_other_build = false;
    const char *until_rule = NULL;
    long seed_counts[3] = {0, 0, 0}; /* --min-seeds, --max-seeds, --seed-step; 0: not given */
    const char **sets = calloc((size_t)argc + 1, sizeof *sets);
    size_t n_sets = 0;
    int rc = 0, c;
    bool quiet = launcher_rank() != 0;
    opterr = 0;
    optind = 1;
    while (rc == 0 && (c = getopt_long(argc, argv, "o:s:vh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': o.out = optarg; break;
        case 's':
            if (strchr(optarg, '=') == NULL) {
                if (!quiet) fprintf(stderr, "rcsim sweep: --set wants KEY=VALUE, got '%s'\n", optarg);
                rc = RC_EXIT_USAGE;
            }
            sets[n_sets++] = optarg;
            break;
        case OPT_PROGRESS: rc = parse_seconds("--progress", optarg, &o.progress_s); break;
        case OPT_GRACE: rc = parse_seconds("--grace", optarg, &o.grace_s); break;
        case OPT_DATA_DIR: o.data_dir = optarg; break;
        case OPT_DRY_RUN: o.dry_run = true; break;
        case OPT_RETRY: o.retry_failed = true; break;
        case OPT_NO_FORK: o.isolate = false; break;
        case OPT_SHARD: rc = parse_shard(optarg, &o); break;
        case OPT_LOCK_WAIT: rc = parse_seconds("--lock-wait", optarg, &o.lock_wait_s); break;
        case OPT_ALLOW_BUILD: allow_other_build = true; break;
        case OPT_UNTIL: until_rule = optarg; break;
        case OPT_MIN_SEEDS: rc = parse_count("--min-seeds", optarg, &seed_counts[0]); break;
        case OPT_MAX_SEEDS: rc = parse_count("--max-seeds", optarg, &seed_counts[1]); break;
        case OPT_SEED_STEP: rc = parse_count("--seed-step", optarg, &seed_counts[2]); break;
        case 'v': o.verbose = 1; break;
        case 'h':
            if (!quiet) print_usage(stdout);
            free(sets);
            free(command);
            return 0;
        default:
            if (!quiet)
                fprintf(stderr, "rcsim sweep: unknown or incomplete option '%s' (see --help)\n",
                        argv[optind - 1]);
            rc = RC_EXIT_USAGE;
        }
    }
    const char *file = NULL;
    if (rc == 0) {
        if (optind + 1 == argc) file = argv[optind];
        else if (!quiet) fprintf(stderr, "rcsim sweep: expected exactly one sweep FILE (see --help)\n");
        if (file != NULL && o.out == NULL) {
            if (!quiet) fprintf(stderr, "rcsim sweep: --out RESULTS.h5 is required\n");
            file = NULL;
        }
        if (file == NULL) rc = RC_EXIT_USAGE;
    }
    rc_until until;
    if (rc == 0) {
        char why[300];
        if (rc_until_from_options(until_rule, seed_counts, sets, n_sets, &until, why,
                                  sizeof why) < 0) {
            if (!quiet) fprintf(stderr, "rcsim sweep: %s\n", why);
            rc = RC_EXIT_USAGE;
        }
    }
    if (rc != 0) {
        free(sets);
        free(command);
        return rc;
    }

    /* A symbolic link is followed: the lock, the journal and the manifest
     * belong to the file, whatever name it is reached by (io/lock.h). */
    char *out_file = rc_lock_canonical(o.out);
    if (strcmp(out_file, o.out) != 0 && !quiet)
        fprintf(stderr, "rcsim sweep: --out %s is a symbolic link to %s: writing that file\n",
                o.out, out_file);
    o.out = out_file;

    /* Jobs run in forked children; Open MPI's fork warning is about
     * children that use MPI, which ours never do (farm/exec.h). */
    setenv("OMPI_MCA_mpi_warn_on_fork", "0", 0);
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "rcsim sweep: MPI_Init failed\n");
        free(sets);
        free(command);
        free(out_file);
        return RC_EXIT_RUNTIME;
    }
    rc_log_set_abort_hook(abort_hook);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    rc_farm_signals(rank);

    rc_err err = {0};
    rc_sweep *sw = NULL;
    rc_preflight *pf = NULL;
    /* Every rank's build, before anything is read or written. */
    rc_farm_build *others = NULL;
    size_t n_others = 0;
    char *layout = NULL;
    int status = rc_farm_check_builds(MPI_COMM_WORLD, allow_other_build, &others, &n_others,
                                      &layout, &err);
    o.layout = layout;
    /* ... and the overrides, one a line. */
    size_t olen = 1;
    for (size_t i = 0; i < n_sets; i++) olen += strlen(sets[i]) + 8;
    char *overrides = rc_xcalloc(olen, 1);
    for (size_t i = 0; i < n_sets; i++) {
        strcat(overrides, "--set ");
        strcat(overrides, sets[i]);
        strcat(overrides, "\n");
    }
    o.command = command;
    o.overrides = overrides;
    rc_build_info *worker_builds = rc_xcalloc(n_others + 1, sizeof *worker_builds);
    for (size_t i = 0; i < n_others; i++)
        worker_builds[i] = (rc_build_info){others[i].id, others[i].revision, others[i].dirty,
                                           others[i].sources_sha256, 0, others[i].config};
    if (status != 0) {
        if (rank == 0) fprintf(stderr, "rcsim sweep: %s\n", err.msg);
    } else if (rank == 0) {
        sw = rc_sweep_load_until(file, sets, n_sets, until_rule ? &until : NULL, &err);
        if (sw != NULL) {
            /* Inputs, --out, lock, manifest: all before the first job (farm/preflight.h). */
            rc_preflight_opts po = {o.out, o.data_dir, allow_other_build, o.dry_run,
                                    worker_builds, n_others};
            status = rc_preflight_run(sw, &po, &pf, &err);
        } else {
            status = err.code ? err.code : RC_EXIT_USAGE;
        }
        if (status != 0) fprintf(stderr, "rcsim sweep: %s\n", err.msg);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (status == 0) {
        rc_farm_stats st;
        rc = rc_sweep_until_run(MPI_COMM_WORLD, sw, &o, &st, &err);
        if (rank == 0 && err.code != 0) fprintf(stderr, "rcsim sweep: %s\n", err.msg);
    } else {
        rc = rank == 0 ? status : 0;
    }
    /* After the results are closed; a refusal removes what the preflight wrote. */
    rc_preflight_release(pf, rc == RC_EXIT_USAGE);
    rc_sweep_free(sw);
    free(worker_builds);
    free(others);
    free(layout);
    free(command);
    free(overrides);
    free(out_file);
    free(sets);
    MPI_Finalize();
    return rc;
}
