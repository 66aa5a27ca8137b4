/* What the files of the sweep loader (exp/sweep.c, sweep_yaml.c, sweep_bind.c)
 * share: the sweep's state, the loader that holds a parsed file, and the
 * functions one file calls in another.  Internal to exp/; the API is exp/sweep.h. */
#ifndef RCSIM_EXP_SWEEP_INTERNAL_H
#define RCSIM_EXP_SWEEP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "exp/param.h"
#include "exp/sweep.h"
#include "exp/until.h"
#include "trace/trace_id.h"

/* Guards against a typo (seeds: 1000000000) eating all memory. */
#define RC_SWEEP_MAX_JOBS 1000000u
#define RC_SWEEP_MAX_SEEDS 100000u
#define RC_SWEEP_MAX_BYTES (16u << 20)
#define RC_SWEEP_NAME_MAX 63

/* A trace as bound by rc_sweep_bind: the spelling, where it was looked up, what it is. */
typedef struct bound_trace {
    char *written;
    char *data_dir;
    rc_trace_id id;
} bound_trace;

struct rc_sweep {
    char *name, *path, *text, *description;
    rc_job *jobs;
    uint64_t *ids;
    int *trace_line; /* per job: the line that set its trace (0 --set, -1 default) */
    size_t n;
    uint64_t hash;
    bound_trace *traces;
    size_t n_traces;
    size_t n_axes;
    char **axis_names;
    size_t *axis_sizes;
    bool have_until; /* seeds: {min, max, until} (exp/until.h) */
    rc_until until;
};

/* One key=value with where it came from (line 0 = a --set override). */
typedef struct kv {
    const rc_param_def *def;
    const char *val;
    int line;
} kv;

/* One value of a dimension: an axis value, a zip entry, an include entry or a seed. */
typedef struct setting {
    kv *kv;
    size_t n;
    int line;
} setting;

typedef struct dim {
    const rc_param_def *def; /* the axis parameter; NULL for a zip group */
    int line;                /* of the axis key or the zip key */
    setting *set;
    size_t n;
} dim;

typedef struct loader {
    const char *path;
    rc_err *err;
    yaml_document_t doc;
    bool have_doc;
    const char *name, *description;
    int name_line;
    setting defaults;
    int defaults_seed_line;
    dim *dims;
    size_t n_dims;
    bool have_seeds;
    dim seeds;
    bool have_until;
    rc_until until;
    setting *incl;
    size_t n_incl;
    setting overrides;
    char **owned; /* strings the loader formatted itself (seed values) */
    size_t n_owned;
} loader;

/* sweep_yaml.c */
/* Every user error goes through here so that it starts with "file:line: ". */
int sweep_fail(loader *L, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const kv *sweep_setting_find(const setting *s, const rc_param_def *def);
int sweep_parse_root(loader *L, const yaml_node_t *root);
int sweep_parse_overrides(loader *L, const char *const *ov, size_t n);
/* `rcsim sweep --until`: seeds 1..u->max under the rule u, in place of the
 * file's seeds (after the --set overrides).  Returns 0 or RC_EXIT_USAGE. */
int sweep_seeds_until(loader *L, const rc_until *u);
int sweep_load_yaml(loader *L, const char *text, size_t len);
void sweep_loader_free(loader *L);

/* sweep.c */
/* Sorts the ids and hashes them into S->hash.  Returns 0, or 1 with *a < *b
 * the indices of two jobs with the same id. */
int sweep_hash_ids(rc_sweep *S, size_t *a, size_t *b);

#endif
