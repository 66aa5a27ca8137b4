/* cmd_analysis: the commands that run the Python analysis on a results file:
 * `rcsim plot` (analysis/plot.py), `rcsim report` (analysis/report.py),
 * `rcsim figures` (analysis/figures.py, the paper's figures),
 * `rcsim summarize` (analysis/summarize.py, the table) and
 * `rcsim compare` (analysis/baseline.py, strategies against a baseline paired by seed) and
 * `rcsim diff` (analysis/diff.py, two results files: what differs beyond seed noise).
 *
 * The analysis is Python (matplotlib does the drawing), so these commands only
 * find the script and exec the interpreter on it with the user's arguments:
 * every option, its help and its errors belong to the script (docs/analysis.md,
 * docs/install.md).  Where the scripts are looked for, first hit wins:
 *   1. $RCSIM_ANALYSIS_DIR, when set (and then nothing else);
 *   2. the analysis/ of rcsim's share directory (cli/share.h), found relative
 *      to the executable: PREFIX/share/rcsim when installed, BUILD/share/rcsim
 *      (links into the source tree) in a build tree.
 * The interpreter is $RCSIM_PYTHON, else /usr/bin/python3 (not the first
 * python3 on PATH, which may lack h5py and matplotlib).  $RCSIM_BIN is set to
 * this binary: the scripts read strategy families from it.  Exit codes are the
 * script's; this file adds 1 when the script or the interpreter cannot be
 * found or started.
 */
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

typedef struct script_cmd {
    const char *name;   /* rcsim NAME */
    const char *script; /* analysis/SCRIPT */
    /* Printed before the script's own --help, for scripts whose usage does not
     * name the rcsim command (they do not read $RCSIM_PROG); NULL otherwise. */
    const char *usage;
} script_cmd;

static const script_cmd cmds[] = {
    {"plot", "plot.py", NULL},
    {"report", "report.py", NULL},
    {"figures", "figures.py",
     "usage: rcsim figures RESULTS.h5 ... [--out DIR] [--model paper|exact] [--fig N ...]\n"
     "\n"
     "Draws the paper's figures (5, 6, 7, 8, 9, 14, 15, 16) that the results hold data\n"
     "for, as DIR/figN.png and DIR/figN.pdf (docs/figures.md).\n"},
    {"compare", "baseline.py", NULL},
    {"diff", "diff.py", NULL},
    {"summarize", "summarize.py",
     "usage: rcsim summarize RESULTS.h5 ... [options]\n"
     "\n"
     "Prints a results file as a table, one line per configuration (seeds pooled).\n"},
};

static void print_usage(FILE *out, const script_cmd *c, const char *why)
{
    if (c->usage != NULL) fputs(c->usage, out);
    else fprintf(out, "usage: rcsim %s RESULTS.h5 [options]\n", c->name);
    fprintf(out,
            "\n"
            "Runs analysis/%s with python3; `rcsim %s --help` lists its options when the\n"
            "analysis scripts are found (docs/analysis.md).  Looked up in $RCSIM_ANALYSIS_DIR,\n"
            "else in share/rcsim/analysis beside the executable (docs/install.md).\n"
            "$RCSIM_PYTHON overrides the interpreter.\n",
            c->script, c->name);
    if (why != NULL) fprintf(out, "(%s)\n", why);
}

/* Fills `out` with the script's path; returns 0, or -1 with the reason in `why`. */
static int locate(const char *script, char *out, size_t n, char *why, size_t wn)
{
    const char *env = getenv("RCSIM_ANALYSIS_DIR");
    char dir[PATH_MAX + 16];
    if (env != NULL && env[0] != '\0') {
        snprintf(dir, sizeof dir, "%s", env);
    } else {
        rc_err err = {0};
        char share[PATH_MAX];
        if (rc_share_dir(share, sizeof share, &err) != 0) {
            snprintf(why, wn, "%s", err.msg);
            return -1;
        }
        snprintf(dir, sizeof dir, "%s/analysis", share);
    }
    int w = snprintf(out, n, "%s/%s", dir, script);
    if (w > 0 && (size_t)w < n && access(out, R_OK) == 0) return 0;
    snprintf(why, wn, "cannot find %s in %s%s", script, dir,
             env != NULL && env[0] != '\0' ? " ($RCSIM_ANALYSIS_DIR)" : "");
    return -1;
}

static int run_script(const script_cmd *c, int argc, char **argv)
{
    bool help = false;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) help = true;
    char path[PATH_MAX + 64], why[PATH_MAX + 256];
    if (locate(c->script, path, sizeof path, why, sizeof why) != 0) {
        if (help) {
            print_usage(stdout, c, why);
            return 0;
        }
        fprintf(stderr, "rcsim %s: %s; set RCSIM_ANALYSIS_DIR\n", c->name, why);
        return RC_EXIT_RUNTIME;
    }
    const char *py = rc_share_python();
    if (help && c->usage != NULL) {
        fputs(c->usage, stdout);
        printf("(runs: %s %s)\n\nThe script's options:\n\n", py, path);
    }
    char **args = calloc((size_t)argc + 4, sizeof *args);
    if (args == NULL) {
        fprintf(stderr, "rcsim %s: out of memory\n", c->name);
        return RC_EXIT_RUNTIME;
    }
    size_t k = 0;
    args[k++] = (char *)py;
    args[k++] = "-B"; /* no __pycache__ in the source or installed tree */
    args[k++] = path;
    for (int i = 1; i < argc; i++) args[k++] = argv[i];
    args[k] = NULL;
    char prog[64];
    snprintf(prog, sizeof prog, "rcsim %s", c->name);
    setenv("RCSIM_PROG", prog, 1); /* the script's usage lines name the command */
    /* The scripts ask this binary for strategy families and parameters
     * (`rcsim strategies --json`, analysis/rcplot/strategies.py). */
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len > 0) {
        self[len] = '\0';
        setenv("RCSIM_BIN", self, 1);
    }
    fflush(NULL);
    execvp(py, args);
    fprintf(stderr, "rcsim %s: cannot run %s: %s (set RCSIM_PYTHON to a python3 with h5py, "
                    "numpy and matplotlib)\n", c->name, py, strerror(errno));
    free(args);
    return RC_EXIT_RUNTIME;
}

static const script_cmd *find(const char *name)
{
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(cmds[i].name, name)) return &cmds[i];
    return NULL;
}

int rc_cmd_plot(int argc, char **argv) { return run_script(find("plot"), argc, argv); }
int rc_cmd_report(int argc, char **argv) { return run_script(find("report"), argc, argv); }
int rc_cmd_figures(int argc, char **argv) { return run_script(find("figures"), argc, argv); }
int rc_cmd_summarize(int argc, char **argv) { return run_script(find("summarize"), argc, argv); }
int rc_cmd_compare(int argc, char **argv) { return run_script(find("compare"), argc, argv); }
int rc_cmd_diff(int argc, char **argv) { return run_script(find("diff"), argc, argv); }
