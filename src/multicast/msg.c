/* msg: the table of message kinds of one job (msg.h). */
#include "multicast/msg.h"

#include "core/log.h"

void rc_msg_kinds_init(rc_msg_kinds *k)
{
    for (int t = 0; t < RC_MSG_KINDS_MAX; t++) {
        k->of[t] = NULL;
        k->service[t] = -1;
    }
}

void rc_msg_kinds_add(rc_msg_kinds *k, unsigned first, const rc_msg_kind *kinds, size_t n,
                      int service)
{
    unsigned lo = service < 0 ? 0 : RC_MSG_SERVICE_FIRST;
    unsigned hi = service < 0 ? RC_MSG_SERVICE_FIRST : RC_MSG_KINDS_MAX;
    RC_ASSERTF(first >= lo && first + n <= hi, "message kinds %u..%zu outside %u..%u", first,
               first + n, lo, hi - 1);
    for (size_t i = 0; i < n; i++) {
        RC_ASSERTF(k->of[first + i] == NULL, "message kind %zu (%s) declared twice", first + i,
                   kinds[i].name);
        k->of[first + i] = &kinds[i];
        k->service[first + i] = (int8_t)service;
    }
}

void rc_msg_kinds_check(const rc_msg_kinds *k, uint8_t t)
{
    RC_ASSERTF(k->of[t] != NULL, "a message of kind %u, which nobody declared", t);
}
