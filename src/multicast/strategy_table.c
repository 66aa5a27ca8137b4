/* strategy_table: the table of strategy families (strategy_table.h).  Each
 * family is defined in its own file as rc_<name>_family; adding one is one
 * X(...) row here (docs/extending.md). */
#include "multicast/strategy_table.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"

#define FAMILIES(X)    \
    X(unicast)         \
    X(rollercoaster)   \
    X(provider_fanout) \
    /* a new family: one line above this one */

#define DECLARE(name) extern const rc_strategy_family rc_##name##_family;
FAMILIES(DECLARE)
#undef DECLARE

#define ROW(name) &rc_##name##_family,
static const rc_strategy_family *const table[] = {FAMILIES(ROW)};
#undef ROW

const rc_strategy_family *const *rc_strategy_families(size_t *n)
{
    *n = sizeof table / sizeof table[0];
    return table;
}

const rc_strategy_family *rc_strategy_family_find(const char *family)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i]->family, family) == 0) return table[i];
    return NULL;
}

int rc_strategy_parse(const char *name, rc_strategy_spec *out, rc_err *err)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        rc_strategy_spec s;
        memset(&s, 0, sizeof s);
        s.family = table[i];
        int rc = table[i]->parse(name, &s, err);
        if (rc == RC_STRATEGY_NOT_MINE) continue;
        if (rc == 0) *out = s;
        return rc;
    }
    char patterns[512] = "";
    size_t used = 0;
    for (size_t i = 0; i < sizeof table / sizeof table[0] && used < sizeof patterns; i++)
        used += (size_t)snprintf(patterns + used, sizeof patterns - used, "%s%s", i ? " | " : "",
                                 table[i]->pattern);
    return rc_err_set(err, RC_EXIT_USAGE,
                      "strategy: '%s' is not a strategy name (unknown family); expected %s "
                      "(rcsim --help strategies)",
                      name, patterns);
}

void rc_strategy_format(const rc_strategy_spec *s, char *buf, size_t n)
{
    s->family->format(s, buf, n);
}

void rc_strategy_params_set(rc_strategy_spec *s, const void *params, size_t n)
{
    RC_ASSERT(n <= sizeof s->params.bytes);
    memcpy(s->params.bytes, params, n);
}

void rc_strategy_params_get(const rc_strategy_spec *s, void *params, size_t n)
{
    RC_ASSERT(n <= sizeof s->params.bytes);
    memcpy(params, s->params.bytes, n);
}

double rc_strategy_param_value(const rc_strategy_spec *s, const char *name)
{
    for (size_t i = 0; i < s->family->n_params; i++) {
        const rc_strategy_param *p = &s->family->params[i];
        if (strcmp(p->name, name) != 0) continue;
        const unsigned char *at = s->params.bytes + p->offset;
        switch (p->type) {
        case RC_SP_INT: {
            int v;
            memcpy(&v, at, sizeof v);
            return v;
        }
        case RC_SP_BOOL: {
            bool v;
            memcpy(&v, at, sizeof v);
            return v ? 1.0 : 0.0;
        }
        case RC_SP_NUMBER: {
            double v;
            memcpy(&v, at, sizeof v);
            return v;
        }
        }
    }
    return NAN;
}

void rc_strategy_cost_of(const rc_strategy_spec *s, rc_strategy_cost *out)
{
    memset(out, 0, sizeof *out);
    out->p = 1;
    s->family->cost(s, out);
}

int rc_strategy_split(const rc_strategy_spec *s)
{
    rc_strategy_cost c;
    rc_strategy_cost_of(s, &c);
    return c.p;
}
