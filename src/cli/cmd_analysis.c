/* cmd_analysis: the commands that run the Python analysis on a results file, each a
 * tool of the analysis package rcplot (analysis/rcplot, `python3 -m rcplot TOOL`):
 * `rcsim plot` (plot), `rcsim report` (report), `rcsim figures` (figures, the
 * paper's figures), `rcsim summarize` (summarize, the table), `rcsim compare`
 * (baseline: strategies against a baseline paired by seed) and `rcsim diff` (diff: two
 * results files, what differs beyond seed noise).
 *
 * The analysis is Python (matplotlib does the drawing), so these commands only find
 * the package and exec `python3 -m rcplot TOOL` with the user's arguments and the
 * package's parent directory first on PYTHONPATH: every option, its help and its errors
 * belong to the tool (docs/analysis.md, docs/install.md).  Where analysis/ is looked
 * for, first hit wins:
 *   1. $RCSIM_ANALYSIS_DIR, when set (and then nothing else);
 *   2. the analysis/ of rcsim's share directory (cli/share.h), found relative
 *      to the executable: PREFIX/share/rcsim when installed, BUILD/share/rcsim
 *      (links into the source tree) in a build tree.
 * The interpreter is $RCSIM_PYTHON, else /usr/bin/python3 (not the first
 * python3 on PATH, which may lack h5py and matplotlib).  $RCSIM_BIN is set to
 * this binary: the tools read strategy families from it.  Exit codes are the
 * tool's; this file adds 1 when the package or the interpreter cannot be
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
    const char *tool;   /* python3 -m rcplot TOOL (analysis/rcplot/__main__.py) */
    /* Printed before the tool's own --help, for tools whose usage does not
     * name the rcsim command (they do not read $RCSIM_PROG); NULL otherwise. */
    const char *usage;
} script_cmd;

static const script_cmd cmds[] = {
    {"plot", "plot", NULL},
    {"report", "report", NULL},
    {"figures", "figures",
     "usage: rcsim figures RESULTS.h5 ... [--out DIR] [--model paper|exact] [--fig N ...]\n"
     "\n"
     "Draws the paper's figures (5, 6, 7, 8, 9, 14, 15, 16) that the results hold data\n"
     "for, as DIR/figN.png and DIR/figN.pdf (docs/figures.md).\n"},
    {"compare", "baseline", NULL},
    {"diff", "diff", NULL},
    {"summarize", "summarize",
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
            "Runs `python3 -m rcplot %s` from the analysis directory; `rcsim %s --help`\n"
            "lists its options when that is found (docs/analysis.md).  Looked up in\n"
            "$RCSIM_ANALYSIS_DIR, else in share/rcsim/analysis beside the executable\n"
            "(docs/install.md).  $RCSIM_PYTHON overrides the interpreter.\n",
            c->tool, c->name);
    if (why != NULL) fprintf(out, "(%s)\n", why);
}

/* Fills `out` with the analysis directory (the one holding rcplot/); returns 0, or -1
 * with the reason in `why`. */
static int locate(char *out, size_t n, char *why, size_t wn)
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
    char probe[PATH_MAX + 64];
    int w = snprintf(out, n, "%s", dir);
    int pw = snprintf(probe, sizeof probe, "%s/rcplot/__main__.py", dir);
    if (w > 0 && (size_t)w < n && pw > 0 && (size_t)pw < sizeof probe &&
        access(probe, R_OK) == 0)
        return 0;
    snprintf(why, wn, "cannot find the analysis package rcplot/ in %s%s", dir,
             env != NULL && env[0] != '\0' ? " ($RCSIM_ANALYSIS_DIR)" : "");
    return -1;
}

static int run_script(const script_cmd *c, int argc, char **argv)
{
    bool help = false;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) help = true;
    char dir[PATH_MAX + 64], why[PATH_MAX + 256];
    if (locate(dir, sizeof dir, why, sizeof why) != 0) {
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
        printf("(runs: %s -m rcplot %s, from %s)\n\nThe tool's options:\n\n", py, c->tool,
               dir);
    }
    char **args = calloc((size_t)argc + 6, sizeof *args);
    if (args == NULL) {
        fprintf(stderr, "rcsim %s: out of memory\n", c->name);
        return RC_EXIT_RUNTIME;
    }
    size_t k = 0;
    args[k++] = (char *)py;
    args[k++] = "-B"; /* no __pycache__ in the source or installed tree */
    args[k++] = "-m";
    args[k++] = "rcplot";
    args[k++] = (char *)c->tool;
    for (int i = 1; i < argc; i++) args[k++] = argv[i];
    args[k] = NULL;
    char prog[64];
    snprintf(prog, sizeof prog, "rcsim %s", c->name);
    setenv("RCSIM_PROG", prog, 1); /* the tool's usage lines name the command */
    /* The package is found through the module path, not by the tools editing sys.path:
     * analysis/ goes first, before whatever the user had there. */
    const char *old = getenv("PYTHONPATH");
    size_t pn = strlen(dir) + (old != NULL ? strlen(old) + 2 : 1);
    char *pp = malloc(pn);
    if (pp == NULL) {
        fprintf(stderr, "rcsim %s: out of memory\n", c->name);
        free(args);
        return RC_EXIT_RUNTIME;
    }
    if (old != NULL && old[0] != '\0') snprintf(pp, pn, "%s:%s", dir, old);
    else snprintf(pp, pn, "%s", dir);
    setenv("PYTHONPATH", pp, 1);
    free(pp);
    /* `python3 -m` would put the working directory first on the module path, where a
     * user's rcplot/ or numpy.py would shadow ours; Python 3.11+ leaves it out with this
     * (older ones ignore it). */
    setenv("PYTHONSAFEPATH", "1", 1);
    /* The tools ask this binary for strategy families and parameters
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
