#include "multicast/adversary.h"

#include <math.h>
#include <stdlib.h>

#include "core/log.h"
#include "core/rng.h"
#include "multicast/mc.h"

enum { STREAM_ADVERSARY = 40 };

struct rc_adv {
    rc_adv_kind kind;
    rc_time delay;
    uint32_t users;
    uint8_t *is;              /* bitset over users */
    rc_adv_counters c;
    /* the delivery being handled: who, and how many of its forwards were withheld */
    uint32_t in_user;
    bool in_receive;
    uint64_t in_withheld;
};

rc_adv *rc_adv_new(const rc_adv_cfg *cfg)
{
    if (cfg->kind == RC_ADV_NONE) return NULL;
    rc_adv *a = rc_xcalloc(1, sizeof *a);
    a->kind = cfg->kind;
    a->delay = cfg->delay;
    a->users = cfg->users;
    a->is = rc_xcalloc((cfg->users + 7) / 8, 1);
    uint32_t want = (uint32_t)llround(cfg->fraction * cfg->users);
    if (want > cfg->users) want = cfg->users;
    /* A partial Fisher-Yates shuffle of the users on the adversary's own
     * stream: the first `want` users of the shuffled order misbehave. */
    gsl_rng *r = rc_rng_new(cfg->seed, STREAM_ADVERSARY);
    uint32_t *perm = rc_xmalloc((cfg->users ? cfg->users : 1) * sizeof(uint32_t));
    for (uint32_t i = 0; i < cfg->users; i++) perm[i] = i;
    for (uint32_t i = 0; i < want; i++) {
        uint32_t j = i + rc_rng_below(r, cfg->users - i);
        uint32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
        a->is[perm[i] / 8] |= (uint8_t)(1u << (perm[i] % 8));
    }
    free(perm);
    rc_rng_free(r);
    a->c.members = want;
    return a;
}

void rc_adv_free(rc_adv *a)
{
    if (a == NULL) return;
    free(a->is);
    free(a);
}

bool rc_adv_is(const rc_adv *a, uint32_t user)
{
    return a != NULL && user < a->users && ((a->is[user / 8] >> (user % 8)) & 1);
}

rc_time rc_adv_delay(const rc_adv *a) { return a ? a->delay : 0; }

void rc_adv_receive_begin(rc_adv *a, uint32_t user)
{
    if (a == NULL) return;
    a->in_receive = true;
    a->in_user = user;
    a->in_withheld = 0;
}

void rc_adv_receive_end(rc_adv *a)
{
    if (a != NULL) a->in_receive = false;
}

rc_adv_verdict rc_adv_verdict_for(rc_adv *a, uint32_t from, const rc_msg *m, rc_msg_adv role)
{
    if (!rc_adv_is(a, from)) return RC_ADV_PASS;
    bool forward;
    switch (role) {
    case RC_MSG_ADV_FORWARD:
        /* A copy of someone else's message; its own multicasts are honest. */
        if (m->source == from) return RC_ADV_PASS;
        forward = true;
        break;
    case RC_MSG_ADV_ACK:
        forward = false;
        break;
    default:
        return RC_ADV_PASS; /* e.g. digests ask for messages; they are not a service to others */
    }
    switch (a->kind) {
    case RC_ADV_DROP:
        if (forward) a->c.withheld++;
        else a->c.acks_withheld++;
        return RC_ADV_WITHHOLD;
    case RC_ADV_ACK_DROP:
        if (forward) {
            a->c.withheld++;
            if (a->in_receive && a->in_user == from) a->in_withheld++;
            return RC_ADV_WITHHOLD;
        }
        /* The ACK follows the forwards of the same copy (docs/spec.md §2.3.4). */
        if (a->in_receive && a->in_user == from && a->in_withheld > 0) a->c.acks_faked++;
        return RC_ADV_PASS;
    case RC_ADV_DELAY:
        a->c.delayed++;
        return RC_ADV_HOLD;
    case RC_ADV_NONE: break;
    }
    return RC_ADV_PASS;
}

void rc_adv_counts(const rc_adv *a, rc_adv_counters *out)
{
    if (a == NULL) {
        *out = (rc_adv_counters){0};
        return;
    }
    *out = a->c;
}
