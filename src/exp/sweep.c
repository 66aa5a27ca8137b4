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
 *
 * This file expands and owns the sweep; reading the YAML is sweep_yaml.c,
 * binding the jobs to their traces sweep_bind.c (shared: exp/sweep_internal.h).
 */
#include "exp/sweep_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

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
    if (sweep_setting_find(&L->overrides, def)) return 0;
    for (size_t i = n; i-- > 0;) {
        const kv *x = sweep_setting_find(set[i], def);
        if (x) return x->line;
    }
    const kv *x = sweep_setting_find(&L->defaults, def);
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
    /* group_size defaults to the population: when users is what makes it sweep_fail, point there. */
    if (line < 0 && key != NULL && !strcmp(key->name, "group_size"))
        line = origin_line(L, set, n, rc_param_find("users"));
    char desc[600];
    describe(set, n, desc, sizeof desc);
    const char *src = line == 0 ? " (from --set)" : "";
    return sweep_fail(L, line > 0 ? line : 0, "%s%s [job %zu of %zu%s%s]", e.msg, src, idx + 1,
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
    return sweep_fail(L, line,
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
int sweep_hash_ids(rc_sweep *S, size_t *a, size_t *b)
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
            return sweep_fail(L, L->dims[d].line, "the axes make more than %u jobs", RC_SWEEP_MAX_JOBS);
        P.n_prod *= L->dims[d].n;
    }
    if (P.n_prod > RC_SWEEP_MAX_JOBS / P.n_seed)
        return sweep_fail(L, L->seeds.line, "the axes times the seeds make more than %u jobs",
                    RC_SWEEP_MAX_JOBS);
    P.n_total = P.n_prod * P.n_seed;
    for (size_t i = 0; i < L->n_incl; i++) P.n_total += incl_has_seed(&L->incl[i]) ? 1 : P.n_seed;
    if (P.n_total > RC_SWEEP_MAX_JOBS)
        return sweep_fail(L, 0, "the sweep makes more than %u jobs", RC_SWEEP_MAX_JOBS);

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
    if (sweep_hash_ids(S, &a, &b)) return report_duplicate(L, &P, a, b, S->ids[b]);

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



rc_sweep *rc_sweep_load(const char *path, const char *const *overrides, size_t n_overrides,
                        rc_err *err)
{
    return rc_sweep_load_until(path, overrides, n_overrides, NULL, err);
}

rc_sweep *rc_sweep_load_until(const char *path, const char *const *overrides,
                              size_t n_overrides, const struct rc_until *until, rc_err *err)
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
    int rc = sweep_load_yaml(&L, text, len);
    if (rc == 0) rc = sweep_parse_root(&L, yaml_document_get_root_node(&L.doc));
    if (rc == 0) rc = sweep_parse_overrides(&L, overrides, n_overrides);
    if (rc == 0 && until != NULL) rc = sweep_seeds_until(&L, until);
    if (rc == 0) rc = expand(&L, S);
    if (rc == 0) {
        S->name = rc_xstrdup(L.name);
        S->path = rc_xstrdup(path);
        S->description = rc_xstrdup(L.description ? L.description : "");
        S->have_until = L.have_until;
        S->until = L.until;
    }
    sweep_loader_free(&L);
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
const struct rc_until *rc_sweep_until(const rc_sweep *s) { return s->have_until ? &s->until : NULL; }
const char *rc_sweep_path(const rc_sweep *s) { return s->path; }
const char *rc_sweep_text(const rc_sweep *s) { return s->text; }

typedef struct text_buf {
    char *p;
    size_t n, cap;
} text_buf;

static void tb_add(text_buf *b, const char *s)
{
    size_t l = strlen(s);
    if (b->n + l + 1 > b->cap) {
        b->cap = (b->n + l + 1) * 2;
        b->p = rc_xrealloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, s, l + 1);
    b->n += l;
}

char *rc_sweep_effective(const rc_sweep *s)
{
    size_t np, n = s->n;
    const rc_param_def *t = rc_param_table(&np);
    text_buf varying = {0}, fixed = {0}, out = {0};
    tb_add(&varying, "");
    tb_add(&fixed, "");
    char **seen = rc_xcalloc(n ? n : 1, sizeof *seen);
    for (size_t p = 0; p < np; p++) {
        if (!(t[p].flags & (RC_PF_CANON | RC_PF_STORED))) continue;
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            char v[300];
            rc_param_format(&s->jobs[i], &t[p], v, sizeof v);
            bool dup = false;
            for (size_t j = 0; j < k && !dup; j++) dup = !strcmp(seen[j], v);
            if (!dup) seen[k++] = rc_xstrdup(v);
            if (k > 64) break; /* enough to show; the count says the rest */
        }
        char line[1024];
        if (k == 1) {
            rc_job d = s->jobs[0];
            char def[300];
            rc_param_set(&d, &t[p], t[p].def, NULL);
            rc_param_format(&d, &t[p], def, sizeof def);
            if (strcmp(def, seen[0]) != 0 || !strcmp(t[p].name, "seed")) {
                snprintf(line, sizeof line, "  %s: %s\n", t[p].name, seen[0]);
                tb_add(&fixed, line);
            }
        } else if (k > 1) {
            snprintf(line, sizeof line, "  %s:", t[p].name);
            tb_add(&varying, line);
            for (size_t j = 0; j < k && j < 64; j++) {
                snprintf(line, sizeof line, "%s %s", j ? "," : "", seen[j]);
                tb_add(&varying, line);
            }
            tb_add(&varying, k > 64 ? ", ...\n" : "\n");
        }
        for (size_t j = 0; j < k; j++) free(seen[j]);
    }
    free(seen);
    char head[600];
    snprintf(head, sizeof head, "sweep: %s\njobs: %zu\nvarying between jobs:\n", s->name, n);
    tb_add(&out, head);
    tb_add(&out, varying.p);
    tb_add(&out, "the same in every job (not the default):\n");
    tb_add(&out, fixed.p);
    free(varying.p);
    free(fixed.p);
    return out.p;
}
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
