/* sweep: loads a sweep file (YAML) and expands it into validated jobs.
 *
 * The file is parsed with libyaml's document API, which keeps every node's
 * line, so each error can name file:line:key.  Parsing and expansion are two
 * passes over a `loader` that borrows strings from the YAML document (and
 * from the caller's overrides); everything the loader allocates is released
 * before rc_sweep_load returns, and the rc_sweep owns only copies.
 *
 * Model of a sweep: a list of "dimensions" (one per axis, one per zip group,
 * in file order), each a list of "settings" (a setting is one or more
 * key=value pairs with their lines), then the seeds as the innermost
 * dimension.  Jobs are the cartesian product, last dimension fastest, then
 * the include entries (each times the seeds unless it fixes its own seed).
 * A job is: registry defaults, file defaults, the chosen settings in file
 * order, then the --set overrides; resolved and validated.  Format and
 * error rules: docs/sweep-format.md.
 */
#include "exp/sweep.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "core/log.h"
#include "exp/param.h"
#include "multicast/strategy_table.h"
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
    setting *incl;
    size_t n_incl;
    setting overrides;
    char **owned; /* strings the loader formatted itself (seed values) */
    size_t n_owned;
} loader;

/* ------------------------------------------------------------------------ */
/* errors                                                                    */

static int fail(loader *L, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Every user error goes through here so that it starts with "file:line: ". */
static int fail(loader *L, int line, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line > 0) return rc_err_set(L->err, RC_EXIT_USAGE, "%s:%d: %s", L->path, line, msg);
    return rc_err_set(L->err, RC_EXIT_USAGE, "%s: %s", L->path, msg);
}

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 40 || lb > 40) return 99;
    size_t row[41];
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = (tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]))
                              ? 0
                              : 1;
            size_t best = diag + cost;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            if (up + 1 < best) best = up + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* " (did you mean 'users'?)" for a near miss, else "". */
static void suggest(const char *key, char *buf, size_t n)
{
    size_t count, best = 99;
    const rc_param_def *t = rc_param_table(&count), *pick = NULL;
    for (size_t i = 0; i < count; i++) {
        size_t d = edit_distance(key, t[i].name);
        if (d < best) best = d, pick = &t[i];
    }
    size_t limit = strlen(key) / 3 > 2 ? strlen(key) / 3 : 2;
    if (pick != NULL && best <= limit) snprintf(buf, n, " (did you mean '%s'?)", pick->name);
    else snprintf(buf, n, " (rcsim run --help lists the parameters)");
}

/* ------------------------------------------------------------------------ */
/* YAML node helpers                                                         */

static int line_of(const yaml_node_t *n) { return (int)n->start_mark.line + 1; }

static const char *scalar_text(const yaml_node_t *n) { return (const char *)n->data.scalar.value; }

static yaml_node_t *node(loader *L, int id) { return yaml_document_get_node(&L->doc, id); }

static const char *kind_name(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_SCALAR_NODE: return "a single value";
    case YAML_SEQUENCE_NODE: return "a list";
    case YAML_MAPPING_NODE: return "a mapping";
    default: return "nothing";
    }
}

/* A plain empty, "~" or "null" scalar: YAML's null.  Quoted "" is an empty string. */
static bool is_null(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *s = scalar_text(n);
    return s[0] == '\0' || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
           !strcmp(s, "NULL");
}

/* Checks that a mapping's keys are scalars and unique; `what` names the
 * mapping in errors and `noun` its keys ("key", "axis"). */
static int check_mapping_keys(loader *L, const yaml_node_t *map, const char *what,
                              const char *noun)
{
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        const yaml_node_t *k = node(L, p->key);
        if (k->type != YAML_SCALAR_NODE)
            return fail(L, line_of(k), "%s: keys must be plain names, not %s", what,
                        kind_name(k));
        for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
            const yaml_node_t *k0 = node(L, q->key);
            if (!strcmp(scalar_text(k0), scalar_text(k)))
                return fail(L, line_of(k), "%s: duplicate %s '%s' (first at line %d)", what,
                            noun, scalar_text(k), line_of(k0));
        }
    }
    return 0;
}

/* Room for element n of an array that holds n: capacities are powers of two,
 * so growing one element at a time stays linear overall. */
static void *grow(void *p, size_t n, size_t size)
{
    if (n != 0 && (n & (n - 1)) != 0) return p;
    return rc_xrealloc(p, (n ? 2 * n : 1) * size);
}

static char *own(loader *L, char *s)
{
    L->owned = grow(L->owned, L->n_owned, sizeof *L->owned);
    L->owned[L->n_owned++] = s;
    return s;
}

/* ------------------------------------------------------------------------ */
/* keys and values                                                           */

/* Looks up a parameter key; `where` prefixes the error ("axes", "defaults"). */
static int find_param(loader *L, const yaml_node_t *k, const char *where, bool need_axis,
                      const rc_param_def **out)
{
    const char *key = scalar_text(k);
    const rc_param_def *def = rc_param_find(key);
    if (def == NULL) {
        char hint[80];
        suggest(key, hint, sizeof hint);
        return fail(L, line_of(k), "%s: unknown parameter '%s'%s", where, key, hint);
    }
    if (need_axis && !(def->flags & RC_PF_AXIS))
        return fail(L, line_of(k),
                    "%s: '%s' cannot vary between jobs (it does not change results); "
                    "set it under defaults",
                    where, def->name);
    *out = def;
    return 0;
}

/* Checks one scalar value by parsing it into a scratch job, so that a bad
 * value is reported at its own line whatever the expansion order. */
static int check_value(loader *L, const rc_param_def *def, const char *val, int line)
{
    rc_job scratch;
    rc_job_defaults(&scratch);
    rc_err e = {0};
    if (rc_param_set(&scratch, def, val, &e) != 0) return fail(L, line, "%s", e.msg);
    return 0;
}

