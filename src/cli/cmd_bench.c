/* cmd_bench: `rcsim bench`, the benchmark suite.  Parses the
 * options and hands them to the harness in speed/speed.h, which owns the
 * configurations, the measurements and the output. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "speed/speed.h"
#include "cli/commands.h"
#include "core/err.h"

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: rcsim bench [--quick] [--json FILE] [--repeat N] [--np-list 1,2] [options]\n"
            "\n"
            "Benchmark suite: runs a fixed set of job configurations (24 h simulated,\n"
            "--model paper, seed 1) and prints per configuration the median wall time and\n"
            "CPU time of N repeats, the events, events/s (events / median wall) and the\n"
            "peak RSS.  Every repeat runs in a forked child, so RSS and CPU time are the\n"
            "job's own.  Configurations: unicast and rc-k2-p2 at 32/128/256 users, online\n"
            "and with trace gen_os15 (skipped with a note when the trace is absent), a\n"
            "multi-group job (16 groups of 128, rc-k2-p2-ft-dropoffline), one\n"
            "exact-model job, and the anonymity jobs (anon-*: exact model, their own\n"
            "durations; --anonymity on with 250/1,000/4,000 tracked messages against\n"
            "--cover full alone, 1 h, 128 users; a 10,000-user population, 10 min; a\n"
            "20,000-user one, 1 min, every group's messages, the largest group's, and\n"
            "--cover full alone, and a 3,000-user one with and without anonymity\n"
            "(--only anon-population); run them alone with --only\n"
            "anon), and the population jobs (pop-*: 10,000 and\n"
            "100,000 users, unicast, 10 min; --only pop-).  Then the sweep throughput:\n"
            "jobs/s of `rcsim sweep` on a\n"
            "sweep of small jobs (users 32, 10 min, online) under " RC_SPEED_MPIRUN "\n"
            "with 1, 2, ... workers (-np workers+1), median of N runs each, and the ratio\n"
            "to the first worker count.\n"
            "Compare two --json files with bench/compare.py OLD.json NEW.json.\n"
            "\n"
            "options:\n"
            "      --quick          2 h simulated, fewer configurations, 20 sweep jobs (smoke test)\n"
            "      --json FILE      also write all results as JSON (with version, host, date, CPU)\n"
            "      --repeat N       repeats per configuration and per sweep, median reported\n"
            "                       (default 3; --quick: 1)\n"
            "      --np-list LIST   workers for the throughput runs, comma list (default 1,2)\n"
            "      --sweep-jobs N   jobs in the throughput sweep (default 60; --quick: 20)\n"
            "      --no-sweep       skip the sweep throughput measurement\n"
            "      --only TEXT      only configurations whose name contains TEXT\n"
            "      --data-dir DIR   where availability traces are looked up (else\n"
            "                       $RCSIM_DATA_DIR, then ./data/availability)\n"
            "  -q, --quiet          no progress lines on stderr\n"
            "  -h, --help           this help\n"
            "\n"
            "The machine's load changes wall times; CPU time is steadier, and instruction\n"
            "counts (valgrind --tool=callgrind) are what to compare when it must be exact\n"
            "(docs/performance.md).  Exit codes: 0 ok, 1 a job or sweep failed, 2 bad usage.\n");
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

static int parse_np_list(const char *s, rc_speed_opts *o)
{
    o->n_np = 0;
    char buf[128];
    if (strlen(s) >= sizeof buf) return -1;
    strcpy(buf, s);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (o->n_np == RC_SPEED_MAX_NP || parse_int(tok, 1, 64, &o->np_list[o->n_np]) != 0) return -1;
        o->n_np++;
    }
    return o->n_np > 0 ? 0 : -1;
}

int rc_cmd_bench(int argc, char **argv)
{
    enum { OPT_JSON = 256, OPT_REPEAT, OPT_NP, OPT_NO_SWEEP, OPT_ONLY, OPT_DATA_DIR, OPT_SWEEP_JOBS };
    static const struct option longopts[] = {
        {"quick", no_argument, NULL, 'Q'},
        {"json", required_argument, NULL, OPT_JSON},
        {"repeat", required_argument, NULL, OPT_REPEAT},
        {"np-list", required_argument, NULL, OPT_NP},
        {"sweep-jobs", required_argument, NULL, OPT_SWEEP_JOBS},
        {"no-sweep", no_argument, NULL, OPT_NO_SWEEP},
        {"only", required_argument, NULL, OPT_ONLY},
        {"data-dir", required_argument, NULL, OPT_DATA_DIR},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    rc_speed_opts o;
    rc_speed_opts_init(&o);
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'Q': o.quick = true; break;
        case 'q': o.quiet = true; break;
        case 'h': print_usage(stdout); return 0;
        case OPT_JSON: o.json = optarg; break;
        case OPT_NO_SWEEP: o.no_sweep = true; break;
        case OPT_ONLY: o.only = optarg; break;
        case OPT_DATA_DIR: o.data_dir = optarg; break;
        case OPT_REPEAT:
            if (parse_int(optarg, 1, RC_SPEED_MAX_REPEAT, &o.repeat) != 0) {
                fprintf(stderr, "rcsim bench: --repeat wants 1..%d, got '%s'\n", RC_SPEED_MAX_REPEAT,
                        optarg);
                return RC_EXIT_USAGE;
            }
            break;
        case OPT_SWEEP_JOBS:
            if (parse_int(optarg, 1, 100000, &o.sweep_jobs) != 0) {
                fprintf(stderr, "rcsim bench: --sweep-jobs wants 1..100000, got '%s'\n", optarg);
                return RC_EXIT_USAGE;
            }
            break;
        case OPT_NP:
            if (parse_np_list(optarg, &o) != 0) {
                fprintf(stderr,
                        "rcsim bench: --np-list wants a comma list of worker counts 1..64 "
                        "(at most %d), got '%s'\n",
                        RC_SPEED_MAX_NP, optarg);
                return RC_EXIT_USAGE;
            }
            break;
        default: print_usage(stderr); return RC_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "rcsim bench: unexpected argument '%s' (try --help)\n", argv[optind]);
        return RC_EXIT_USAGE;
    }
    return rc_speed_run(&o);
}
