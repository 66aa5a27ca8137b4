/* rcsim: the command-line entry point.  Dispatches `rcsim <command> ...` to
 * one function per subcommand (cli/commands.h); each prints its own --help. */
#include <gsl/gsl_version.h>
#include <hdf5.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>
#include <zlib.h>

#include "cli/commands.h"
#include "cli/share.h"
#include "core/build.h"
#include "core/err.h"
#include "core/version.h"

/* Subcommands are built from separate files; while one is being developed it
 * may be absent from a build, and the table says so instead of failing to link. */
#pragma weak rc_cmd_sweep
#pragma weak rc_cmd_plan
#pragma weak rc_cmd_slurm
#pragma weak rc_cmd_trace
#pragma weak rc_cmd_bench
#pragma weak rc_cmd_plot
#pragma weak rc_cmd_report
#pragma weak rc_cmd_figures
#pragma weak rc_cmd_summarize
#pragma weak rc_cmd_compare
#pragma weak rc_cmd_diff
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
    {"plot", rc_cmd_plot, "plot a results file: any sweep, axes chosen from its parameters"},
    {"report", rc_cmd_report, "one-page HTML + Markdown report of a results file"},
    {"figures", rc_cmd_figures, "draw the paper's figures (5-9, 14-16) from results files"},
    {"summarize", rc_cmd_summarize, "print results files as a table, one line per configuration"},
    {"compare", rc_cmd_compare, "each strategy against a baseline (ratios, paired by seed)"},
    {"diff", rc_cmd_diff, "two results files: configurations that differ beyond seed noise"},
    {"strategies", rc_cmd_strategies, "list the strategy families and their parameters (--json)"},
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
        if (commands[i].fn != NULL) fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n  --version           print the version and the build, and exit\n"
                 "  --help strategies   strategy names in full\n");
}

/* `rcsim --version`: the version and revision (core/version.h), then the
 * build (type, compiler, options; from src/cli/sources.cmake), the libraries
 * compiled against, and where the analysis files were found. */
static void print_version(void)
{
    printf("rcsim %s (%s)\n", RCSIM_VERSION, RCSIM_GIT_REVISION);
    printf("build:     %s, %s, C%ld%s%s\n", RCSIM_BUILD_TYPE[0] ? RCSIM_BUILD_TYPE : "(no type)",
           RCSIM_BUILD_COMPILER, (long)__STDC_VERSION__ / 100 % 100,
           RCSIM_BUILD_SANITIZE ? ", ASan+UBSan" : "", RCSIM_BUILD_WERROR ? ", -Werror" : "");
    /* What results files record per job and compare on resume (core/build.h). */
    printf("build id:  %s (sources sha256 %.16s...%s)\n", rc_build()->id,
           rc_build()->sources_sha256, rc_build()->dirty == 1 ? ", uncommitted changes" : "");
    char mpi[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(mpi, &len); /* allowed before MPI_Init (MPI 3.0) */
    mpi[strcspn(mpi, ",\n")] = '\0'; /* "Open MPI v4.1.4, package: ..." -> "Open MPI v4.1.4" */
    printf("libraries: GSL %s, HDF5 %d.%d.%d, %s, libyaml %s, zlib %s\n", GSL_VERSION,
           H5_VERS_MAJOR, H5_VERS_MINOR, H5_VERS_RELEASE, mpi, yaml_get_version_string(),
           zlibVersion());
    char share[PATH_MAX];
    rc_err err = {0};
    if (rc_share_dir(share, sizeof share, &err) == 0) printf("files:     %s\n", share);
    else printf("files:     not found (%s)\n", err.msg);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return RC_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        if (argc > 2) return rc_help_topic(argv[2], stdout); /* rcsim --help strategies */
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        print_version();
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