static int take_value(loader *L, const rc_param_def *def, const yaml_node_t *v, const char *where,
                      kv *out)
{
    if (v->type != YAML_SCALAR_NODE)
        return fail(L, line_of(v), "%s: %s: expected a single value, got %s%s", where, def->name,
                    kind_name(v),
                    v->type == YAML_SEQUENCE_NODE ? " (lists of values belong under axes)" : "");
    if (is_null(v)) return fail(L, line_of(v), "%s: %s: missing value", where, def->name);
    int rc = check_value(L, def, scalar_text(v), line_of(v));
    if (rc) return rc;
    out->def = def;
    out->val = scalar_text(v);
    out->line = line_of(v);
    return 0;
}

/* A mapping of parameter = scalar into a setting (defaults, a zip or include entry). */
static int take_mapping(loader *L, const yaml_node_t *map, const char *where, bool need_axis,
                        bool allow_seed, setting *out)
{
    int rc = check_mapping_keys(L, map, where, "key");
    if (rc) return rc;
    size_t n = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
    out->kv = rc_xcalloc(n ? n : 1, sizeof *out->kv);
    out->n = 0;
    out->line = line_of(map);
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        const yaml_node_t *k = node(L, p->key), *v = node(L, p->value);
        const rc_param_def *def = NULL; /* set by find_param on success */
        if ((rc = find_param(L, k, where, need_axis, &def))) return rc;
        if (!allow_seed && !strcmp(def->name, "seed"))
            return fail(L, line_of(k), "%s: seed: list seeds with the top-level 'seeds' key",
                        where);
        if ((rc = take_value(L, def, v, where, &out->kv[out->n]))) return rc;
        out->kv[out->n].line = line_of(k);
        out->n++;
    }
    return 0;
}

static void free_setting(setting *s) { free(s->kv); }

static void free_dim(dim *d)
{
    for (size_t i = 0; i < d->n; i++) free_setting(&d->set[i]);
    free(d->set);
}

static const kv *setting_find(const setting *s, const rc_param_def *def)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->kv[i].def == def) return &s->kv[i];
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* top-level keys                                                            */

static int parse_name(loader *L, const yaml_node_t *v)
{
    if (v->type != YAML_SCALAR_NODE || is_null(v))
        return fail(L, line_of(v), "name: expected a short name like fig5, got %s",
                    is_null(v) ? "nothing" : kind_name(v));
    const char *s = scalar_text(v);
    size_t len = strlen(s);
    if (len == 0 || len > RC_SWEEP_NAME_MAX)
        return fail(L, line_of(v), "name: '%s' must have 1 to %d characters", s,
                    RC_SWEEP_NAME_MAX);
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.')
            return fail(L, line_of(v),
                        "name: '%s' may only use letters, digits, '_', '-' and '.' "
                        "(it names HDF5 attributes and log lines)",
                        s);
    L->name = s;
    L->name_line = line_of(v);
    return 0;
}

static int parse_defaults(loader *L, const yaml_node_t *v)
{
    if (is_null(v)) return 0;
    if (v->type != YAML_MAPPING_NODE)
        return fail(L, line_of(v), "defaults: expected a mapping of parameter: value, got %s",
                    kind_name(v));
    free_setting(&L->defaults);
    int rc = take_mapping(L, v, "defaults", false, true, &L->defaults);
    if (rc) return rc;
    for (size_t i = 0; i < L->defaults.n; i++)
        if (!strcmp(L->defaults.kv[i].def->name, "seed"))
            L->defaults_seed_line = L->defaults.kv[i].line;
    return 0;
}

static dim *new_dim(loader *L)
{
    L->dims = grow(L->dims, L->n_dims, sizeof *L->dims);
    dim *d = &L->dims[L->n_dims++];
    memset(d, 0, sizeof *d);
    return d;
}

/* Two values of one axis that parse to the same thing would make duplicate jobs;
 * say so at the value rather than as a duplicate job later. */
static int check_distinct(loader *L, const dim *d, const char *what)
{
    for (size_t i = 0; i < d->n; i++) {
        rc_job a;
        rc_job_defaults(&a);
        rc_param_set(&a, d->def, d->set[i].kv[0].val, NULL);
        char fa[300];
        rc_param_format(&a, d->def, fa, sizeof fa);
        for (size_t j = 0; j < i; j++) {
            rc_job b;
            rc_job_defaults(&b);
            rc_param_set(&b, d->def, d->set[j].kv[0].val, NULL);
            char fb[300];
            rc_param_format(&b, d->def, fb, sizeof fb);
            if (!strcmp(fa, fb))
                return fail(L, d->set[i].line, "%s: value '%s' is listed twice (also at line %d)",
                            what, d->set[i].kv[0].val, d->set[j].line);
        }
    }
    return 0;
}

static int parse_axes(loader *L, const yaml_node_t *v)
{
    if (is_null(v)) return 0;
    if (v->type != YAML_MAPPING_NODE)
        return fail(L, line_of(v), "axes: expected a mapping of parameter: [values], got %s",
                    kind_name(v));
    int rc = check_mapping_keys(L, v, "axes", "axis");
    if (rc) return rc;
    for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
        const yaml_node_t *k = node(L, p->key), *list = node(L, p->value);
        const rc_param_def *def = NULL; /* set by find_param on success */
        if ((rc = find_param(L, k, "axes", true, &def))) return rc;
        if (!strcmp(def->name, "seed"))
            return fail(L, line_of(k), "axes: seed: list seeds with the top-level 'seeds' key");
        for (size_t i = 0; i < L->n_dims; i++)
            if (L->dims[i].def == def)
                return fail(L, line_of(k), "axes: duplicate axis '%s' (first at line %d)",
                            def->name, L->dims[i].line);
        if (list->type != YAML_SEQUENCE_NODE)
            return fail(L, line_of(k),
                        "axes: %s: an axis needs a list of values like [a, b], got %s%s%s%s",
                        def->name, kind_name(list), list->type == YAML_SCALAR_NODE ? " '" : "",
                        list->type == YAML_SCALAR_NODE ? scalar_text(list) : "",
                        list->type == YAML_SCALAR_NODE ? "' (put a fixed value under defaults)"
                                                       : "");
        size_t n = (size_t)(list->data.sequence.items.top - list->data.sequence.items.start);
        if (n == 0)
            return fail(L, line_of(k), "axes: %s: empty axis (it would make zero jobs)",
                        def->name);
        dim *d = new_dim(L);
        d->def = def;
        d->line = line_of(k);
        d->set = rc_xcalloc(n, sizeof *d->set);
        for (yaml_node_item_t *it = list->data.sequence.items.start;
             it < list->data.sequence.items.top; it++) {
            const yaml_node_t *item = node(L, *it);
            setting *s = &d->set[d->n];
            s->kv = rc_xcalloc(1, sizeof *s->kv);
            s->line = line_of(item);
            d->n++;
            if ((rc = take_value(L, def, item, "axes", &s->kv[0]))) return rc;
            s->n = 1;
        }
        if ((rc = check_distinct(L, d, def->name))) return rc;
    }
    return 0;
}

