/* linkmap: the link latency file's parser (loopix/linkmap.h). */
#include "loopix/linkmap.h"

#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

enum { MAX_FIELDS = 8, MAX_REGIONS = 256 };

static int region_of(const rc_linkmap *m, const char *name)
{
    for (uint32_t r = 0; r < m->n_regions; r++)
        if (!strcmp(m->names[r], name)) return (int)r;
    return -1;
}

/* Splits line (modified) at commas into at most MAX_FIELDS trimmed fields. */
static int split(char *line, char **f)
{
    int n = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t') p++;
        f[n++] = p;
        char *c = strchr(p, ',');
        char *end = c ? c : p + strlen(p);
        while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r' || end[-1] == '\n'))
            end--;
        if (c == NULL) {
            *end = '\0';
            return n;
        }
        *end = '\0';
        p = c + 1;
        if (n == MAX_FIELDS) return n + 1; /* too many */
    }
}

static int need_fields(const char *path, int line, const char *what, int got, int want,
                       rc_err *err)
{
    if (got == want) return 0;
    return rc_err_set(err, RC_EXIT_USAGE, "%s:%d: '%s' takes %d fields, found %d", path, line,
                      what, want, got);
}

static int parse_index(const char *path, int line, int field, const char *s, uint32_t *out,
                       rc_err *err)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (*s == '\0' || *s == '-' || *end != '\0' || errno || v > UINT32_MAX - 1)
        return rc_err_set(err, RC_EXIT_USAGE, "%s:%d: field %d (index): '%s' is not an index",
                          path, line, field, s);
    *out = (uint32_t)v;
    return 0;
}

static int known_region(const rc_linkmap *m, int line, int field, const char *s, uint32_t *out,
                        rc_err *err)
{
    int r = region_of(m, s);
    if (r < 0)
        return rc_err_set(err, RC_EXIT_USAGE,
                          "%s:%d: field %d (region): '%s' is not a declared region", m->path,
                          line, field, s);
    *out = (uint32_t)r;
    return 0;
}

static int parse_line(rc_linkmap *m, bool *given, int line, char *text, rc_err *err)
{
    char *hash = strchr(text, '#');
    if (hash) *hash = '\0';
    char *f[MAX_FIELDS + 1];
    int nf = split(text, f);
    if (nf == 1 && f[0][0] == '\0') return 0; /* blank */
    const char *path = m->path;
    if (!strcmp(f[0], "region")) {
        int rc = need_fields(path, line, "region", nf, 2, err);
        if (rc) return rc;
        if (f[1][0] == '\0' || strlen(f[1]) >= sizeof m->names[0])
            return rc_err_set(err, RC_EXIT_USAGE,
                              "%s:%d: field 2 (name): '%s' must be 1 to %zu characters", path,
                              line, f[1], sizeof m->names[0] - 1);
        if (region_of(m, f[1]) >= 0)
            return rc_err_set(err, RC_EXIT_USAGE, "%s:%d: field 2 (name): region '%s' declared twice",
                              path, line, f[1]);
        if (m->n_regions == MAX_REGIONS)
            return rc_err_set(err, RC_EXIT_USAGE, "%s:%d: more than %d regions", path, line,
                              MAX_REGIONS);
        strcpy(m->names[m->n_regions++], f[1]);
        return 0;
    }
    if (!strcmp(f[0], "latency")) {
        int rc = need_fields(path, line, "latency", nf, 4, err);
        uint32_t a, b;
        if (!rc) rc = known_region(m, line, 2, f[1], &a, err);
        if (!rc) rc = known_region(m, line, 3, f[2], &b, err);
        if (rc) return rc;
        char *end;
        errno = 0;
        double ms = strtod(f[3], &end);
        if (f[3][0] == '\0' || *end != '\0' || errno || !isfinite(ms) || ms < 0 || ms > 1e6)
            return rc_err_set(err, RC_EXIT_USAGE,
                              "%s:%d: field 4 (ms): '%s' must be a number of milliseconds in "
                              "[0, 1e6]",
                              path, line, f[3]);
        if (given[a * MAX_REGIONS + b])
            return rc_err_set(err, RC_EXIT_USAGE, "%s:%d: latency %s,%s given twice", path, line,
                              f[1], f[2]);
        given[a * MAX_REGIONS + b] = true;
        m->lat_s[a * MAX_REGIONS + b] = ms / 1e3;
        return 0;
    }
    if (!strcmp(f[0], "place")) {
        int rc = need_fields(path, line, "place", nf, 4, err);
        if (rc) return rc;
        int kind;
        if (!strcmp(f[1], "provider")) kind = RC_LINKMAP_PROVIDER;
        else if (!strcmp(f[1], "mix")) kind = RC_LINKMAP_MIX;
        else
            return rc_err_set(err, RC_EXIT_USAGE,
                              "%s:%d: field 2 (kind): '%s' must be provider or mix", path, line,
                              f[1]);
        rc_linkmap_place pl = {kind, 0, 0, line};
        rc = parse_index(path, line, 3, f[2], &pl.index, err);
        if (!rc) rc = known_region(m, line, 4, f[3], &pl.region, err);
        if (rc) return rc;
        for (uint32_t i = 0; i < m->n_place; i++)
            if (m->place[i].kind == kind && m->place[i].index == pl.index)
                return rc_err_set(err, RC_EXIT_USAGE, "%s:%d: %s %u placed twice (line %d)", path,
                                  line, f[1], pl.index, m->place[i].line);
        m->place = rc_xrealloc(m->place, (m->n_place + 1) * sizeof *m->place);
        m->place[m->n_place++] = pl;
        return 0;
    }
    return rc_err_set(err, RC_EXIT_USAGE,
                      "%s:%d: field 1 (record): '%s' must be region, latency or place", path,
                      line, f[0]);
}

