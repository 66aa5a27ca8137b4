/* cmd_slurm: `rcsim slurm FILE` parses its options and hands them to the
 * script generator (slurm/slurm_gen.h), which owns the templates, the sizing
 * against the partition and the writing.  docs/slurm.md is the manual. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "core/err.h"
#include "core/log.h"
#include "exp/until.h"
#include "slurm/slurm_gen.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rcsim slurm FILE [--out RESULTS.h5] [-o SCRIPT] [options]\n"
            "\n"
            "Writes an sbatch script (to stdout, or to SCRIPT with -o) that runs\n"
            "`rcsim sweep FILE --out RESULTS.h5` on all tasks of a SLURM allocation.\n"
            "Before the time limit SLURM sends SIGTERM; rcsim saves the finished jobs and\n"
            "exits 3, and the script requeues itself to resume into the same file.\n"
            "Submitting the script again also resumes.  The sweep file is validated first\n"
            "(exit 2 if it is bad); the script starts with its job count and cost estimate.\n"
            "When scontrol/sinfo can be asked, the partition's CPUs, nodes and time limit\n"
            "size the default --ntasks, and a request it can never satisfy (the job would\n"
            "stay pending forever) is refused with exit 2.\n"
            "With --array N it writes an array job instead: task I runs the single-rank\n"
            "shard `rcsim sweep FILE --shard I/N --out PARTS/part-I.h5`, and a second\n"
            "script (SCRIPT-merge.sbatch) runs `rcsim merge` on the parts into RESULTS.h5\n"
            "once every task has succeeded (submit it with --dependency=afterok).\n"
            "\n"
            "options:\n"
            "      --out FILE          results file (default: SWEEPNAME.h5 in the current\n"
            "                          directory); its directory must exist\n"
            "  -o, --output SCRIPT     write the script here instead of stdout\n"
            "      --nodes N           #SBATCH --nodes (default 1)\n"
            "      --ntasks N          #SBATCH --ntasks: 1 master + N-1 workers (default:\n"
            "                          jobs+1, at most the CPUs of --nodes nodes of the\n"
            "                          partition, or %ld per node when SLURM cannot be asked)\n"
            "      --cpus-per-task N   #SBATCH --cpus-per-task (default 1)\n"
            "      --time T            #SBATCH --time, SLURM format: MIN, MIN:SEC, H:M:S,\n"
            "                          D-H, D-H:M, D-H:M:S (default: the partition's limit)\n"
            "      --partition P       #SBATCH --partition\n"
            "      --account A         #SBATCH --account\n"
            "      --job-name NAME     #SBATCH --job-name (default rcsim-SWEEPNAME)\n"
            "      --log FILE          the job's stdout+stderr, appended across requeues\n"
            "                          (default: RESULTSDIR/JOBNAME-%%j.log)\n"
            "      --launcher L        srun (default: srun --mpi=pmix) or mpirun\n"
            "      --requeue           requeue the job after a SIGTERM stop (default)\n"
            "      --no-requeue        exit 3 instead; submit again to resume\n"
            "      --max-requeues N    give up requeueing after N runs (default %ld)\n"
            "      --signal-lead S     SIGTERM this many seconds before the time limit\n"
            "                          (default %ld; more than rcsim's --grace)\n"
            "      --grace S           passed to rcsim sweep: how long the master waits for\n"
            "                          running jobs after SIGTERM (rcsim default 60)\n"
            "      --progress S        passed to rcsim sweep: seconds between progress lines\n"
            "  -s, --set KEY=VALUE     parameter override, validated here and passed to\n"
            "                          rcsim sweep (repeatable)\n"
            "      --data-dir DIR      availability trace directory, passed to rcsim sweep\n"
            "      --until RULE        passed to rcsim sweep with --min-seeds N, --max-seeds N\n"
            "                          and --seed-step N: seeds until the interval is narrow\n"
            "                          (rcsim sweep --help; not with --array)\n"
            "      --array N           an array job of N single-rank shards plus a merge job\n"
            "                          (needs -o; writes SCRIPT and SCRIPT-merge.sbatch)\n"
            "      --no-partition-check  do not ask scontrol/sinfo about the partition\n"
            "  -h, --help              this help\n"
            "\n"
            "exit codes: 0 script written; 1 cannot write it; 2 bad usage, bad sweep file, or a\n"
            "request the partition cannot satisfy.\n"
            "Manual: docs/slurm.md (submitting, resubmitting, the time limit, clusters).\n",
            RC_SLURM_TASKS_PER_NODE_DEFAULT, RC_SLURM_DEFAULT_MAX_REQUEUES,
            RC_SLURM_DEFAULT_LEAD_S);
}

static int parse_long(const char *opt, const char *text, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "rcsim slurm: %s '%s' must be an integer in %ld..%ld\n", opt, text, lo, hi);
        return RC_EXIT_USAGE;
    }
    *out = v;
    return 0;
}

static int parse_secs(const char *opt, const char *text, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(v) || v < 0) {
        fprintf(stderr, "rcsim slurm: %s '%s' is not a number of seconds >= 0\n", opt, text);
        return RC_EXIT_USAGE;
    }
    *out = v;
    return 0;
}

int rc_cmd_slurm(int argc, char **argv)
{
    enum {
        OPT_OUT = 256, OPT_NODES, OPT_NTASKS, OPT_CPUS, OPT_TIME, OPT_PARTITION, OPT_ACCOUNT,
        OPT_JOB_NAME, OPT_LOG, OPT_LAUNCHER, OPT_REQUEUE, OPT_NO_REQUEUE, OPT_MAX_REQUEUES,
        OPT_LEAD, OPT_GRACE, OPT_PROGRESS, OPT_DATA_DIR, OPT_ARRAY, OPT_NO_CHECK,
        OPT_UNTIL, OPT_MIN_SEEDS, OPT_MAX_SEEDS, OPT_SEED_STEP
    };
    static const struct option longopts[] = {
        {"out", required_argument, NULL, OPT_OUT},
        {"output", required_argument, NULL, 'o'},
        {"nodes", required_argument, NULL, OPT_NODES},
        {"ntasks", required_argument, NULL, OPT_NTASKS},
        {"cpus-per-task", required_argument, NULL, OPT_CPUS},
        {"time", required_argument, NULL, OPT_TIME},
        {"partition", required_argument, NULL, OPT_PARTITION},
        {"account", required_argument, NULL, OPT_ACCOUNT},
        {"job-name", required_argument, NULL, OPT_JOB_NAME},
        {"log", required_argument, NULL, OPT_LOG},
        {"launcher", required_argument, NULL, OPT_LAUNCHER},
        {"requeue", no_argument, NULL, OPT_REQUEUE},
        {"no-requeue", no_argument, NULL, OPT_NO_REQUEUE},
        {"max-requeues", required_argument, NULL, OPT_MAX_REQUEUES},
        {"signal-lead", required_argument, NULL, OPT_LEAD},
        {"grace", required_argument, NULL, OPT_GRACE},
        {"progress", required_argument, NULL, OPT_PROGRESS},
        {"set", required_argument, NULL, 's'},
        {"data-dir", required_argument, NULL, OPT_DATA_DIR},
        {"array", required_argument, NULL, OPT_ARRAY},
        {"until", required_argument, NULL, OPT_UNTIL},
        {"min-seeds", required_argument, NULL, OPT_MIN_SEEDS},
        {"max-seeds", required_argument, NULL, OPT_MAX_SEEDS},
        {"seed-step", required_argument, NULL, OPT_SEED_STEP},
        {"no-partition-check", no_argument, NULL, OPT_NO_CHECK},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    rc_slurm_opts o;
    rc_slurm_opts_init(&o);
    o.argc = argc;
    o.argv = argv;
    o.sets = rc_xcalloc((size_t)argc + 1, sizeof *o.sets);
    const char *until_rule = NULL;
    long seed_counts[3] = {0, 0, 0}; /* --min-seeds, --max-seeds, --seed-step; 0: not given */
    int rc = 0, c;
    opterr = 0;
    optind = 0; /* GNU: full re-initialisation, so the command can run twice in one process */
    while (rc == 0 && (c = getopt_long(argc, argv, "o:s:h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_OUT: o.out = optarg; break;
        case 'o': o.script = optarg; break;
        case OPT_NODES: rc = parse_long("--nodes", optarg, 1, 100000, &o.nodes); break;
        case OPT_NTASKS: rc = parse_long("--ntasks", optarg, 1, 10000000, &o.ntasks); break;
        case OPT_CPUS: rc = parse_long("--cpus-per-task", optarg, 1, 100000, &o.cpus); break;
        case OPT_TIME: o.time = optarg; break;
        case OPT_PARTITION: o.partition = optarg; break;
        case OPT_ACCOUNT: o.account = optarg; break;
        case OPT_JOB_NAME: o.job_name = optarg; break;
        case OPT_LOG: o.log = optarg; break;
        case OPT_LAUNCHER: o.launcher = optarg; break;
        case OPT_REQUEUE: o.requeue = true; break;
        case OPT_NO_REQUEUE: o.requeue = false; break;
        case OPT_MAX_REQUEUES:
            rc = parse_long("--max-requeues", optarg, 0, 100000, &o.max_requeues);
            break;
        case OPT_LEAD: rc = parse_long("--signal-lead", optarg, 1, RC_SLURM_MAX_LEAD_S, &o.lead); break;
        case OPT_GRACE:
            rc = parse_secs("--grace", optarg, &o.grace);
            o.have_grace = true;
            break;
        case OPT_PROGRESS:
            rc = parse_secs("--progress", optarg, &o.progress);
            o.have_progress = true;
            break;
        case 's':
            if (strchr(optarg, '=') == NULL) {
                fprintf(stderr, "rcsim slurm: --set wants KEY=VALUE, got '%s'\n", optarg);
                rc = RC_EXIT_USAGE;
            }
            o.sets[o.n_sets++] = optarg;
            break;
        case OPT_DATA_DIR: o.data_dir = optarg; break;
        case OPT_ARRAY: rc = parse_long("--array", optarg, 1, 10000000, &o.array); break;
        case OPT_NO_CHECK: o.check_partition = false; break;
        case OPT_UNTIL: until_rule = optarg; break;
        case OPT_MIN_SEEDS: rc = parse_long("--min-seeds", optarg, 1, LONG_MAX, &seed_counts[0]); break;
        case OPT_MAX_SEEDS: rc = parse_long("--max-seeds", optarg, 1, LONG_MAX, &seed_counts[1]); break;
        case OPT_SEED_STEP: rc = parse_long("--seed-step", optarg, 1, LONG_MAX, &seed_counts[2]); break;
        case 'h':
            usage(stdout);
            free(o.sets);
            return RC_EXIT_OK;
        default:
            fprintf(stderr, "rcsim slurm: unknown or incomplete option '%s' (see --help)\n",
                    argv[optind - 1]);
            rc = RC_EXIT_USAGE;
        }
    }
    if (rc == 0 && optind != argc - 1) {
        fprintf(stderr, "rcsim slurm: expected exactly one sweep FILE (see --help)\n");
        rc = RC_EXIT_USAGE;
    }
    rc_until until;
    if (rc == 0) {
        char why[300];
        int u = rc_until_from_options(until_rule, seed_counts, o.sets, o.n_sets, &until, why,
                                      sizeof why);
        if (u < 0) {
            fprintf(stderr, "rcsim slurm: %s\n", why);
            rc = RC_EXIT_USAGE;
        } else if (u > 0) {
            o.until = &until;
        }
    }
    if (rc == 0) {
        rc_err err = {0};
        rc = rc_slurm_generate(&o, argv[optind], &err);
        if (rc != 0) fprintf(stderr, "rcsim slurm: %s\n", err.msg);
    }
    free(o.sets);
    return rc;
}