/* A list of mappings; `zip` makes them one dimension, `include` extra jobs. */
static int parse_entries(loader *L, const yaml_node_t *k, const yaml_node_t *v, bool is_zip)
{
    const char *what = is_zip ? "zip" : "include";
    if (v->type != YAML_SEQUENCE_NODE)
        return fail(L, line_of(v), "%s: expected a list of mappings like [{strategy: x, "
                    "lambda_div: 2}], got %s", what, kind_name(v));
    size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
    if (n == 0) return fail(L, line_of(k), "%s: empty list", what);
    setting *set = rc_xcalloc(n, sizeof *set);
    size_t got = 0;
    int rc = 0;
    if (is_zip) {
        dim *d = new_dim(L);
        d->line = line_of(k);
        d->set = set;
    } else {
        L->incl = set;
    }
    for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
         it++) {
        const yaml_node_t *e = node(L, *it);
        char where[48];
        snprintf(where, sizeof where, "%s entry %zu", what, got + 1);
        if (e->type != YAML_MAPPING_NODE || e->data.mapping.pairs.top == e->data.mapping.pairs.start) {
            rc = fail(L, line_of(e), "%s: expected a non-empty mapping of parameter: value, got %s",
                      where, e->type == YAML_MAPPING_NODE ? "an empty one" : kind_name(e));
            break;
        }
        rc = take_mapping(L, e, where, true, !is_zip, &set[got]);
        got++;
        if (rc) break;
    }
    if (is_zip) L->dims[L->n_dims - 1].n = got;
    else L->n_incl = got;
    return rc;
}

static int parse_seeds(loader *L, const yaml_node_t *k, const yaml_node_t *v)
{
    const rc_param_def *seed = rc_param_find("seed");
    L->have_seeds = true;
    L->seeds.def = seed;
    L->seeds.line = line_of(k);
    if (v->type == YAML_SCALAR_NODE && !is_null(v)) {
        const char *s = scalar_text(v);
        char *end;
        errno = 0;
        long n = strtol(s, &end, 10);
        if (end == s || *end != '\0' || errno != 0 || n < 1 || n > (long)RC_SWEEP_MAX_SEEDS)
            return fail(L, line_of(v),
                        "seeds: '%s' must be a count 1..%u (seeds 1..N) or a list like [1, 7, 9]",
                        s, RC_SWEEP_MAX_SEEDS);
        L->seeds.set = rc_xcalloc((size_t)n, sizeof *L->seeds.set);
        for (long i = 0; i < n; i++) {
            char buf[24];
            snprintf(buf, sizeof buf, "%ld", i + 1);
            setting *st = &L->seeds.set[L->seeds.n++];
            st->kv = rc_xcalloc(1, sizeof *st->kv);
            st->n = 1;
            st->line = line_of(v);
            st->kv[0] = (kv){seed, own(L, rc_xstrdup(buf)), line_of(v)};
        }
        return 0;
    }
    if (v->type != YAML_SEQUENCE_NODE)
        return fail(L, line_of(v), "seeds: expected a count or a list of seeds, got %s",
                    is_null(v) ? "nothing" : kind_name(v));
    size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
    if (n == 0) return fail(L, line_of(k), "seeds: empty list (it would make zero jobs)");
    if (n > RC_SWEEP_MAX_SEEDS)
        return fail(L, line_of(k), "seeds: more than %u seeds", RC_SWEEP_MAX_SEEDS);
    L->seeds.set = rc_xcalloc(n, sizeof *L->seeds.set);
    for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
         it++) {
        const yaml_node_t *item = node(L, *it);
        setting *st = &L->seeds.set[L->seeds.n++];
        st->kv = rc_xcalloc(1, sizeof *st->kv);
        st->line = line_of(item);
        int rc = take_value(L, seed, item, "seeds", &st->kv[0]);
        if (rc) return rc;
        st->n = 1;
    }
    return check_distinct(L, &L->seeds, "seeds");
}

static const char *const top_keys = "name, description, defaults, axes, zip, include, seeds";

