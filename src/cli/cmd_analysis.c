/* cmd_analysis: `rcsim figures` and `rcsim summarize` run the Python analysis
 * (analysis/figures.py, analysis/summarize.py) from rcsim's share directory
 * (cli/share.h: PREFIX/share/rcsim when installed, the source tree's through
 * BUILD/share/rcsim in a build) with Debian's python3, passing every argument
 * on.  The process becomes the script (exec), so the exit code is the
 * script's: 0 ok, 1 a figure could not be drawn, 2 bad usage or input. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/share.h"
#include "core/err.h"
#include "core/log.h"

typedef struct script_cmd {
    const char *name;   /* rcsim NAME */
    const char *script; /* under SHARE/analysis/ */
    const char *usage;  /* our first lines of --help; the script's own help follows */
} script_cmd;

static const script_cmd figures_cmd = {
    "figures", "figures.py",
    "usage: rcsim figures RESULTS.h5 ... [--out DIR] [--model paper|exact] [--fig N ...]\n"
    "\n"
    "Draws the paper's figures (5, 6, 7, 8, 9, 14, 15, 16) that the results hold data for,\n"
    "as DIR/figN.png and DIR/figN.pdf (docs/figures.md).  Runs analysis/figures.py from\n"
    "rcsim's share directory with python3 (RCSIM_PYTHON overrides; it needs h5py, numpy\n"
    "and matplotlib).\n"};

static const script_cmd summarize_cmd = {
    "summarize", "summarize.py",
    "usage: rcsim summarize RESULTS.h5 [--per-seed]\n"
    "\n"
    "Prints one line per configuration of a results file (seeds pooled): deliveries and\n"
    "latency statistics, with the parameters that vary.  Runs analysis/summarize.py from\n"
    "rcsim's share directory with python3 (RCSIM_PYTHON overrides; it needs h5py, numpy).\n"};

/* Execs PYTHON SHARE/analysis/SCRIPT ARGS...; returns only on failure. */
static int exec_script(const script_cmd *c, int argc, char **argv, bool quiet_fail)
{
    char dir[PATH_MAX], path[PATH_MAX + 64];
    rc_err err = {0};
    if (rc_share_dir(dir, sizeof dir, &err) != 0) {
        if (!quiet_fail) fprintf(stderr, "rcsim %s: %s\n", c->name, err.msg);
        return err.code;
    }
    snprintf(path, sizeof path, "%s/analysis/%s", dir, c->script);
    if (access(path, R_OK) != 0) {
        if (!quiet_fail) fprintf(stderr, "rcsim %s: %s: %s\n", c->name, path, strerror(errno));
        return RC_EXIT_RUNTIME;
    }
    const char *py = rc_share_python();
    char **av = rc_xcalloc((size_t)argc + 2, sizeof *av);
    av[0] = (char *)py;
    av[1] = path;
    for (int i = 1; i < argc; i++) av[i + 1] = argv[i];
    fflush(stdout);
    fflush(stderr);
    execvp(py, av);
    int e = errno;
    free(av);
    if (!quiet_fail)
        fprintf(stderr, "rcsim %s: cannot run %s: %s (set RCSIM_PYTHON to a python3 with h5py, "
                        "numpy and matplotlib)\n", c->name, py, strerror(e));
    return RC_EXIT_RUNTIME;
}

static int run_cmd(const script_cmd *c, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") != 0 && strcmp(argv[i], "--help") != 0) continue;
        /* Our usage, then the script's own option list (when it can run). */
        fputs(c->usage, stdout);
        char dir[PATH_MAX];
        rc_err err = {0};
        if (rc_share_dir(dir, sizeof dir, &err) == 0)
            printf("(runs: %s %s/analysis/%s)\n\nThe script's options:\n\n", rc_share_python(),
                   dir, c->script);
        else
            printf("\n(%s)\n", err.msg);
        char *av[] = {argv[0], (char *)"--help", NULL};
        exec_script(c, 2, av, true);
        return RC_EXIT_OK; /* the script could not show its help; ours was shown */
    }
    return exec_script(c, argc, argv, false);
}

int rc_cmd_figures(int argc, char **argv) { return run_cmd(&figures_cmd, argc, argv); }
int rc_cmd_summarize(int argc, char **argv) { return run_cmd(&summarize_cmd, argc, argv); }
