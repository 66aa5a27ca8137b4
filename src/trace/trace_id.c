#include "trace/trace_id.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rc_trace_id_name(const char *path, char *out, size_t n)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    static const char *const suffixes[] = {".txt.gz", ".gz"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t sl = strlen(suffixes[i]);
        if (len > sl && !strcmp(base + len - sl, suffixes[i])) {
            len -= sl;
            break;
        }
    }
    static const char prefix[] = "schedules_";
    if (len > sizeof prefix - 1 && !strncmp(base, prefix, sizeof prefix - 1)) {
        base += sizeof prefix - 1;
        len -= sizeof prefix - 1;
    }
    if (len >= n) len = n - 1;
    memcpy(out, base, len);
    out[len] = '\0';
}

rc_trace *rc_trace_id_load(const char *trace, const char *data_dir, size_t min_lines,
                           rc_trace_id *id, rc_err *err)
{
    memset(id, 0, sizeof *id);
    if (!strcmp(trace, "online")) {
        rc_err_set(err, RC_EXIT_USAGE, "trace 'online' is not a file");
        return NULL;
    }
    char path[RC_TRACE_PATH_MAX];
    if (rc_trace_resolve(trace, data_dir, path, sizeof path, err) != 0) return NULL;
    rc_trace *t = rc_trace_load(path, min_lines, err);
    if (t == NULL) return NULL;
    /* The absolute path, so a message or the manifest says which file even
     * when the trace was found relative to the working directory. */
    char abs[PATH_MAX];
    snprintf(id->path, sizeof id->path, "%s", realpath(path, abs) ? abs : path);
    rc_trace_id_name(path, id->name, sizeof id->name);
    rc_trace_sha256(t, id->sha256);
    id->lines = (uint32_t)rc_trace_lines(t);
    return t;
}