static int parse_root(loader *L, const yaml_node_t *root)
{
    if (root == NULL) return fail(L, 0, "empty sweep file (it needs at least 'name:')");
    if (root->type != YAML_MAPPING_NODE)
        return fail(L, line_of(root), "the sweep file must be a mapping with the keys %s; got %s",
                    top_keys, kind_name(root));
    int rc = check_mapping_keys(L, root, "sweep", "top-level key");
    if (rc) return rc;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
         p++) {
        const yaml_node_t *k = node(L, p->key), *v = node(L, p->value);
        const char *key = scalar_text(k);
        if (!strcmp(key, "name")) rc = parse_name(L, v);
        else if (!strcmp(key, "description")) {
            if (v->type != YAML_SCALAR_NODE)
                rc = fail(L, line_of(v), "description: expected text, got %s", kind_name(v));
            else L->description = scalar_text(v);
        } else if (!strcmp(key, "defaults")) rc = parse_defaults(L, v);
        else if (!strcmp(key, "axes")) rc = parse_axes(L, v);
        else if (!strcmp(key, "zip")) rc = parse_entries(L, k, v, true);
        else if (!strcmp(key, "include")) rc = parse_entries(L, k, v, false);
        else if (!strcmp(key, "seeds") || !strcmp(key, "seed")) {
            if (!strcmp(key, "seed"))
                rc = fail(L, line_of(k), "unknown top-level key 'seed' (did you mean 'seeds'?)");
            else rc = parse_seeds(L, k, v);
        } else if (rc_param_find(key) != NULL)
            rc = fail(L, line_of(k),
                      "unknown top-level key '%s': parameters go under 'defaults:' or 'axes:'",
                      key);
        else
            rc = fail(L, line_of(k), "unknown top-level key '%s' (expected %s)", key, top_keys);
        if (rc) return rc;
    }
    if (L->name == NULL) return fail(L, line_of(root), "missing required key 'name'");
    /* A key may be an axis or part of a zip group, not both. */
    for (size_t i = 0; i < L->n_dims; i++) {
        if (L->dims[i].def != NULL) continue;
        for (size_t e = 0; e < L->dims[i].n; e++)
            for (size_t j = 0; j < L->dims[i].set[e].n; j++) {
                const kv *x = &L->dims[i].set[e].kv[j];
                for (size_t a = 0; a < L->n_dims; a++)
                    if (L->dims[a].def == x->def)
                        return fail(L, x->line,
                                    "zip: duplicate axis '%s': it is already an axis at line %d",
                                    x->def->name, L->dims[a].line);
            }
    }
    if (L->have_seeds && L->defaults_seed_line > 0)
        return fail(L, L->defaults_seed_line,
                    "defaults: seed: the seeds are given by 'seeds' (line %d); use one of them",
                    L->seeds.line);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* --set overrides                                                           */

static int parse_overrides(loader *L, const char *const *ov, size_t n)
{
    L->overrides.kv = rc_xcalloc(n ? n : 1, sizeof *L->overrides.kv);
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(ov[i], '=');
        if (eq == NULL || eq == ov[i])
            return rc_err_set(L->err, RC_EXIT_USAGE, "--set %s: expected key=value", ov[i]);
        char key[64];
        size_t len = (size_t)(eq - ov[i]);
        if (len >= sizeof key) len = sizeof key - 1;
        memcpy(key, ov[i], len);
        key[len] = '\0';
        const rc_param_def *def = rc_param_find(key);
        if (def == NULL) {
            char hint[80];
            suggest(key, hint, sizeof hint);
            return rc_err_set(L->err, RC_EXIT_USAGE, "--set %s: unknown parameter '%s'%s", ov[i],
                              key, hint);
        }
        rc_job scratch;
        rc_job_defaults(&scratch);
        rc_err e = {0};
        if (rc_param_set(&scratch, def, eq + 1, &e) != 0)
            return rc_err_set(L->err, RC_EXIT_USAGE, "--set %s: %s", ov[i], e.msg);
        /* A later --set of the same key wins, like on a command line. */
        size_t j = 0;
        while (j < L->overrides.n && L->overrides.kv[j].def != def) j++;
        L->overrides.kv[j] = (kv){def, eq + 1, 0};
        if (j == L->overrides.n) L->overrides.n++;
    }
    /* An override on an axis key replaces the axis by that one value (and a
     * seed override replaces the seeds): otherwise it would either be
     * silently overwritten or turn the axis into duplicate jobs. */
    for (size_t i = 0; i < L->overrides.n; i++) {
        const rc_param_def *def = L->overrides.kv[i].def;
        if (L->have_seeds && def == L->seeds.def) {
            free_dim(&L->seeds);
            memset(&L->seeds, 0, sizeof L->seeds);
            L->have_seeds = false;
        }
        for (size_t d = 0; d < L->n_dims; d++) {
            if (L->dims[d].def != def) continue;
            free_dim(&L->dims[d]);
            memmove(&L->dims[d], &L->dims[d + 1], (L->n_dims - d - 1) * sizeof *L->dims);
            L->n_dims--;
            break;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* expansion                                                                 */

typedef struct plan {
    size_t n_seed, n_prod, n_total;
} plan;

static bool incl_has_seed(const setting *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->kv[i].def->name, "seed")) return true;
    return false;
}

/* The settings that make job `idx`, in application order.  Returns how many. */
static size_t applied_for(const loader *L, const plan *P, size_t idx, const setting **out)
{
    size_t n = 0;
    if (idx < P->n_prod * P->n_seed) {
        size_t s = idx % P->n_seed, c = idx / P->n_seed;
        for (size_t d = L->n_dims; d-- > 0;) {
            out[d] = &L->dims[d].set[c % L->dims[d].n];
            c /= L->dims[d].n;
        }
        n = L->n_dims;
        if (L->have_seeds) out[n++] = &L->seeds.set[s];
        return n;
    }
    size_t r = idx - P->n_prod * P->n_seed;
    for (size_t i = 0; i < L->n_incl; i++) {
        bool fixed = incl_has_seed(&L->incl[i]);
        size_t m = fixed ? 1 : P->n_seed;
        if (r < m) {
            out[n++] = &L->incl[i];
            if (!fixed && L->have_seeds) out[n++] = &L->seeds.set[r];
            return n;
        }
        r -= m;
    }
    RC_ASSERTF(false, "job index %zu out of range", idx);
}

static void apply(rc_job *job, const setting *s)
{
    for (size_t i = 0; i < s->n; i++) {
        int rc = rc_param_set(job, s->kv[i].def, s->kv[i].val, NULL);
        RC_ASSERTF(rc == 0, "value %s=%s passed the check but not the expansion",
                   s->kv[i].def->name, s->kv[i].val);
    }
}

