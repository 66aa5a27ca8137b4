/* rcsim: the command-line entry point.  Dispatches `rcsim <command> ...` to
 * one function per subcommand (cli/commands.h); each prints its own --help. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "core/err.h"
#include "core/version.h"

/* Subcommands are built from separate files; while one is being developed it
 * may be absent from a build, and the table says so instead of failing to link. */
#pragma weak rc_cmd_sweep
#pragma weak rc_cmd_plan
#pragma weak rc_cmd_slurm
#pragma weak rc_cmd_trace
#pragma weak rc_cmd_bench
#pragma weak rc_cmd_merge
#pragma weak rc_cmd_convert

typedef struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"run", rc_cmd_run, "run one simulation job and print its latency summary"},
    {"sweep", rc_cmd_sweep, "run a sweep file's jobs (MPI master/worker) into an HDF5 file"},
    {"plan", rc_cmd_plan, "expand a sweep file: number of jobs and estimated cost"},
    {"slurm", rc_cmd_slurm, "write an sbatch script that runs (and resumes) a sweep"},
    {"trace", rc_cmd_trace, "availability traces: statistics and synthetic traces"},
    {"bench", rc_cmd_bench, "benchmark suite: events/s, wall time, sweep throughput"},
    {"merge", rc_cmd_merge, "combine results files of one sweep (e.g. its shards) into one"},
    {"convert", rc_cmd_convert, "convert a results file of the old layout (rcsim-results/1)"},
};

static void usage(FILE *out)
{
    fprintf(out,
            "rcsim %s (%s): Loopix mix-network and Rollercoaster multicast simulator\n\n"
            "usage: rcsim <command> [options]   (rcsim <command> --help for details)\n\n"
            "commands:\n",
            RCSIM_VERSION, RCSIM_GIT_REVISION);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (commands[i].fn != NULL) fprintf(out, "  %-7s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n  --version  print the version and exit\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return RC_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("rcsim %s (%s)\n", RCSIM_VERSION, RCSIM_GIT_REVISION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(argv[1], commands[i].name) != 0) continue;
        if (commands[i].fn == NULL) {
            fprintf(stderr, "rcsim: command '%s' is not part of this build\n", argv[1]);
            return RC_EXIT_USAGE;
        }
        return commands[i].fn(argc - 1, argv + 1);
    }
    fprintf(stderr, "rcsim: unknown command '%s' (try rcsim --help)\n", argv[1]);
    return RC_EXIT_USAGE;
}
