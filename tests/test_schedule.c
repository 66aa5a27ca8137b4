/* Rollercoaster schedules against hand-worked examples (docs/spec.md §2.3.2). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "core/pyrandom.h"
#include "multicast/schedule.h"

static void expect_children(uint32_t n, uint32_t k, uint32_t r, const uint32_t *want, size_t nw)
{
    uint32_t got[64];
    size_t m = rc_sched_children(n, k, r, got, 64);
    cr_assert_eq(m, nw, "n=%u k=%u children of %u: %zu, want %zu", n, k, r, m, nw);
    for (size_t i = 0; i < nw; i++)
        cr_assert_eq(got[i], want[i], "n=%u k=%u child %zu of %u: %u want %u", n, k, i, r, got[i],
                     want[i]);
}

Test(schedule, reference_vectors_seven_users)
{
    /* k=1: [(0,1)], [(0,2),(1,3)], [(0,4),(1,5),(2,6)] */
    uint32_t pairs[16][2];
    cr_assert_eq(rc_sched_rounds(7, 1), 3);
    size_t m = rc_sched_round_pairs(7, 1, 0, pairs, 16);
    cr_assert_eq(m, 1);
    cr_assert(pairs[0][0] == 0 && pairs[0][1] == 1);
    m = rc_sched_round_pairs(7, 1, 1, pairs, 16);
    cr_assert(m == 2 && pairs[0][0] == 0 && pairs[0][1] == 2 && pairs[1][0] == 1 &&
              pairs[1][1] == 3);
    m = rc_sched_round_pairs(7, 1, 2, pairs, 16);
    cr_assert(m == 3 && pairs[2][0] == 2 && pairs[2][1] == 6);
    /* k=2: [(0,1),(0,2)], [(0,3),(0,4),(1,5),(1,6)] */
    cr_assert_eq(rc_sched_rounds(7, 2), 2);
    m = rc_sched_round_pairs(7, 2, 1, pairs, 16);
    cr_assert(m == 4 && pairs[0][0] == 0 && pairs[0][1] == 3 && pairs[1][0] == 0 &&
              pairs[1][1] == 4 && pairs[2][0] == 1 && pairs[2][1] == 5 && pairs[3][0] == 1 &&
              pairs[3][1] == 6);
    /* next-receiver order (k=2): next(1)=2 ... next(5)=6, next(6)=0 */
    for (uint32_t r = 1; r < 6; r++) cr_assert_eq(rc_sched_next(7, r), r + 1);
    cr_assert_eq(rc_sched_next(7, 6), 0);
}

/* The remaining vectors of the reference's own schedule tests (tests/multicast/
 * test_schedule.py of lambdapioneer/rollercoaster), n = 7 users 0..6, source 0. */
static void expect_round(uint32_t n, uint32_t k, uint32_t t, const uint32_t (*want)[2], size_t nw)
{
    uint32_t got[64][2];
    size_t m = rc_sched_round_pairs(n, k, t, got, 64);
    cr_assert_eq(m, nw, "n=%u k=%u round %u: %zu pairs, want %zu", n, k, t, m, nw);
    for (size_t i = 0; i < nw; i++)
        cr_assert(got[i][0] == want[i][0] && got[i][1] == want[i][1],
                  "n=%u k=%u round %u pair %zu: (%u,%u) want (%u,%u)", n, k, t, i, got[i][0],
                  got[i][1], want[i][0], want[i][1]);
}

Test(schedule, reference_vectors_whole_rounds)
{
    expect_round(7, 1, 2, (const uint32_t[][2]){{0, 4}, {1, 5}, {2, 6}}, 3);
    expect_round(7, 2, 0, (const uint32_t[][2]){{0, 1}, {0, 2}}, 2);
    expect_round(7, 2, 2, NULL, 0);
}

