/* cmd_analysis: `rcsim plot` and `rcsim report`, the analysis of a results file.
 *
 * The analysis is Python (analysis/plot.py, analysis/report.py; matplotlib does the
 * drawing), so these commands only find the script and exec Debian's python3 on it with
 * the user's arguments: every option, its help and its errors belong to the script
 * (docs/analysis.md).  Where the scripts are looked for, first hit wins:
 *   1. $RCSIM_ANALYSIS_DIR, when set (and then nothing else);
 *   2. <directory of the executable>/../share/rcsim/analysis (an installed tree);
 *   3. the source tree's analysis/ that this binary was built from (a build tree).
 * The interpreter is $RCSIM_PYTHON, else /usr/bin/python3 (not the first python3 on
 * PATH, which may lack h5py and matplotlib).  Exit codes are the script's; this file
 * adds 1 when the script or the interpreter cannot be found or started.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "core/err.h"

#ifndef RCSIM_ANALYSIS_SOURCE_DIR
#define RCSIM_ANALYSIS_SOURCE_DIR ""
#endif
#define DEFAULT_PYTHON "/usr/bin/python3"

static void print_usage(FILE *out, const char *cmd, const char *script)
{
    fprintf(out,
            "usage: rcsim %s RESULTS.h5 [options]\n"
            "\n"
            "Runs analysis/%s with %s; `rcsim %s --help` lists its options when the\n"
            "analysis scripts are found (docs/analysis.md).  Looked up in $RCSIM_ANALYSIS_DIR,\n"
            "then ../share/rcsim/analysis beside the executable, then the source tree\n"
            "(%s).  $RCSIM_PYTHON overrides the interpreter.\n",
            cmd, script, DEFAULT_PYTHON, cmd,
            RCSIM_ANALYSIS_SOURCE_DIR[0] ? RCSIM_ANALYSIS_SOURCE_DIR : "unknown");
}

static int is_file(const char *path) { return access(path, R_OK) == 0; }

/* Fills `out` with the first existing DIR/script; returns 0, or -1 with the places tried
 * listed in `tried`. */
static int locate(const char *script, char *out, size_t n, char *tried, size_t tn)
{
    const char *env = getenv("RCSIM_ANALYSIS_DIR");
    char dirs[2][PATH_MAX];
    size_t nd = 0;
    tried[0] = '\0';
    if (env != NULL && env[0] != '\0') {
        if (snprintf(dirs[nd], PATH_MAX, "%s", env) < PATH_MAX) nd++;
    } else {
        char exe[PATH_MAX];
        ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (len > 0) {
            exe[len] = '\0';
            char *slash = strrchr(exe, '/');
            if (slash != NULL) *slash = '\0';
            if (snprintf(dirs[nd], PATH_MAX, "%s/../share/rcsim/analysis", exe) < PATH_MAX)
                nd++;
        }
        if (RCSIM_ANALYSIS_SOURCE_DIR[0] != '\0' &&
            snprintf(dirs[nd], PATH_MAX, "%s", RCSIM_ANALYSIS_SOURCE_DIR) < PATH_MAX)
            nd++;
    }
    for (size_t i = 0; i < nd; i++) {
        int w = snprintf(out, n, "%s/%s", dirs[i], script);
        if (w > 0 && (size_t)w < n && is_file(out)) return 0;
        size_t used = strlen(tried);
        snprintf(tried + used, tn - used, "%s%s", used ? ", " : "", dirs[i]);
    }
    return -1;
}

static int run_script(const char *cmd, const char *script, int argc, char **argv)
{
    bool help = false;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) help = true;
    char path[PATH_MAX], tried[3 * PATH_MAX];
    if (locate(script, path, sizeof path, tried, sizeof tried) != 0) {
        if (help) {
            print_usage(stdout, cmd, script);
            return 0;
        }
        fprintf(stderr, "rcsim %s: cannot find %s (looked in: %s); set RCSIM_ANALYSIS_DIR\n",
                cmd, script, tried);
        return RC_EXIT_RUNTIME;
    }
    const char *py = getenv("RCSIM_PYTHON");
    if (py == NULL || py[0] == '\0') py = DEFAULT_PYTHON;
    char **args = calloc((size_t)argc + 4, sizeof *args);
    if (args == NULL) {
        fprintf(stderr, "rcsim %s: out of memory\n", cmd);
        return RC_EXIT_RUNTIME;
    }
    size_t k = 0;
    args[k++] = (char *)py;
    args[k++] = "-B"; /* no __pycache__ in the source or installed tree */
    args[k++] = path;
    for (int i = 1; i < argc; i++) args[k++] = argv[i];
    args[k] = NULL;
    char prog[64];
    snprintf(prog, sizeof prog, "rcsim %s", cmd);
    setenv("RCSIM_PROG", prog, 1); /* the script's usage lines name the command */
    fflush(NULL);
    execv(py, args);
    fprintf(stderr, "rcsim %s: cannot run %s: %s (set RCSIM_PYTHON to a python3 with h5py, "
                    "numpy and matplotlib)\n", cmd, py, strerror(errno));
    free(args);
    return RC_EXIT_RUNTIME;
}

int rc_cmd_plot(int argc, char **argv) { return run_script("plot", "plot.py", argc, argv); }

int rc_cmd_report(int argc, char **argv)
{
    return run_script("report", "report.py", argc, argv);
}
