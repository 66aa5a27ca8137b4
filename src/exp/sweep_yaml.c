/* Reading a sweep file's YAML document into a loader: the top-level keys,
 * defaults, axes, zip and include entries, seeds and the --set overrides, each
 * value checked and kept with its line (exp/sweep_internal.h). */
#include "exp/sweep_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

/* ------------------------------------------------------------------------ */
/* errors                                                                    */


/* Every user error goes through here so that it starts with "file:line: ". */
int sweep_fail(loader *L, int line, const char *fmt, ...)
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
            return sweep_fail(L, line_of(k), "%s: keys must be plain names, not %s", what,
                        kind_name(k));
        for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
            const yaml_node_t *k0 = node(L, q->key);
            if (!strcmp(scalar_text(k0), scalar_text(k)))
                return sweep_fail(L, line_of(k), "%s: duplicate %s '%s' (first at line %d)", what,
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
        return sweep_fail(L, line_of(k), "%s: unknown parameter '%s'%s", where, key, hint);
    }
    if (need_axis && !(def->flags & RC_PF_AXIS))
        return sweep_fail(L, line_of(k),
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
    if (rc_param_set(&scratch, def, val, &e) != 0) return sweep_fail(L, line, "%s", e.msg);
    return 0;
}

static int take_value(loader *L, const rc_param_def *def, const yaml_node_t *v, const char *where,
                      kv *out)
{
    if (v->type != YAML_SCALAR_NODE)
        return sweep_fail(L, line_of(v), "%s: %s: expected a single value, got %s%s", where, def->name,
                    kind_name(v),
                    v->type == YAML_SEQUENCE_NODE ? " (lists of values belong under axes)" : "");
    if (is_null(v)) return sweep_fail(L, line_of(v), "%s: %s: missing value", where, def->name);
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
            return sweep_fail(L, line_of(k), "%s: seed: list seeds with the top-level 'seeds' key",
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

const kv *sweep_setting_find(const setting *s, const rc_param_def *def)
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
        return sweep_fail(L, line_of(v), "name: expected a short name like fig5, got %s",
                    is_null(v) ? "nothing" : kind_name(v));
    const char *s = scalar_text(v);
    size_t len = strlen(s);
    if (len == 0 || len > RC_SWEEP_NAME_MAX)
        return sweep_fail(L, line_of(v), "name: '%s' must have 1 to %d characters", s,
                    RC_SWEEP_NAME_MAX);
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.')
            return sweep_fail(L, line_of(v),
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
        return sweep_fail(L, line_of(v), "defaults: expected a mapping of parameter: value, got %s",
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
                return sweep_fail(L, d->set[i].line, "%s: value '%s' is listed twice (also at line %d)",
                            what, d->set[i].kv[0].val, d->set[j].line);
        }
    }
    return 0;
}

static int parse_axes(loader *L, const yaml_node_t *v)
{
    if (is_null(v)) return 0;
    if (v->type != YAML_MAPPING_NODE)
        return sweep_fail(L, line_of(v), "axes: expected a mapping of parameter: [values], got %s",
                    kind_name(v));
    int rc = check_mapping_keys(L, v, "axes", "axis");
    if (rc) return rc;
    for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
        const yaml_node_t *k = node(L, p->key), *list = node(L, p->value);
        const rc_param_def *def = NULL; /* set by find_param on success */
        if ((rc = find_param(L, k, "axes", true, &def))) return rc;
        if (!strcmp(def->name, "seed"))
            return sweep_fail(L, line_of(k), "axes: seed: list seeds with the top-level 'seeds' key");
        for (size_t i = 0; i < L->n_dims; i++)
            if (L->dims[i].def == def)
                return sweep_fail(L, line_of(k), "axes: duplicate axis '%s' (first at line %d)",
                            def->name, L->dims[i].line);
        if (list->type != YAML_SEQUENCE_NODE)
            return sweep_fail(L, line_of(k),
                        "axes: %s: an axis needs a list of values like [a, b], got %s%s%s%s",
                        def->name, kind_name(list), list->type == YAML_SCALAR_NODE ? " '" : "",
                        list->type == YAML_SCALAR_NODE ? scalar_text(list) : "",
                        list->type == YAML_SCALAR_NODE ? "' (put a fixed value under defaults)"
                                                       : "");
        size_t n = (size_t)(list->data.sequence.items.top - list->data.sequence.items.start);
        if (n == 0)
            return sweep_fail(L, line_of(k), "axes: %s: empty axis (it would make zero jobs)",
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
        return sweep_fail(L, line_of(v), "%s: expected a list of mappings like [{strategy: x, "
                    "lambda_div: 2}], got %s", what, kind_name(v));
    size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
    if (n == 0) return sweep_fail(L, line_of(k), "%s: empty list", what);
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
            rc = sweep_fail(L, line_of(e), "%s: expected a non-empty mapping of parameter: value, got %s",
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

/* seeds: {min: 5, max: 200, until: "p99 rel_halfwidth < 0.05", step: 5}: seeds 1..max,
 * run in rounds (exp/until.h).  Returns the count (max) or -1 after sweep_fail. */
static long parse_until(loader *L, const yaml_node_t *v)
{
    long got[3] = {0, 0, 0}; /* min, max, step */
    static const char *const names[3] = {"min", "max", "step"};
    const yaml_node_t *rule = NULL;
    for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
        const yaml_node_t *key = node(L, p->key), *val = node(L, p->value);
        if (key->type != YAML_SCALAR_NODE)
            return sweep_fail(L, line_of(key), "seeds: expected keys min, max, until, step"), -1;
        const char *name = scalar_text(key);
        if (val->type != YAML_SCALAR_NODE || is_null(val))
            return sweep_fail(L, line_of(val), "seeds: %s: expected a single value", name), -1;
        const char *s = scalar_text(val);
        if (!strcmp(name, "until")) {
            rule = val;
            continue;
        }
        int f = -1;
        for (int i = 0; i < 3; i++)
            if (!strcmp(name, names[i])) f = i;
        if (f < 0)
            return sweep_fail(L, line_of(key), "seeds: unknown key '%s' (expected min, max, "
                              "until, step)", name), -1;
        char *end;
        errno = 0;
        long n = strtol(s, &end, 10);
        if (end == s || *end != '\0' || errno != 0 || n < 1 || n > (long)RC_SWEEP_MAX_SEEDS)
            return sweep_fail(L, line_of(val), "seeds: %s: '%s' must be a count 1..%u", name, s,
                              RC_SWEEP_MAX_SEEDS), -1;
        got[f] = n;
    }
    if (rule == NULL)
        return sweep_fail(L, line_of(v), "seeds: a mapping needs 'until' (a rule like "
                          "\"p99 rel_halfwidth < 0.05\"), with 'min' and 'max'"), -1;
    for (int i = 0; i < 2; i++)
        if (got[i] == 0)
            return sweep_fail(L, line_of(v), "seeds: until needs '%s'", names[i]), -1;
    char why[300];
    if (rc_until_parse_rule(scalar_text(rule), &L->until, why, sizeof why) != 0)
        return sweep_fail(L, line_of(rule), "seeds: until: %s", why), -1;
    if (rc_until_set_counts(&L->until, got[0], got[1], got[2], "min", "max", why, sizeof why) != 0)
        return sweep_fail(L, line_of(v), "seeds: %s", why), -1;
    L->have_until = true;
    return got[1];
}

/* Seeds 1..n, as `seeds: n` makes them (line 0: from the command line). */
static void fill_seeds(loader *L, long n, int line)
{
    L->seeds.set = rc_xcalloc((size_t)n, sizeof *L->seeds.set);
    for (long i = 0; i < n; i++) {
        char buf[24];
        snprintf(buf, sizeof buf, "%ld", i + 1);
        setting *st = &L->seeds.set[L->seeds.n++];
        st->kv = rc_xcalloc(1, sizeof *st->kv);
        st->n = 1;
        st->line = line;
        st->kv[0] = (kv){L->seeds.def, own(L, rc_xstrdup(buf)), line};
    }
}

int sweep_seeds_until(loader *L, const rc_until *u)
{
    if (u->max > RC_SWEEP_MAX_SEEDS)
        return rc_err_set(L->err, RC_EXIT_USAGE, "--max-seeds: %u is more than %u seeds", u->max,
                          RC_SWEEP_MAX_SEEDS);
    free_dim(&L->seeds);
    memset(&L->seeds, 0, sizeof L->seeds);
    L->have_seeds = true;
    L->seeds.def = rc_param_find("seed");
    fill_seeds(L, (long)u->max, 0);
    L->until = *u;
    L->have_until = true;
    return 0;
}

static int parse_seeds(loader *L, const yaml_node_t *k, const yaml_node_t *v)
{
    const rc_param_def *seed = rc_param_find("seed");
    L->have_seeds = true;
    L->seeds.def = seed;
    L->seeds.line = line_of(k);
    if ((v->type == YAML_SCALAR_NODE && !is_null(v)) || v->type == YAML_MAPPING_NODE) {
        long n;
        if (v->type == YAML_MAPPING_NODE) {
            n = parse_until(L, v);
            if (n < 0) return RC_EXIT_USAGE;
        } else {
            const char *s = scalar_text(v);
            char *end;
            errno = 0;
            n = strtol(s, &end, 10);
            if (end == s || *end != '\0' || errno != 0 || n < 1 || n > (long)RC_SWEEP_MAX_SEEDS)
                return sweep_fail(L, line_of(v),
                            "seeds: '%s' must be a count 1..%u (seeds 1..N), a list like "
                            "[1, 7, 9] or {min, max, until}",
                            s, RC_SWEEP_MAX_SEEDS);
        }
        fill_seeds(L, n, line_of(v));
        return 0;
    }
    if (v->type != YAML_SEQUENCE_NODE)
        return sweep_fail(L, line_of(v), "seeds: expected a count or a list of seeds, got %s",
                    is_null(v) ? "nothing" : kind_name(v));
    size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
    if (n == 0) return sweep_fail(L, line_of(k), "seeds: empty list (it would make zero jobs)");
    if (n > RC_SWEEP_MAX_SEEDS)
        return sweep_fail(L, line_of(k), "seeds: more than %u seeds", RC_SWEEP_MAX_SEEDS);
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

int sweep_parse_root(loader *L, const yaml_node_t *root)
{
    if (root == NULL) return sweep_fail(L, 0, "empty sweep file (it needs at least 'name:')");
    if (root->type != YAML_MAPPING_NODE)
        return sweep_fail(L, line_of(root), "the sweep file must be a mapping with the keys %s; got %s",
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
                rc = sweep_fail(L, line_of(v), "description: expected text, got %s", kind_name(v));
            else L->description = scalar_text(v);
        } else if (!strcmp(key, "defaults")) rc = parse_defaults(L, v);
        else if (!strcmp(key, "axes")) rc = parse_axes(L, v);
        else if (!strcmp(key, "zip")) rc = parse_entries(L, k, v, true);
        else if (!strcmp(key, "include")) rc = parse_entries(L, k, v, false);
        else if (!strcmp(key, "seeds") || !strcmp(key, "seed")) {
            if (!strcmp(key, "seed"))
                rc = sweep_fail(L, line_of(k), "unknown top-level key 'seed' (did you mean 'seeds'?)");
            else rc = parse_seeds(L, k, v);
        } else if (rc_param_find(key) != NULL)
            rc = sweep_fail(L, line_of(k),
                      "unknown top-level key '%s': parameters go under 'defaults:' or 'axes:'",
                      key);
        else
            rc = sweep_fail(L, line_of(k), "unknown top-level key '%s' (expected %s)", key, top_keys);
        if (rc) return rc;
    }
    if (L->name == NULL) return sweep_fail(L, line_of(root), "missing required key 'name'");
    /* A key may be an axis or part of a zip group, not both. */
    for (size_t i = 0; i < L->n_dims; i++) {
        if (L->dims[i].def != NULL) continue;
        for (size_t e = 0; e < L->dims[i].n; e++)
            for (size_t j = 0; j < L->dims[i].set[e].n; j++) {
                const kv *x = &L->dims[i].set[e].kv[j];
                for (size_t a = 0; a < L->n_dims; a++)
                    if (L->dims[a].def == x->def)
                        return sweep_fail(L, x->line,
                                    "zip: duplicate axis '%s': it is already an axis at line %d",
                                    x->def->name, L->dims[a].line);
            }
    }
    if (L->have_seeds && L->defaults_seed_line > 0)
        return sweep_fail(L, L->defaults_seed_line,
                    "defaults: seed: the seeds are given by 'seeds' (line %d); use one of them",
                    L->seeds.line);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* --set overrides                                                           */

int sweep_parse_overrides(loader *L, const char *const *ov, size_t n)
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
            L->have_until = false;
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


/* Deepest nesting of mappings and sequences a sweep file may use.  The format
 * itself needs a handful (the document, axes, a zip or include list, an
 * entry, a value list); the limit leaves room for flow style.  libyaml takes time quadratic in the
 * depth (100k levels, a 200 kB file: 24 s), so depth is checked on the event
 * stream first, which stops at the first level too deep. */
#define SWEEP_MAX_DEPTH 16

static int check_depth(loader *L, const char *text, size_t len)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) return sweep_fail(L, 0, "cannot initialise the YAML parser");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    int depth = 0, rc = 0;
    for (;;) {
        yaml_event_t ev;
        /* A syntax error is reported by the full parse that follows. */
        if (!yaml_parser_parse(&parser, &ev)) break;
        yaml_event_type_t type = ev.type;
        int line = (int)ev.start_mark.line + 1;
        yaml_event_delete(&ev);
        if (type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT) {
            if (++depth > SWEEP_MAX_DEPTH) {
                rc = sweep_fail(L, line,
                                "YAML nested more than %d levels deep (a sweep file needs a "
                                "handful); refusing to parse it", SWEEP_MAX_DEPTH);
                break;
            }
        } else if (type == YAML_SEQUENCE_END_EVENT || type == YAML_MAPPING_END_EVENT) {
            depth--;
        } else if (type == YAML_STREAM_END_EVENT) {
            break;
        }
    }
    yaml_parser_delete(&parser);
    return rc;
}

int sweep_load_yaml(loader *L, const char *text, size_t len)
{
    int depth_rc = check_depth(L, text, len);
    if (depth_rc != 0) return depth_rc;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) return sweep_fail(L, 0, "cannot initialise the YAML parser");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    int rc = 0;
    if (!yaml_parser_load(&parser, &L->doc)) {
        const char *problem = parser.problem ? parser.problem : "malformed YAML";
        if (parser.context)
            rc = sweep_fail(L, (int)parser.problem_mark.line + 1,
                      "YAML syntax error: %s (%s at line %d)", problem, parser.context,
                      (int)parser.context_mark.line + 1);
        else
            rc = sweep_fail(L, (int)parser.problem_mark.line + 1, "YAML syntax error: %s", problem);
    } else {
        L->have_doc = true;
        /* A second document would be silently ignored; refuse it instead. */
        yaml_document_t extra;
        if (yaml_parser_load(&parser, &extra)) {
            bool more = yaml_document_get_root_node(&extra) != NULL;
            int line = more ? line_of(yaml_document_get_root_node(&extra)) : 0;
            yaml_document_delete(&extra);
            if (more) rc = sweep_fail(L, line, "a sweep file holds one YAML document; found another");
        } else {
            rc = sweep_fail(L, (int)parser.problem_mark.line + 1, "YAML syntax error: %s",
                      parser.problem ? parser.problem : "malformed YAML");
        }
    }
    yaml_parser_delete(&parser);
    return rc;
}

void sweep_loader_free(loader *L)
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