Test(schedule, reference_vectors_nonce_one_by_user_id)
{
    /* Positions map to user ids through U = [0] + Random(1).shuffle([1..6]); the
     * reference's schedule for nonce 1, k = 2 is [(0,3),(0,4)], [(0,6),(0,1),(3,5),(3,2)]. */
    uint32_t U[7] = {0, 1, 2, 3, 4, 5, 6};
    rc_pyrandom_shuffle(1, U + 1, 6);
    const uint32_t want[2][4][2] = {{{0, 3}, {0, 4}}, {{0, 6}, {0, 1}, {3, 5}, {3, 2}}};
    const size_t nwant[2] = {2, 4};
    cr_assert_eq(rc_sched_rounds(7, 2), 2);
    for (uint32_t t = 0; t < 2; t++) {
        uint32_t pairs[8][2];
        size_t m = rc_sched_round_pairs(7, 2, t, pairs, 8);
        cr_assert_eq(m, nwant[t], "round %u: %zu pairs", t, m);
        for (size_t i = 0; i < m; i++)
            cr_assert(U[pairs[i][0]] == want[t][i][0] && U[pairs[i][1]] == want[t][i][1],
                      "round %u pair %zu: users (%u,%u) want (%u,%u)", t, i, U[pairs[i][0]],
                      U[pairs[i][1]], want[t][i][0], want[t][i][1]);
    }
}

Test(schedule, reference_vectors_tree_queries)
{
    /* k = 1, n = 7: the reference's pre-order walk of the source's subtree is
     * [1, 3, 5, 2, 6, 4] (its test compares the set {1..6}; the order is what its
     * Graph.preorder_traversal yields, children in schedule order). */
    uint32_t d[16];
    const uint32_t want[] = {1, 3, 5, 2, 6, 4};
    size_t m = rc_sched_descendants(7, 1, 0, d, 16);
    cr_assert_eq(m, 6);
    for (size_t i = 0; i < 6; i++)
        cr_assert_eq(d[i], want[i], "descendant %zu of 0: %u want %u", i, d[i], want[i]);
    /* parents of 6, up to and including the source: [2, 0] */
    cr_assert_eq(rc_sched_parent(1, 6), 2);
    cr_assert_eq(rc_sched_parent(1, 2), 0);
    /* hops between root and node: (6,6)=0, (2,6)=1, (0,2)=1, (0,6)=2 */
    cr_assert_eq(rc_sched_depth(1, 6) - rc_sched_depth(1, 6), 0);
    cr_assert_eq(rc_sched_depth(1, 6) - rc_sched_depth(1, 2), 1);
    cr_assert_eq(rc_sched_depth(1, 2), 1);
    cr_assert_eq(rc_sched_depth(1, 6), 2);
}

Test(schedule, worked_examples_of_the_spec)
{
    expect_children(8, 1, 0, (uint32_t[]){1, 2, 4}, 3);
    expect_children(8, 1, 1, (uint32_t[]){3, 5}, 2);
    expect_children(8, 1, 2, (uint32_t[]){6}, 1);
    expect_children(8, 1, 3, (uint32_t[]){7}, 1);
    expect_children(8, 1, 4, NULL, 0);
    expect_children(8, 2, 0, (uint32_t[]){1, 2, 3, 4}, 4);
    expect_children(8, 2, 1, (uint32_t[]){5, 6}, 2);
    expect_children(8, 2, 2, (uint32_t[]){7}, 1);
    expect_children(16, 1, 0, (uint32_t[]){1, 2, 4, 8}, 4);
    expect_children(16, 1, 1, (uint32_t[]){3, 5, 9}, 3);
    expect_children(16, 1, 3, (uint32_t[]){7, 11}, 2);
    expect_children(16, 1, 7, (uint32_t[]){15}, 1);
    expect_children(16, 2, 0, (uint32_t[]){1, 2, 3, 4, 9, 10}, 6);
    expect_children(16, 2, 1, (uint32_t[]){5, 6, 11, 12}, 4);
    expect_children(16, 2, 2, (uint32_t[]){7, 8, 13, 14}, 4);
    expect_children(16, 2, 3, (uint32_t[]){15}, 1);
    cr_assert_eq(rc_sched_rounds(16, 2), 3);
    /* n=128, k=16: the source has 32 direct children (docs/spec.md §2.3.2: why k >> p is slow). */
    cr_assert_eq(rc_sched_child_count(128, 16, 0), 32);
    cr_assert_eq(rc_sched_child_count(128, 16, 6), 15);
    /* small groups */
    expect_children(2, 1, 0, (uint32_t[]){1}, 1);
    expect_children(3, 2, 0, (uint32_t[]){1, 2}, 2);
    expect_children(3, 1, 0, (uint32_t[]){1, 2}, 2);
    expect_children(17, 1, 0, (uint32_t[]){1, 2, 4, 8, 16}, 5);
    expect_children(17, 3, 0, (uint32_t[]){1, 2, 3, 4, 5, 6, 16}, 7);
    expect_children(17, 3, 1, (uint32_t[]){7, 8, 9}, 3);
    expect_children(17, 3, 3, (uint32_t[]){13, 14, 15}, 3);
    expect_children(17, 3, 4, NULL, 0);
}

