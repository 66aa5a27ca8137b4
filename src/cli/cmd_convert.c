/* cmd_convert: `rcsim convert OLD.h5 --out NEW.h5`, results layout 1 (one
 * HDF5 group per job) to layout 2 (docs/results-layout.md).
 *
 * The new file holds every finished job of the old one as a table row, with
 * the old histogram bins (their edges in /hist/edges_s) and the mark
 * converted_from = "rcsim-results/1": the analysis reads it like any other
 * results file, and sweeps refuse to append to it (their histograms would
 * use other bins).
 */
#include <getopt.h>
#include <stdio.h>

#include "cli/commands.h"
#include "core/err.h"
#include "io/h5out.h"

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: rcsim convert OLD.h5 --out NEW.h5\n"
            "\n"
            "Converts a results file of the old layout rcsim-results/1 into the current\n"
            "layout rcsim-results/2 (docs/results-layout.md).  Summaries, counters, parameters,\n"
            "provenance and histograms are carried over unchanged (the histograms keep their\n"
            "old bins); NEW.h5 is for reading: run new sweeps into another file.\n"
            "\n"
            "options:\n"
            "  -o, --out FILE   the converted file (must not exist)\n"
            "  -h, --help       this help\n"
            "\n"
            "exit codes: 0 converted; 1 a runtime error; 2 bad usage or not a layout-1 file.\n");
}

int rc_cmd_convert(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"out", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *out = NULL;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'h': print_usage(stdout); return 0;
        default:
            fprintf(stderr, "rcsim convert: unknown or incomplete option '%s' (see --help)\n",
                    argv[optind - 1]);
            return RC_EXIT_USAGE;
        }
    }
    if (out == NULL || optind + 1 != argc) {
        fprintf(stderr, "rcsim convert: expected OLD.h5 and --out NEW.h5 (see --help)\n");
        return RC_EXIT_USAGE;
    }
    rc_err err = {0};
    size_t n = 0;
    int rc = rc_h5out_convert_v1(argv[optind], out, &n, &err);
    if (rc != 0) {
        fprintf(stderr, "rcsim convert: %s\n", err.msg);
        return rc;
    }
    printf("rcsim convert: %zu job(s) from %s into %s\n", n, argv[optind], out);
    return 0;
}