rc_linkmap *rc_linkmap_load(const char *path, rc_err *err)
{
    FILE *fp = fopen(path, "r");
    if (fp == NULL) {
        rc_err_set(err, RC_EXIT_USAGE, "link_latency_file: cannot open '%s': %s", path,
                   strerror(errno));
        return NULL;
    }
    rc_linkmap *m = rc_xcalloc(1, sizeof *m);
    snprintf(m->path, sizeof m->path, "%s", path);
    m->names = rc_xcalloc(MAX_REGIONS, sizeof *m->names);
    /* parsed into a MAX_REGIONS-wide square, compacted at the end */
    double *wide = rc_xcalloc((size_t)MAX_REGIONS * MAX_REGIONS, sizeof *wide);
    bool *given = rc_xcalloc((size_t)MAX_REGIONS * MAX_REGIONS, sizeof *given);
    m->lat_s = wide;
    char buf[1024];
    int line = 0, rc = 0;
    while (!rc && fgets(buf, sizeof buf, fp)) {
        line++;
        if (strchr(buf, '\n') == NULL && !feof(fp))
            rc = rc_err_set(err, RC_EXIT_USAGE, "%s:%d: line longer than %zu characters", path,
                            line, sizeof buf - 2);
        else rc = parse_line(m, given, line, buf, err);
    }
    fclose(fp);
    uint32_t R = m->n_regions;
    if (!rc && R == 0) rc = rc_err_set(err, RC_EXIT_USAGE, "%s: declares no region", path);
    for (uint32_t a = 0; !rc && a < R; a++)
        for (uint32_t b = 0; !rc && b < R; b++) {
            if (given[a * MAX_REGIONS + b]) continue;
            if (given[b * MAX_REGIONS + a]) {
                wide[a * MAX_REGIONS + b] = wide[b * MAX_REGIONS + a];
                continue;
            }
            rc = rc_err_set(err, RC_EXIT_USAGE, "%s: no latency between regions %s and %s "
                                                "(a line 'latency,%s,%s,MS')",
                            path, m->names[a], m->names[b], m->names[a], m->names[b]);
        }
    free(given);
    if (rc) {
        rc_linkmap_free(m);
        return NULL;
    }
    m->lat_s = rc_xcalloc((size_t)R * R, sizeof *m->lat_s);
    for (uint32_t a = 0; a < R; a++)
        for (uint32_t b = 0; b < R; b++) m->lat_s[a * R + b] = wide[a * MAX_REGIONS + b];
    free(wide);
    return m;
}

int rc_linkmap_check(const rc_linkmap *m, uint32_t providers, uint32_t mixes, rc_err *err)
{
    for (uint32_t i = 0; i < m->n_place; i++) {
        const rc_linkmap_place *p = &m->place[i];
        uint32_t n = p->kind == RC_LINKMAP_PROVIDER ? providers : mixes;
        if (p->index >= n)
            return rc_err_set(err, RC_EXIT_USAGE,
                              "%s:%d: field 3 (index): %s %u, but the network has %u", m->path,
                              p->line, p->kind == RC_LINKMAP_PROVIDER ? "provider" : "mix",
                              p->index, n);
    }
    return 0;
}

uint32_t rc_linkmap_region(const rc_linkmap *m, int kind, uint32_t index)
{
    for (uint32_t i = 0; i < m->n_place; i++)
        if (m->place[i].kind == kind && m->place[i].index == index) return m->place[i].region;
    return index % m->n_regions;
}

void rc_linkmap_free(rc_linkmap *m)
{
    if (m == NULL) return;
    free(m->names);
    free(m->lat_s);
    free(m->place);
    free(m);
}