Test(schedule, invariants_for_many_sizes)
{
    for (uint32_t k = 1; k <= 4; k++) {
        for (uint32_t n = 2; n <= 300; n++) {
            uint32_t T = rc_sched_rounds(n, k);
            uint32_t want_T = (uint32_t)ceil(log((double)n) / log((double)k + 1) - 1e-12);
            cr_assert_eq(T, want_T, "n=%u k=%u rounds %u want %u", n, k, T, want_T);
            static uint32_t seen[512];
            memset(seen, 0, sizeof seen);
            uint64_t pow = 1;
            for (uint32_t t = 0; t < T; t++, pow *= k + 1) {
                uint32_t pairs[1024][2];
                size_t m = rc_sched_round_pairs(n, k, t, pairs, 1024);
                cr_assert_leq(m, k * pow, "round %u has %zu > k(k+1)^t sends", t, m);
                for (size_t i = 0; i < m; i++) {
                    seen[pairs[i][1]]++;
                    cr_assert_lt(pairs[i][0], pow, "sender must already know the message");
                    cr_assert_eq(rc_sched_parent(k, pairs[i][1]), pairs[i][0],
                                 "closed-form parent disagrees (n=%u k=%u r=%u)", n, k,
                                 pairs[i][1]);
                }
            }
            cr_assert_eq(seen[0], 0, "the source never receives");
            for (uint32_t r = 1; r < n; r++)
                cr_assert_eq(seen[r], 1, "n=%u k=%u: position %u received %u times", n, k, r,
                             seen[r]);
            uint32_t desc[512];
            cr_assert_eq(rc_sched_descendants(n, k, 0, desc, 512), n - 1);
            /* children/descendants/parents agree: each child's parent is r */
            for (uint32_t r = 0; r < n; r++) {
                uint32_t ch[512];
                size_t c = rc_sched_children(n, k, r, ch, 512);
                for (size_t i = 0; i < c; i++) cr_assert_eq(rc_sched_parent(k, ch[i]), r);
                size_t d = rc_sched_descendants(n, k, r, desc, 512);
                for (size_t i = 0; i < d; i++) {
                    uint32_t v = desc[i];
                    while (v > r) v = rc_sched_parent(k, v);
                    cr_assert_eq(v, r, "descendant %u of %u does not lead back to it", desc[i], r);
                }
            }
        }
    }
}

Test(schedule, timeout_estimates_match_the_reference_tests)
{
    /* k=1, 7 users, t_msg=10, t_queue=1: est(4,4)=21, est(2,6)=33 */
    cr_assert_float_eq(rc_sched_estimate_ms(7, 1, 4, 4, 10, 1), 21.0, 1e-9);
    cr_assert_float_eq(rc_sched_estimate_ms(7, 1, 2, 6, 10, 1), 33.0, 1e-9);
    /* docs/spec.md §2.4 worked example: n=16, k=2, p=2, mu=3 */
    double tm = 2666.6666667, tq = 250;
    cr_assert(fabs(rc_sched_estimate_ms(16, 2, 1, 1, tm, tq) - 6583.3) < 1);
    cr_assert(fabs(rc_sched_estimate_ms(16, 2, 1, 5, tm, tq) - 9500.0) < 1);
    cr_assert(fabs(rc_sched_estimate_ms(16, 2, 3, 3, tm, tq) - 5833.3) < 1);
    cr_assert(fabs(rc_sched_estimate_ms(16, 2, 3, 15, tm, tq) - 8750.0) < 1);
    cr_assert(fabs(rc_sched_estimate_ms(16, 2, 9, 9, tm, tq) - 5583.3) < 1);
    cr_assert_eq(rc_sched_depth(1, 7), 3);
}

