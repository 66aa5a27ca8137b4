/* server: a FIFO single server with drop-tail (loopix/server.h). */
#include "loopix/server.h"

#include <stdlib.h>

#include "core/log.h"

bool rc_server_arrive(rc_server *s, rc_time now, rc_time service, uint32_t limit,
                      rc_time *start, rc_time *leave, uint32_t *held)
{
    /* the packets that left by now are gone (a packet leaving at `now` has left) */
    while (s->n > 0 && s->dep[s->head] <= now) {
        s->head = (s->head + 1) & (s->cap - 1);
        s->n--;
    }
    if (held != NULL) *held = s->n;
    if (limit > 0 && s->n >= limit) return false;
    if (s->n == s->cap) {
        uint32_t ncap = s->cap ? s->cap * 2 : 16;
        rc_time *a = rc_xmalloc(ncap * sizeof *a);
        for (uint32_t i = 0; i < s->n; i++) a[i] = s->dep[(s->head + i) & (s->cap - 1)];
        free(s->dep);
        s->dep = a;
        s->cap = ncap;
        s->head = 0;
    }
    rc_time st = s->busy_until > now ? s->busy_until : now;
    s->busy_until = st + service;
    s->dep[(s->head + s->n) & (s->cap - 1)] = s->busy_until;
    s->n++;
    *start = st;
    *leave = s->busy_until;
    return true;
}

void rc_server_free(rc_server *s)
{
    free(s->dep);
    *s = (rc_server){0};
}
