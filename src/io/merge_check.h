/* merge_check: the checks `rcsim merge` (cli/cmd_merge.c) makes on its parts before
 * writing, and the merged file's manifest.  Kept out of the CLI, which only parses
 * and calls (docs/architecture.md). */
#ifndef RCSIM_IO_MERGE_CHECK_H
#define RCSIM_IO_MERGE_CHECK_H

#include <stdbool.h>

#include "core/err.h"
#include "io/h5out.h"

/* Checks the parts: one sweep (same sweep hash), no job in two parts, every job
 * stored alike (store_raw, in the rows and the manifests) and, unless
 * allow_other_build, run by the same builds.  Fills *info0 from the first part.
 * Returns 0, or RC_EXIT_USAGE (or the reader's code) with err set. */
int rc_merge_check_parts(char **parts, unsigned n, bool allow_other_build, rc_h5out_info *info0,
                         rc_err *err);

/* Writes out's manifest from the parts' manifests combined; when a part has none,
 * writes none and says so on stderr.  Returns 0 or an exit code with err set. */
int rc_merge_manifests(char **parts, unsigned n, const char *out, rc_err *err);

#endif
