/* share: where rcsim's data files are at run time — the analysis package
 * (analysis/), the batch templates (slurm/) and the sweep files
 * (experiments/) — so that `rcsim figures` and friends work from an installed
 * tree without a source checkout.
 *
 * The directory is found relative to the running binary (/proc/self/exe),
 * never through the source tree's path:
 *   installed:   PREFIX/bin/rcsim  ->  PREFIX/share/rcsim      (cmake --install)
 *   build tree:  BUILD/rcsim       ->  BUILD/share/rcsim       (links into the source
 *                                                               tree, made by CMake)
 * The first candidate that holds an analysis/ directory wins.  (The analysis
 * commands also honour $RCSIM_ANALYSIS_DIR, cli/cmd_analysis.c.)
 *
 * Errors: a user-tier rc_err (RC_EXIT_RUNTIME) naming every place tried.
 */
#ifndef RCSIM_CLI_SHARE_H
#define RCSIM_CLI_SHARE_H

#include <stddef.h>

#include "core/err.h"

/* Writes the share directory (absolute, no trailing slash) into buf; 0 or an exit code. */
int rc_share_dir(char *buf, size_t n, rc_err *err);

/* The Python interpreter for the analysis scripts: $RCSIM_PYTHON, else
 * /usr/bin/python3 when it exists (Debian's, with h5py/numpy/matplotlib),
 * else "python3" from PATH. */
const char *rc_share_python(void);

#endif
