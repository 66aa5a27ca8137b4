/* bodies: message bodies and handles (bodies.h). */
#include "multicast/bodies.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "multicast/poptab.h"

void rc_bodies_init(rc_bodies *b, rc_poptab *pt, const rc_msg_kinds *kinds)
{
    memset(b, 0, sizeof *b);
    b->free_head = UINT32_MAX;
    b->pt = pt;
    b->kinds = kinds;
}

void rc_bodies_free(rc_bodies *b)
{
    free(b->v);
    b->v = NULL;
}

uint32_t rc_bodies_new(rc_bodies *b, const rc_msg *m)
{
    uint32_t i;
    if (b->free_head != UINT32_MAX) {
        i = b->free_head;
        memcpy(&b->free_head, &b->v[i], sizeof b->free_head);
    } else {
        if (b->n == b->cap) {
            RC_ASSERTF(b->cap < RC_BODY_COMPACT / 2, "%u message bodies in flight", b->n);
            b->cap = b->cap ? b->cap * 2 : 4096;
            b->v = rc_xrealloc(b->v, b->cap * sizeof *b->v);
        }
        i = b->n++;
    }
    b->v[i] = *m;
    if (b->pt && rc_msg_kind_of(b->kinds, m->type)->payload) rc_poptab_ref(b->pt, m->payload);
    return i;
}

uint32_t rc_bodies_for_send(rc_bodies *b, const rc_msg *m)
{
    if (!b->compact || m->type != b->compact_type || m->arm != 0 || m->extra != 0 ||
        m->nonce != 0 || m->aux != 0 || m->t != 0 || m->sender != m->source ||
        m->payload >= RC_BODY_COMPACT)
        return rc_bodies_new(b, m);
    uint32_t g = rc_poptab_payload_group(b->pt, m->payload);
    if (m->group != g || m->source != rc_poptab_payload_source(b->pt, m->payload) ||
        m->role >= rc_poptab_size(b->pt, g) || rc_poptab_members(b->pt, g)[m->role] != m->recipient)
        return rc_bodies_new(b, m);
    rc_poptab_ref(b->pt, m->payload);
    return RC_BODY_COMPACT | m->payload;
}

/* A member is at one position of its group, so role is the one it was sent with. */
rc_msg rc_bodies_msg(const rc_bodies *b, uint32_t body, uint32_t recipient)
{
    if (!rc_bodies_is_compact(body)) return b->v[body];
    uint32_t p = body & ~RC_BODY_COMPACT, g = rc_poptab_payload_group(b->pt, p);
    uint32_t source = rc_poptab_payload_source(b->pt, p);
    int32_t role = rc_poptab_pos(b->pt, g, recipient);
    RC_DCHECK(role >= 0, "user %u got payload %u of group %u it is not in", recipient, p, g);
    return (rc_msg){.type = b->compact_type, .group = g, .source = source, .role = (uint32_t)role,
                    .sender = source, .recipient = recipient, .payload = p};
}

void rc_bodies_release(rc_bodies *b, uint32_t body)
{
    if (rc_bodies_is_compact(body)) return;
    /* the link to the next free body is kept in the freed body itself: taking
     * a body then reads only the line it writes */
    memcpy(&b->v[body], &b->free_head, sizeof b->free_head);
    b->free_head = body;
}

void rc_bodies_prefetch(const rc_bodies *b, uint32_t body, unsigned stage)
{
    /* No body: for a pull, the payload record, then its delivered set; nothing
     * for a send (the sent hook reads neither). */
    if (rc_bodies_is_compact(body)) {
        if (stage == 1) rc_poptab_prefetch_payload(b->pt, body & ~RC_BODY_COMPACT);
        else if (stage == 0) rc_poptab_prefetch_delivered(b->pt, body & ~RC_BODY_COMPACT);
        return;
    }
    if (stage > 0) {
        __builtin_prefetch(&b->v[body]);
    } else if (b->pt) { /* the payload's record, which rc_poptab_deliver updates */
        const rc_msg *m = &b->v[body];
        if (rc_msg_kind_of(b->kinds, m->type)->payload) rc_poptab_prefetch_payload(b->pt, m->payload);
    }
}
