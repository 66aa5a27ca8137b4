#include "multicast/strategy_name.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad(rc_err *err, const char *name, const char *why)
{
    return rc_err_set(err, RC_EXIT_USAGE,
                      "strategy: '%s' is not a strategy name (%s); expected unicast or "
                      "rc-kK-pP[-ft[M]][-dropoffline]",
                      name, why);
}

int rc_strategy_parse(const char *name, rc_strategy_spec *out, rc_err *err)
{
    rc_strategy_spec s = {.kind = RC_STRAT_UNICAST, .k = 1, .p = 1, .multiplier = 1.0};
    if (strcmp(name, "unicast") == 0) {
        *out = s;
        return 0;
    }
    const char *rest;
    if (strncmp(name, "rc-", 3) == 0) rest = name + 3;
    else if (strncmp(name, "rollercoaster-", 14) == 0) rest = name + 14;
    else return bad(err, name, "unknown prefix");
    s.kind = RC_STRAT_ROLLERCOASTER;

    char buf[128];
    if (strlen(rest) >= sizeof buf) return bad(err, name, "too long");
    strcpy(buf, rest);
    bool have_k = false, have_p = false, have_timeout_token = false;
    char *save = NULL;
    for (char *tok = strtok_r(buf, "-", &save); tok; tok = strtok_r(NULL, "-", &save)) {
        char *end;
        errno = 0;
        if (tok[0] == 'k' && !have_k) {
            long v = strtol(tok + 1, &end, 10);
            if (end == tok + 1 || *end || v < 1 || v > 4096)
                return bad(err, name, "k must be an integer >= 1");
            s.k = (int)v;
            have_k = true;
        } else if (tok[0] == 'p' && !have_p) {
            long v = strtol(tok + 1, &end, 10);
            if (end == tok + 1 || *end || v < 1 || v > 4096)
                return bad(err, name, "p must be an integer >= 1");
            s.p = (int)v;
            have_p = true;
        } else if (strncmp(tok, "ft", 2) == 0 && !have_timeout_token) {
            s.timeouts = true;
            have_timeout_token = true;
            if (tok[2] != '\0') {
                double m = strtod(tok + 2, &end);
                if (*end || !(m > 0) || m > 1000) return bad(err, name, "bad ft multiplier");
                s.multiplier = m;
            }
        } else if (strcmp(tok, "notimeout") == 0 && !have_timeout_token) {
            have_timeout_token = true;
        } else if (strncmp(tok, "timeout", 7) == 0 && !have_timeout_token) {
            size_t len = strlen(tok);
            if (len < 9 || tok[len - 1] != 'x') return bad(err, name, "timeoutNNx expected");
            long v = strtol(tok + 7, &end, 10);
            if (end != tok + len - 1 || v <= 0) return bad(err, name, "timeoutNNx expected");
            s.timeouts = true;
            s.multiplier = (double)v / 10.0;
            have_timeout_token = true;
        } else if (strcmp(tok, "dropoffline") == 0 && !s.drop_offline) {
            s.drop_offline = true;
        } else {
            return bad(err, name, "unexpected or repeated part");
        }
    }
    if (!have_k) return bad(err, name, "missing kK");
    *out = s;
    return 0;
}

void rc_strategy_format(const rc_strategy_spec *s, char *buf, unsigned n)
{
    if (s->kind == RC_STRAT_UNICAST) {
        snprintf(buf, n, "unicast");
        return;
    }
    char ft[32] = "";
    if (s->timeouts) {
        if (s->multiplier == 1.0) snprintf(ft, sizeof ft, "-ft");
        else snprintf(ft, sizeof ft, "-ft%g", s->multiplier);
    }
    snprintf(buf, n, "rc-k%d-p%d%s%s", s->k, s->p, ft, s->drop_offline ? "-dropoffline" : "");
}
