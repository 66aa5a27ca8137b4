/* core/vec.h: the typed growable array. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/vec.h"

RC_VEC_DEFINE(u32s, uint32_t, 4)

typedef struct pair {
    uint64_t a;
    double b;
} pair;
RC_VEC_DEFINE(pairs, pair, 1)

Test(vec, keeps_every_pushed_value_in_order_across_growth)
{
    u32s a = {0};
    for (uint32_t i = 0; i < 10000; i++) u32s_push(&a, i * 3u + 1u);
    cr_assert_eq(a.n, 10000);
    cr_assert_geq(a.cap, a.n);
    for (uint32_t i = 0; i < 10000; i++)
        cr_assert_eq(a.v[i], i * 3u + 1u, "element %u is %u", i, a.v[i]);
    u32s_free(&a);
    cr_assert_null(a.v);
    cr_assert_eq(a.n, 0);
    cr_assert_eq(a.cap, 0);
}

Test(vec, starts_at_its_first_capacity_and_doubles)
{
    u32s a = {0};
    u32s_push(&a, 1);
    cr_assert_eq(a.cap, 4);
    for (int i = 0; i < 4; i++) u32s_push(&a, 2);
    cr_assert_eq(a.cap, 8);
    u32s_free(&a);
}

Test(vec, reuses_its_storage_after_n_is_reset)
{
    pairs p = {0};
    for (int i = 0; i < 100; i++) pairs_push(&p, (pair){(uint64_t)i, i / 2.0});
    pair *storage = p.v;
    size_t cap = p.cap;
    p.n = 0;
    for (int i = 0; i < 100; i++) *pairs_push_slot(&p) = (pair){(uint64_t)(99 - i), 0.0};
    cr_assert_eq(p.v, storage, "storage moved without growth");
    cr_assert_eq(p.cap, cap);
    cr_assert_eq(p.v[0].a, 99);
    cr_assert_eq(p.v[99].a, 0);
    pairs_free(&p);
}

/* A size that overflows aborts (the rc_xmalloc policy), never wraps. */
Test(vec, aborts_when_the_size_would_overflow)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        size_t cap = SIZE_MAX / 2 + 1;
        rc_vec_grow(NULL, &cap, 2, 1);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    cr_assert(WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) != 0),
              "growing past SIZE_MAX returned");
}