/* "users=32 (line 5), strategy=unicast (line 6), seed=1 (line 9)" */
static void describe(const setting *const *set, size_t n, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < set[i]->n; j++) {
            const kv *x = &set[i]->kv[j];
            int w = snprintf(buf + used, cap - used, "%s%s=%s (line %d)", used ? ", " : "",
                             x->def->name, x->val, x->line);
            if (w < 0 || (size_t)w >= cap - used) return;
            used += (size_t)w;
        }
}

/* Where the value of `def` in this job came from: 0 for --set, -1 if it is a registry default. */
static int origin_line(const loader *L, const setting *const *set, size_t n,
                       const rc_param_def *def)
{
    if (def == NULL) return -1;
    if (setting_find(&L->overrides, def)) return 0;
    for (size_t i = n; i-- > 0;) {
        const kv *x = setting_find(set[i], def);
        if (x) return x->line;
    }
    const kv *x = setting_find(&L->defaults, def);
    return x ? x->line : -1;
}

/* The parameter a validation message is about: messages start with "key:". */
static const rc_param_def *message_key(const char *msg)
{
    char key[64];
    size_t i = 0;
    while (msg[i] && msg[i] != ':' && i < sizeof key - 1) key[i] = msg[i], i++;
    key[i] = '\0';
    return msg[i] == ':' ? rc_param_find(key) : NULL;
}

static int build_job(loader *L, const plan *P, size_t idx, rc_job *job, int *trace_line)
{
    const setting *set[64];
    RC_ASSERT(L->n_dims + 2 <= 64);
    size_t n = applied_for(L, P, idx, set);
    *trace_line = origin_line(L, set, n, rc_param_find("trace"));
    rc_job_defaults(job);
    apply(job, &L->defaults);
    for (size_t i = 0; i < n; i++) apply(job, set[i]);
    apply(job, &L->overrides);
    rc_job_resolve(job);
    rc_err e = {0};
    if (rc_job_validate(job, &e) == 0) return 0;
    const rc_param_def *key = message_key(e.msg);
    int line = origin_line(L, set, n, key);
    /* group_size defaults to the population: when users is what makes it fail, point there. */
    if (line < 0 && key != NULL && !strcmp(key->name, "group_size"))
        line = origin_line(L, set, n, rc_param_find("users"));
    char desc[600];
    describe(set, n, desc, sizeof desc);
    const char *src = line == 0 ? " (from --set)" : "";
    return fail(L, line > 0 ? line : 0, "%s%s [job %zu of %zu%s%s]", e.msg, src, idx + 1,
                P->n_total, desc[0] ? ": " : "", desc);
}

typedef struct id_idx {
    uint64_t id;
    size_t idx;
} id_idx;