/* The paper's receiver order is CPython's random.Random(nonce).shuffle; the
 * vectors below were printed by CPython 3.11 (and the first is docs/spec.md §2.3.2's
 * "k=2, nonce=1: order [0,3,4,6,1,5,2]"). */
static void expect_shuffle(uint32_t seed, uint32_t first, size_t n, const uint32_t *want,
                           size_t nw)
{
    uint32_t v[200];
    for (size_t i = 0; i < n; i++) v[i] = first + (uint32_t)i;
    rc_pyrandom_shuffle(seed, v, n);
    for (size_t i = 0; i < nw; i++)
        cr_assert_eq(v[i], want[i], "Random(%u).shuffle of %zu: [%zu] = %u, CPython has %u", seed,
                     n, i, v[i], want[i]);
    /* The same permutation through a plan (what Rollercoaster uses). */
    uint32_t w[200], plan[200];
    for (size_t i = 0; i < n; i++) w[i] = first + (uint32_t)i;
    rc_pyrandom_shuffle_plan(seed, n, plan);
    rc_pyrandom_shuffle_apply(plan, w, n);
    for (size_t i = 0; i < nw; i++)
        cr_assert_eq(w[i], want[i], "plan of Random(%u).shuffle of %zu: [%zu] = %u, CPython has %u",
                     seed, n, i, w[i], want[i]);
}

Test(schedule, nonce_permutation_is_cpythons_shuffle)
{
    expect_shuffle(1, 1, 6, (const uint32_t[]){3, 4, 6, 1, 5, 2}, 6);
    expect_shuffle(0, 0, 7, (const uint32_t[]){4, 2, 1, 0, 5, 3, 6}, 7);
    expect_shuffle(3, 0, 20,
                   (const uint32_t[]){8, 3, 6, 5, 15, 16, 2, 12, 0, 1, 13, 10, 19, 9, 14, 11, 4,
                                      17, 18, 7},
                   20);
    expect_shuffle(100, 0, 127, (const uint32_t[]){108, 4, 2, 97, 73, 12, 5, 116, 88, 69, 120, 1},
                   12);
}

/* The paper's groups: random.Random(0).sample(users, gs), one group after the
 * other from the same generator (CPython 3.11 output; the pool method for
 * every paper size, the rejection-set method when gs is small against m). */
Test(schedule, group_sample_is_cpythons_sample)
{
    rc_pyrandom g;
    uint32_t out[128];
    rc_pyrandom_seed(&g, 0);
    rc_pyrandom_sample(&g, 128, 128, out);
    const uint32_t first[] = {98, 97, 113, 53, 5, 33, 65, 62, 51, 117};
    for (int i = 0; i < 10; i++) cr_assert_eq(out[i], first[i], "group 0 [%d] = %u", i, out[i]);
    rc_pyrandom_sample(&g, 128, 128, out);
    const uint32_t second[] = {85, 108, 24, 31, 2};
    for (int i = 0; i < 5; i++) cr_assert_eq(out[i], second[i], "group 1 [%d] = %u", i, out[i]);
    rc_pyrandom_seed(&g, 0);
    rc_pyrandom_sample(&g, 32, 32, out);
    const uint32_t m32[] = {24, 31, 28, 13, 1, 8, 16, 15};
    for (int i = 0; i < 8; i++) cr_assert_eq(out[i], m32[i], "m=32 [%d] = %u", i, out[i]);
    rc_pyrandom_seed(&g, 0);
    rc_pyrandom_sample(&g, 5000, 10, out);
    const uint32_t sparse[] = {3155, 3445, 331, 2121, 4188, 3980, 3317, 2484, 3904, 2933};
    for (int i = 0; i < 10; i++) cr_assert_eq(out[i], sparse[i], "5000 choose 10 [%d] = %u", i, out[i]);
}
