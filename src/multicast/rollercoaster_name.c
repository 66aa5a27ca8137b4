/* rollercoaster_name: the Rollercoaster family's row of the strategy table
 * (strategy_table.h): its name grammar, parameters, cost terms and help.
 *
 *   rc-kK-pP                     Rollercoaster, branching K, parallelism P, timeouts off
 *   rc-kK-pP-ft                  ... fault tolerant, timeout multiplier 1.0
 *   rc-kK-pP-ftM                 ... multiplier M (e.g. -ft1.5)
 *   ...-dropoffline              recipients that got a copy "offline" neither forward nor ACK
 *
 * The reference's long names are accepted too: rollercoaster-kK-pP[-notimeout|
 * -timeoutNNx][-dropoffline] (timeoutNNx = multiplier NN/10).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "multicast/mc.h"
#include "multicast/rollercoaster.h"

_Static_assert(sizeof(rc_rc_params) <= RC_STRATEGY_PARAMS_BYTES, "rc_rc_params too large");

#define AT(field) offsetof(rc_rc_params, field)
static const rc_strategy_param params[] = {
    {"k", RC_SP_INT, "branching factor of the schedule tree, 1..4096", AT(k)},
    {"p", RC_SP_INT, "parallelism: sub-messages per packet, 1..4096", AT(p)},
    {"ft", RC_SP_BOOL, "fault tolerant (RC-FT): ACKs, timeouts, reassignment", AT(timeouts)},
    {"multiplier", RC_SP_NUMBER, "RC-FT timeout multiplier, (0, 1000]", AT(multiplier)},
    {"dropoffline", RC_SP_BOOL, "members that got their copy offline neither forward nor ACK",
     AT(drop_offline)},
};
#undef AT

static const rc_msg_kind kinds[RC_RCM_COUNT] = {
    [RC_RCM_PAYLOAD] = {"payload", RC_MSG_COUNT_PAYLOAD, RC_MSG_ADV_FORWARD, true},
    [RC_RCM_ACK] = {"ack", RC_MSG_COUNT_ACK, RC_MSG_ADV_ACK, true},
};

static int bad(rc_err *err, const char *name, const char *why)
{
    return rc_err_set(err, RC_EXIT_USAGE,
                      "strategy: '%s' is not a strategy name (%s); expected "
                      "rc-kK-pP[-ft[M]][-dropoffline] (rcsim --help strategies)",
                      name, why);
}

void rc_rc_params_of(const rc_strategy_spec *s, rc_rc_params *out)
{
    rc_strategy_params_get(s, out, sizeof *out);
}

static int rc_parse(const char *name, rc_strategy_spec *out, rc_err *err)
{
    rc_rc_params s;
    memset(&s, 0, sizeof s); /* padding too: specs compare as bytes nowhere, but stay defined */
    s.k = 1;
    s.p = 1;
    s.multiplier = 1.0;
    const char *rest;
    if (strncmp(name, "rc-", 3) == 0) rest = name + 3;
    else if (strncmp(name, "rollercoaster-", 14) == 0) rest = name + 14;
    else return RC_STRATEGY_NOT_MINE;

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
    rc_strategy_params_set(out, &s, sizeof s);
    return 0;
}

static void rc_format(const rc_strategy_spec *spec, char *buf, size_t n)
{
    rc_rc_params s;
    rc_rc_params_of(spec, &s);
    char ft[32] = "";
    if (s.timeouts) {
        if (s.multiplier == 1.0) snprintf(ft, sizeof ft, "-ft");
        else snprintf(ft, sizeof ft, "-ft%g", s.multiplier);
    }
    snprintf(buf, n, "rc-k%d-p%d%s%s", s.k, s.p, ft, s.drop_offline ? "-dropoffline" : "");
}

/* Every recipient gets its copy and ACKs it (the ACKs cost about what the
 * copies cost); RC-FT arms one timeout per member and multicast. */
static void rc_cost(const rc_strategy_spec *spec, rc_strategy_cost *c)
{
    rc_rc_params s;
    rc_rc_params_of(spec, &s);
    c->client_copies_per_recipient = 2.0;
    c->timeouts_per_member = s.timeouts ? 1.0 : 0.0;
    c->p = s.p; /* P sub-messages per packet */
}

const rc_strategy_family rc_rollercoaster_family = {
    .family = "rc",
    .pattern = "rc-kK-pP[-ft[M]][-dropoffline]",
    .summary = "Rollercoaster, forwarding along a tree (§2.3)",
    .help =
        "  rc-kK-pP             Rollercoaster (docs/spec.md §2.3): the members form a\n"
        "                       schedule tree of branching factor K, and each recipient\n"
        "                       forwards to its children; P is the parallelism, the number\n"
        "                       of sub-messages one packet carries (-pP may be left out:\n"
        "                       P = 1).  No ACKs and no timeouts.  K, P: integers 1..4096\n"
        "  rc-kK-pP-ft          fault tolerant (RC-FT, docs/spec.md §2.4): recipients ACK,\n"
        "                       and a role whose ACK is late is reassigned; the timeout is\n"
        "                       the estimate times the multiplier 1.0\n"
        "  rc-kK-pP-ftM         RC-FT with timeout multiplier M, a number in (0, 1000]\n"
        "                       (rc-k2-p2-ft1.5)\n"
        "  ...-dropoffline      a member that received its copy while offline neither\n"
        "                       forwards nor ACKs it (under RC-FT the source reassigns\n"
        "                       its role); goes last: rc-k2-p2-ft-dropoffline\n"
        "  The reference simulator's names work too:\n"
        "    rollercoaster-kK-pP[-notimeout|-timeoutNNx][-dropoffline]\n"
        "  with timeoutNNx = RC-FT with multiplier NN/10, e.g.\n"
        "    rollercoaster-k2-p2-timeout10x-dropoffline = rc-k2-p2-ft-dropoffline.\n"
        "  Related parameters: --rc-base-delay-factor (the RC-FT timeout estimate) and\n"
        "  the quirks --q-arm-once, --q-acks-always, --q-nonce0-plain, --q-nonce-perm.\n",
    .params = params,
    .n_params = sizeof params / sizeof params[0],
    .params_size = sizeof(rc_rc_params),
    .parse = rc_parse,
    .format = rc_format,
    .cost = rc_cost,
    .ops = &rc_rollercoaster_ops,
    .msg_kinds = kinds,
    .n_msg_kinds = RC_RCM_COUNT,
};