static int cmp_id_idx(const void *a, const void *b)
{
    const id_idx *x = a, *y = b;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int report_duplicate(loader *L, const plan *P, size_t a, size_t b, uint64_t id)
{
    const setting *sa[64], *sb[64];
    size_t na = applied_for(L, P, a, sa), nb = applied_for(L, P, b, sb);
    int line = 0;
    for (size_t i = 0; i < nb && line == 0; i++)
        if (i >= na || sa[i] != sb[i]) line = sb[i]->line;
    if (line == 0 && nb > 0) line = sb[nb - 1]->line;
    char da[420], db[420], hex[17];
    describe(sa, na, da, sizeof da);
    describe(sb, nb, db, sizeof db);
    rc_job_id_hex(id, hex);
    return fail(L, line,
                "job %zu [%s] and job %zu [%s] are the same job (id %s); remove one of them",
                a + 1, da[0] ? da : "defaults only", b + 1, db[0] ? db : "defaults only", hex);
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* Sorts the ids and hashes them into S->hash.  Returns 0, or 1 with *a < *b
 * the sweep indices of two jobs with the same id. */
static int hash_ids(rc_sweep *S, size_t *a, size_t *b)
{
    id_idx *sorted = rc_xmalloc((S->n ? S->n : 1) * sizeof *sorted);
    for (size_t i = 0; i < S->n; i++) sorted[i] = (id_idx){S->ids[i], i};
    qsort(sorted, S->n, sizeof *sorted, cmp_id_idx);
    uint64_t h = 1469598103934665603ULL;
    int dup = 0;
    for (size_t i = 0; i < S->n; i++) {
        if (i > 0 && sorted[i].id == sorted[i - 1].id) {
            *a = sorted[i - 1].idx;
            *b = sorted[i].idx;
            dup = 1;
            break;
        }
        char hex[17];
        rc_job_id_hex(sorted[i].id, hex);
        h = fnv1a(h, hex, 16);
        h = fnv1a(h, "\n", 1);
    }
    free(sorted);
    if (!dup) S->hash = h;
    return dup;
}

static int expand(loader *L, rc_sweep *S)
{
    plan P = {.n_seed = L->have_seeds ? L->seeds.n : 1, .n_prod = 1};
    for (size_t d = 0; d < L->n_dims; d++) {
        if (P.n_prod > RC_SWEEP_MAX_JOBS / L->dims[d].n)
            return fail(L, L->dims[d].line, "the axes make more than %u jobs", RC_SWEEP_MAX_JOBS);
        P.n_prod *= L->dims[d].n;
    }
    if (P.n_prod > RC_SWEEP_MAX_JOBS / P.n_seed)
        return fail(L, L->seeds.line, "the axes times the seeds make more than %u jobs",
                    RC_SWEEP_MAX_JOBS);
    P.n_total = P.n_prod * P.n_seed;
    for (size_t i = 0; i < L->n_incl; i++) P.n_total += incl_has_seed(&L->incl[i]) ? 1 : P.n_seed;
    if (P.n_total > RC_SWEEP_MAX_JOBS)
        return fail(L, 0, "the sweep makes more than %u jobs", RC_SWEEP_MAX_JOBS);

    S->jobs = rc_xcalloc(P.n_total, sizeof *S->jobs);
    S->ids = rc_xcalloc(P.n_total, sizeof *S->ids);
    S->trace_line = rc_xcalloc(P.n_total, sizeof *S->trace_line);
    S->n = P.n_total;
    for (size_t i = 0; i < P.n_total; i++) {
        int rc = build_job(L, &P, i, &S->jobs[i], &S->trace_line[i]);
        if (rc) return rc;
        S->ids[i] = rc_job_id(&S->jobs[i]);
    }
    size_t a, b;
    if (hash_ids(S, &a, &b)) return report_duplicate(L, &P, a, b, S->ids[b]);

    /* Dimensions for `rcsim plan`: axes and zip groups in order, then the seeds. */
    S->n_axes = L->n_dims + (L->have_seeds ? 1 : 0);
    S->axis_names = rc_xcalloc(S->n_axes ? S->n_axes : 1, sizeof *S->axis_names);
    S->axis_sizes = rc_xcalloc(S->n_axes ? S->n_axes : 1, sizeof *S->axis_sizes);
    for (size_t d = 0; d < L->n_dims; d++) {
        const dim *D = &L->dims[d];
        S->axis_sizes[d] = D->n;
        if (D->def != NULL) {
            S->axis_names[d] = rc_xstrdup(D->def->name);
            continue;
        }
        char buf[256] = "zip(";
        size_t used = 4;
        for (size_t e = 0; e < D->n; e++)
            for (size_t j = 0; j < D->set[e].n; j++) {
                const char *nm = D->set[e].kv[j].def->name;
                bool seen = false;
                for (size_t e2 = 0; e2 <= e && !seen; e2++)
                    for (size_t j2 = 0; j2 < D->set[e2].n; j2++) {
                        if (e2 == e && j2 >= j) break;
                        if (D->set[e2].kv[j2].def == D->set[e].kv[j].def) seen = true;
                    }
                if (seen) continue;
                int w = snprintf(buf + used, sizeof buf - used, "%s%s", used > 4 ? "," : "", nm);
                if (w > 0 && (size_t)w < sizeof buf - used) used += (size_t)w;
            }
        snprintf(buf + used, sizeof buf - used, ")");
        S->axis_names[d] = rc_xstrdup(buf);
    }
    if (L->have_seeds) {
        S->axis_names[L->n_dims] = rc_xstrdup("seed");
        S->axis_sizes[L->n_dims] = L->seeds.n;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* load / free                                                               */

static char *read_file(const char *path, size_t *len, rc_err *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return rc_err_set(err, RC_EXIT_USAGE, "%s: cannot open sweep file: %s", path,
                          strerror(errno)),
               NULL;
    size_t cap = 4096, n = 0;
    char *buf = rc_xmalloc(cap);
    for (;;) {
        if (n + 1 >= cap) {
            if (cap >= RC_SWEEP_MAX_BYTES) {
                fclose(f);
                free(buf);
                rc_err_set(err, RC_EXIT_USAGE, "%s: larger than %u bytes; not a sweep file?",
                           path, RC_SWEEP_MAX_BYTES);
                return NULL;
            }
            cap *= 2;
            buf = rc_xrealloc(buf, cap);
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        rc_err_set(err, RC_EXIT_USAGE, "%s: read error", path);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static int load_yaml(loader *L, const char *text, size_t len)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) return fail(L, 0, "cannot initialise the YAML parser");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    int rc = 0;
    if (!yaml_parser_load(&parser, &L->doc)) {
        const char *problem = parser.problem ? parser.problem : "malformed YAML";
        if (parser.context)
            rc = fail(L, (int)parser.problem_mark.line + 1,
                      "YAML syntax error: %s (%s at line %d)", problem, parser.context,
                      (int)parser.context_mark.line + 1);
        else
            rc = fail(L, (int)parser.problem_mark.line + 1, "YAML syntax error: %s", problem);
    } else {
        L->have_doc = true;
        /* A second document would be silently ignored; refuse it instead. */
        yaml_document_t extra;
        if (yaml_parser_load(&parser, &extra)) {
            bool more = yaml_document_get_root_node(&extra) != NULL;
            int line = more ? line_of(yaml_document_get_root_node(&extra)) : 0;
            yaml_document_delete(&extra);
            if (more) rc = fail(L, line, "a sweep file holds one YAML document; found another");
        } else {
            rc = fail(L, (int)parser.problem_mark.line + 1, "YAML syntax error: %s",
                      parser.problem ? parser.problem : "malformed YAML");
        }
    }
    yaml_parser_delete(&parser);
    return rc;
}

static void loader_free(loader *L)
{
    free_setting(&L->defaults);
    for (size_t d = 0; d < L->n_dims; d++) free_dim(&L->dims[d]);
    free(L->dims);
    free_dim(&L->seeds);
    for (size_t i = 0; i < L->n_incl; i++) free_setting(&L->incl[i]);
    free(L->incl);
    free_setting(&L->overrides);
    for (size_t i = 0; i < L->n_owned; i++) free(L->owned[i]);
    free(L->owned);
    if (L->have_doc) yaml_document_delete(&L->doc);
}

rc_sweep *rc_sweep_load(const char *path, const char *const *overrides, size_t n_overrides,
                        rc_err *err)
{
    rc_err local = {0};
    if (err == NULL) err = &local;
    size_t len = 0;
    char *text = read_file(path, &len, err);
    if (text == NULL) return NULL;
    if (memchr(text, '\0', len) != NULL) {
        free(text);
        rc_err_set(err, RC_EXIT_USAGE, "%s: contains NUL bytes; not a sweep file", path);
        return NULL;
    }

    loader L = {.path = path, .err = err};
    rc_sweep *S = rc_xcalloc(1, sizeof *S);
    S->text = text;
    int rc = load_yaml(&L, text, len);
    if (rc == 0) rc = parse_root(&L, yaml_document_get_root_node(&L.doc));
    if (rc == 0) rc = parse_overrides(&L, overrides, n_overrides);
    if (rc == 0) rc = expand(&L, S);
    if (rc == 0) {
        S->name = rc_xstrdup(L.name);
        S->path = rc_xstrdup(path);
        S->description = rc_xstrdup(L.description ? L.description : "");
    }
    loader_free(&L);
    if (rc != 0) {
        rc_sweep_free(S);
        return NULL;
    }
    return S;
}

void rc_sweep_free(rc_sweep *s)
{
    if (s == NULL) return;
    for (size_t i = 0; i < s->n_axes; i++) free(s->axis_names[i]);
    free(s->axis_names);
    free(s->axis_sizes);
    free(s->name);
    free(s->path);
    free(s->text);
    free(s->description);
    free(s->jobs);
    free(s->ids);
    free(s->trace_line);
    for (size_t i = 0; i < s->n_traces; i++) {
        free(s->traces[i].written);
        free(s->traces[i].data_dir);
    }
    free(s->traces);
    free(s);
}

const char *rc_sweep_name(const rc_sweep *s) { return s->name; }
const char *rc_sweep_path(const rc_sweep *s) { return s->path; }
const char *rc_sweep_text(const rc_sweep *s) { return s->text; }
const char *rc_sweep_description(const rc_sweep *s) { return s->description; }
uint64_t rc_sweep_hash(const rc_sweep *s) { return s->hash; }
size_t rc_sweep_count(const rc_sweep *s) { return s->n; }

const rc_job *rc_sweep_job(const rc_sweep *s, size_t i)
{
    RC_ASSERTF(i < s->n, "job %zu of %zu", i, s->n);
    return &s->jobs[i];
}

uint64_t rc_sweep_job_id(const rc_sweep *s, size_t i)
{
    RC_ASSERTF(i < s->n, "job %zu of %zu", i, s->n);
    return s->ids[i];
}

/* ------------------------------------------------------------------------ */
/* binding jobs to their trace files                                         */

/* "FILE:LINE: MESSAGE [job I of N: trace=VALUE]": the line that set the trace. */
static int bind_fail(const rc_sweep *s, size_t i, rc_err *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int bind_fail(const rc_sweep *s, size_t i, rc_err *err, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line = s->trace_line[i];
    char where[32] = "";
    if (line > 0) snprintf(where, sizeof where, ":%d", line);
    return rc_err_set(err, RC_EXIT_USAGE, "%s%s: %s [job %zu of %zu: trace=%s%s]", s->path, where,
                      msg, i + 1, s->n, s->jobs[i].trace, line == 0 ? " (from --set)" : "");
}

static bound_trace *find_bound(rc_sweep *s, const char *written, const char *dir)
{
    for (size_t k = 0; k < s->n_traces; k++)
        if (!strcmp(s->traces[k].written, written) && !strcmp(s->traces[k].data_dir, dir))
            return &s->traces[k];
    return NULL;
}

/* Back to the ids of the spelling (after a failed bind). */
static void unbind(rc_sweep *s)
{
    for (size_t i = 0; i < s->n; i++) {
        rc_job *job = &s->jobs[i];
        job->trace_name[0] = job->trace_sha256[0] = '\0';
        job->trace_lines = 0;
        s->ids[i] = rc_job_id(job);
    }
    for (size_t i = 0; i < s->n_traces; i++) {
        free(s->traces[i].written);
        free(s->traces[i].data_dir);
    }
    free(s->traces);
    s->traces = NULL;
    s->n_traces = 0;
    size_t a, b;
    int dup = hash_ids(s, &a, &b);
    RC_ASSERT(!dup); /* the load checked these ids */
}

static int bind_all(rc_sweep *s, const char *data_dir, rc_err *err)
{
    for (size_t i = 0; i < s->n; i++) {
        rc_job *job = &s->jobs[i];
        const char *dir = data_dir != NULL && data_dir[0] != '\0' ? data_dir : job->data_dir;
        if (dir != job->data_dir) {
            /* The job as the farm will hand it out (with --data-dir), checked
             * now rather than by the job itself at run time. */
            rc_job run = *job;
            snprintf(run.data_dir, sizeof run.data_dir, "%s", dir);
            rc_err e = {0};
            if (rc_job_validate(&run, &e) != 0) return bind_fail(s, i, err, "%s", e.msg);
        }
        if (!strcmp(job->trace, "online")) continue;
        bound_trace *b = find_bound(s, job->trace, dir);
        if (b == NULL) {
            /* Each distinct trace is read once, completely: a bad file is
             * found here, before any job runs, not by every job. */
            rc_trace_id id;
            rc_err e = {0};
            /* through the cache: a serial sweep then runs its jobs on it */
            if (rc_trace_id_get(job->trace, dir, 0, &id, &e) == NULL)
                return bind_fail(s, i, err, "%s", e.msg);
            s->traces = rc_xrealloc(s->traces, (s->n_traces + 1) * sizeof *s->traces);
            b = &s->traces[s->n_traces++];
            b->written = rc_xstrdup(job->trace);
            b->data_dir = rc_xstrdup(dir);
            b->id = id;
        }
        size_t need = rc_job_trace_lines_needed(job);
        if (need > b->id.lines)
            return bind_fail(s, i, err, "trace %s has %u lines, the job needs %zu", b->id.path,
                             b->id.lines, need);
        rc_job_bind_trace(job, &b->id);
        s->ids[i] = rc_job_id(job);
    }
    size_t a, b;
    if (hash_ids(s, &a, &b)) {
        char hex[17];
        rc_job_id_hex(s->ids[b], hex);
        return bind_fail(s, b, err,
                         "job %zu (trace=%s) and job %zu (trace=%s) are the same job (id %s): "
                         "both traces are %s (sha256 %s); remove one of them",
                         a + 1, s->jobs[a].trace, b + 1, s->jobs[b].trace, hex,
                         s->jobs[b].trace_name, s->jobs[b].trace_sha256);
    }
    return 0;
}

int rc_sweep_bind(rc_sweep *s, const char *data_dir, rc_err *err)
{
    int rc = bind_all(s, data_dir, err);
    if (rc != 0) unbind(s);
    return rc;
}

size_t rc_sweep_trace_count(const rc_sweep *s) { return s->n_traces; }

const rc_trace_id *rc_sweep_trace(const rc_sweep *s, size_t i, const char **written)
{
    RC_ASSERTF(i < s->n_traces, "trace %zu of %zu", i, s->n_traces);
    if (written != NULL) *written = s->traces[i].written;
    return &s->traces[i].id;
}

size_t rc_sweep_axis_count(const rc_sweep *s) { return s->n_axes; }

const char *rc_sweep_axis_name(const rc_sweep *s, size_t i)
{
    RC_ASSERTF(i < s->n_axes, "axis %zu of %zu", i, s->n_axes);
    return s->axis_names[i];
}

size_t rc_sweep_axis_size(const rc_sweep *s, size_t i)
{
    RC_ASSERTF(i < s->n_axes, "axis %zu of %zu", i, s->n_axes);
    return s->axis_sizes[i];
}

/* ------------------------------------------------------------------------ */
/* cost model                                                                */

double rc_job_cost_estimate(const rc_job *in)
{
    /* Calibration (log least squares, bench/fit_cost.py) to the 2,289 jobs of
     * the paper figure set (24 h, --model paper, every seed), run with
     * `scripts/reproduce.sh --np 3` on 2 idle cores of this machine; per-job
     * wall time from the results file.  Fitted on 2026-12-04 (main fa60545),
     * then SEC_PER_COPY and SEC_PER_TIMEOUT scaled by 1/1.30 after the job
     * processes began to keep their freed memory (main 8ff5dc9, the set's jobs
     * 23 % faster): estimate / measured has median 1.09, 10-90 % range
     * 0.70-1.49, and the set's total is within 1 %.
     *  - SEC_PER_COPY: the whole cost of one sub-message copy (its send,
     *    bundle, delivery and its share of the sender's stream firings);
     *    each strategy family states its copies per recipient and per
     *    multicast (multicast/strategy_table.h, rc_strategy_cost): gs - 1 per
     *    multicast for unicast, twice that with Rollercoaster's ACKs;
     *    provider-injected copies are costed as client ones (not fitted);
     *  - SEC_PER_TIMEOUT: per timeout armed (RC-FT: one per member and multicast);
     *  - large p costs more per copy (bundling work): x(1 + (p/12)^3.4);
     *  - a saturated network (utilisation rho near 1, docs/spec.md §6 Fig. 8)
     *    keeps long queues: x(1 + 1.2 rho^2);
     *  - a trace costs about what the same job online costs (fit: x1.04, not
     *    used); loading it is done once per process (trace cache), SEC_PER_TRACE;
     *  - --cover full routes every cover packet: SEC_PER_COVER_HOP per packet
     *    hop (not refitted: no figure uses it; about 100 M hops per 6 h at m = 128).
     * Checked on the exact model before the rescale (Figs 5, 8, 9, 16 with
     * --model exact, 6 h, seed 1; 114 jobs, one core shared): median ratio
     * 1.35, 10-90 % 0.73-1.75, but saturated exact-model jobs (Fig 8,
     * b >= 16) run up to 5x longer than estimated.  The estimate only ranks
     * jobs and sizes runs. */
    static const double SEC_PER_COPY = 0.273e-6;
    static const double SEC_PER_TIMEOUT = 0.1015e-6;
    static const double SEC_PER_JOB = 0.005;
    static const double SEC_PER_TRACE = 0.02;
    static const double SEC_PER_COVER_HOP = 0.4e-6;

    rc_job job = *in;
    rc_job_resolve(&job);
    rc_strategy_spec s;
    if (rc_strategy_parse(job.strategy, &s, NULL) != 0) rc_strategy_parse("unicast", &s, NULL);
    rc_strategy_cost c;
    rc_strategy_cost_of(&s, &c);
    double m = job.users, gs = rc_job_group_size(&job), g = job.groups;
    double p = c.p > 0 ? c.p : 1;
    double div = job.lambda_div > 0 ? job.lambda_div : 1;
    bool traced = strcmp(job.trace, "online") != 0;

    double multicasts = g * job.app_rate * job.burst * job.duration_s;
    /* client copies take their senders' payload slots; provider copies do not */
    double client = multicasts * (gs - 1) * c.client_copies_per_recipient;
    if (c.client_copies_per_multicast > 0) client += multicasts * c.client_copies_per_multicast;
    double copies = client;
    if (c.provider_copies_per_recipient > 0)
        copies += multicasts * (gs - 1) * c.provider_copies_per_recipient;
    double work = copies * SEC_PER_COPY;
    if (c.timeouts_per_member > 0)
        work += multicasts * gs * SEC_PER_TIMEOUT * c.timeouts_per_member;

    /* Utilisation: real sub-messages per second against the payload slots of
     * all clients (lambda_P * p / div each), docs/spec.md §6 "Load check". */
    double slots = m * job.rate_payload * p / div;
    double rho = job.duration_s > 0 && slots > 0 ? client / job.duration_s / slots : 0;
    if (rho > 2) rho = 2;
    double load = 1 + 1.2 * rho * rho;
    double wide = 1 + pow(p / 12.0, 3.4);

    double cover = 0;
    if (job.cover == RC_COVER_FULL) {
        double packets = m * (job.rate_payload + job.rate_drop + job.rate_loop) / div;
        double mixes = (double)job.mix_layers * job.mixes_per_layer;
        cover = (packets + mixes * job.mix_rate_loop / div) * (job.mix_layers + 2) *
                job.duration_s;
    }
    return SEC_PER_JOB + (traced ? SEC_PER_TRACE : 0) + work * wide * load +
           SEC_PER_COVER_HOP * cover;
}
